import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// A document as it is now: where, its metadata, its content key.
struct Snapshot {
    let url: URL
    let path: String
    let metadata: DocumentMetadata
    let key: String?
    let pdfCRC: UInt32?
    let pdfSize: UInt64?
    /// The version of the file at `path` the plan expects (taken before reading it;
    /// ``FileIdentity/absent`` for a plain name the plan fills first).
    let identity: FileIdentity?
    /// The version of the file this was read from (taken before reading it).
    let sourceIdentity: FileIdentity?

    /// Reads the file at `path`; `placedAt`: the plain name the plan puts it under first
    /// (where nothing is yet), which every later step then works on.
    init(_ path: String, library: Library, placedAt target: String? = nil) throws {
        let source = library.root.appendingPathComponent(path)
        url = library.root.appendingPathComponent(target ?? path)
        self.path = target ?? path
        sourceIdentity = FileIdentity(path: source.path)
        identity = target == nil ? sourceIdentity : .absent
        let reader = try DocumentReader(path: source.path)
        metadata = try reader.metadata()
        key = reader.contentKey
        pdfCRC = reader.pdf?.crc32
        pdfSize = reader.pdf?.size
    }

    var samePDF: (Snapshot) -> Bool { { other in self.pdfCRC == other.pdfCRC && self.pdfSize == other.pdfSize } }
}

/// The version of each file a plan was made from. A step refuses to write over or remove a
/// file another process has changed since (``ArchiveError`` `.documentChanged`); the plan's
/// own writes move the expectation along.
final class ExpectedVersions {
    private var identities: [String: FileIdentity] = [:]

    subscript(path: String) -> FileIdentity? { identities[path] }

    func note(_ snapshot: Snapshot) {
        note(path: snapshot.path, snapshot.identity)
    }

    func note(path: String, _ identity: FileIdentity?) {
        if identities[path] == nil { identities[path] = identity }
    }

    /// After the plan itself wrote `path`.
    func refresh(_ path: String, at url: URL) {
        identities[path] = FileIdentity(path: url.path)
    }
}

import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// Evicts documents to the cloud, as iCloud does to save space.
public struct Eviction: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Makes sure the cloud has the document's current bytes, then replaces the local file:
    /// by an iCloud stub `.Name.yianazip.icloud` (the default), or, `dataless`, by a file of
    /// the same name and size without data (recorded in this machine's ``DatalessFiles``).
    /// The bytes are in the cloud before the local copy goes, and the local copy goes through
    /// the coordinated writer only if it is still the version that was verified and uploaded
    /// (else ``ArchiveError`` `.documentChanged`, and nothing is evicted).
    /// - Throws: ``CloudError`` or ``ArchiveError`` (a damaged document is not evicted).
    public func evict(_ url: URL, dataless: Bool = false) throws {
        let attachment = try CloudAttachment.load(library)
        let cloud = try attachment.cloud()
        guard let path = library.relativePath(of: url), FileManager.default.fileExists(atPath: url.path),
              !DatalessFiles.paths(in: library).contains(path) else { throw CloudError.notADocument(url.path) }
        // What is evicted is the version verified and uploaded here: the removal below is a
        // compare-and-swap on it, so an edit made meanwhile is never lost.
        let identity = FileIdentity.current(at: url.path)
        _ = try CoordinatedDocument.read(url.path) { try $0.verifyContents() }

        let stat = FileState(url)
        let state = SyncState.file(library).load() ?? SyncState()
        let synced = state.synced[path]
        let cloudSHA = cloud.latest()[path]?.sha256
        let local: String
        if let synced, stat == state.files[path] {
            local = synced
        } else {
            local = try FileHash.sha256(of: url)
        }
        // Only a local change goes up; a stale copy never overwrites a newer cloud version,
        // and a change made here and in the cloud is for `sync` to turn into a conflict copy.
        if local != cloudSHA, local != synced {
            if let cloudSHA, cloudSHA != synced { throw CloudError.needsSync(path) }
            try cloud.upload(url, as: path, device: attachment.device)
        }
        /// The cloud's copy is this document's, and no local file stands for it.
        func recordSynced() throws {
            try SyncState.file(library).update(initial: SyncState()) {
                $0.synced[path] = local
                $0.files[path] = nil
            }
        }
        let size = UInt64(stat?.size ?? 0)
        if dataless {
            try CoordinatedDocument.replaceWithDataless(at: url.path, size: size, expecting: identity)
            try DatalessFiles.file(library).update(initial: DatalessFiles()) { $0.sizes[path] = size }
        } else {
            let stub = Placeholder(documentName: url.lastPathComponent, documentSize: size)
            let stubPath = Placeholder.stubURL(for: url).path
            let stubData = try stub.stubData()
            do { try TemporaryFile.replace(stubPath, with: stubData) } catch {
                throw ArchiveError(.system(error), path: stubPath)
            }
            OwnWrites.note(stubPath)  // this machine's own stub: not a sync program's arrival
            do {
                try CoordinatedDocument.remove(at: url.path, expecting: identity)
            } catch {
                // The document stays: no stub may claim it is in the cloud only. Gone all the
                // same (the failure came after the name went: the folder's sync), the stub
                // stays, the only thing here that says where the document is.
                if FileKind.at(url.path) != .missing {
                    Sys.removeIfPresent(stubPath)
                    throw error
                }
                try? recordSynced()
                throw error
            }
        }
        try recordSynced()
    }
}

/// A file's size and modification time, to tell whether it changed since it was synced.
struct FileState: Codable, Sendable, Equatable {
    let size: Int64
    let modified: Double

    init?(_ url: URL) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
              let size = attributes[.size] as? Int, let date = attributes[.modificationDate] as? Date else { return nil }
        self.size = Int64(size)
        modified = date.timeIntervalSince1970
    }

}

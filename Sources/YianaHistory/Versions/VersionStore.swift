import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// One version of a document kept in the store.
public struct VersionRecord: Codable, Sendable, Equatable {
    /// SHA-256 of the file's bytes: the name of its copy in the store.
    public let sha256: String
    public let size: UInt64
    public let keptAt: Date
    /// Why it was kept ("replaced by repair", "resolved away: newest won", …).
    public let reason: String
    /// Where the document was, relative to the library.
    public let originalPath: String
    /// The document's metadata id and title, when its metadata could be read.
    public let documentID: String?
    public let title: String?
    /// The document's content key (`DocumentReader.contentKey`), to find a version by content.
    public var contentKey: String? = nil
    /// True for a state this machine's keeper kept (``Keeper``: local, never synced); absent
    /// for the shared version store's.
    public var keptHere: Bool? = nil

    /// The short form used on the command line (`yiana versions restore DOC <id>`).
    public var shortID: String { String(sha256.prefix(12)) }
}

/// Every document the toolkit replaces, repairs, resolves away or deletes is kept here
/// first: a content-addressed store in the library's hidden `.yiana/versions/objects/`
/// folder, synced on purpose so every device can restore any version. Identical bytes are
/// stored once (objects are never rewritten, so two devices never conflict on one); each
/// device's log (``SharedLog``, `.yiana/devices/<id>/versions.jsonl`) records each time it
/// kept something, why and from where, and the store lists the union of every device's. Nothing leaves the store but through an explicit ``prune(keepDays:keepLast:dryRun:now:)``.
public struct VersionStore: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    var folder: URL { library.root.appendingPathComponent(Library.stateFolderName).appendingPathComponent("versions") }
    var objects: URL { folder.appendingPathComponent("objects") }
    var objectStore: ObjectStore { ObjectStore(folder: objects) }
    /// What every device kept.
    public var logFile: SharedLog<VersionRecord> { SharedState.log(.versions, of: library) }
    /// Versions pruned on any device: hidden from the union of the logs.
    var prunedLog: SharedLog<PrunedVersion> { SharedState.log(.pruned, of: library) }

    /// Where a version's bytes are.
    public func objectURL(_ record: VersionRecord) -> URL {
        record.keptHere == true ? Keeper(library: library).objectURL(record.sha256) : objectStore.url(record.sha256)
    }

    /// True when the version's bytes are here (a sync program may carry a log line to this
    /// device before the object it names).
    public func contains(_ record: VersionRecord) -> Bool {
        FileManager.default.fileExists(atPath: objectURL(record).path)
    }

    /// Keeps the bytes of the file at `url` (once; a second copy of the same bytes only
    /// adds a log line) and records why. The copy is `fsync`ed before it is named, and the
    /// log line after it, so a crash leaves at most an unlisted copy, never a listed missing one.
    /// `document`: the document it is a version of, when that is not `url` itself (a
    /// temporary file written for it); `versions list` and `restore` find it by that path.
    /// - Throws: ``VersionStoreError`` or a system error naming the file.
    @discardableResult
    public func keep(_ url: URL, reason: String, as document: URL? = nil, now: Date = Date()) throws -> VersionRecord {
        if TidyOnce.first(objects.path) { objectStore.foldConflictCopies() }
        let (sha256, size) = try objectStore.put(url)
        let reader = try? DocumentReader(path: url.path)
        let metadata = try? reader?.metadata()
        let listedAs = document ?? url
        var record = VersionRecord(sha256: sha256, size: size, keptAt: now, reason: reason,
                                   originalPath: library.relativePath(of: listedAs) ?? listedAs.path,
                                   documentID: metadata?.id.uuidString, title: metadata?.title)
        record.contentKey = reader?.contentKey
        try logFile.append(record)
        return record
    }

    /// Every record of every device, oldest first, less those pruned. A damaged last line
    /// (from a crash mid-write) is skipped.
    public func records() throws -> [VersionRecord] {
        let pruned = Set(prunedLog.read())
        return logFile.read().filter { !pruned.contains(PrunedVersion($0)) }.enumerated()
            .sorted { ($0.element.keptAt, $0.offset) < ($1.element.keptAt, $1.offset) }.map(\.element)
    }

    /// The versions of the document at `url` (kept from its path, or carrying its
    /// metadata id), and of the app's companion files that belong to it (its address files
    /// and corrections, named by its title or file name), newest first.
    public func versions(of url: URL) throws -> [VersionRecord] {
        let path = library.relativePath(of: url) ?? url.path
        let metadata = try? DocumentReader(path: url.path).metadata()
        let id = metadata?.id.uuidString
        let keys = Set([url.deletingPathExtension().lastPathComponent] + (metadata.map { [$0.title] } ?? []))
        let shared = try records().filter { record in
            if record.originalPath == path || (id != nil && record.documentID == id) { return true }
            guard let companion = CompanionFile.classify(record.originalPath), companion.kind.scope == .document else { return false }
            return companion.key.map(keys.contains) ?? false
        }
        // And the states this machine's keeper saw of it, by path and by id, less the bytes
        // the shared store keeps too (listed once, with the reason it was kept).
        // The bytes the document holds now are no earlier version either.
        let keeper = Keeper(library: library)
        let skip = Set(shared.map(\.sha256) + [keeper.currentSHA256(of: url)].compactMap { $0 })
        let seen = keeper.records(path: path, documentID: id).filter { !skip.contains($0.sha256) }
        return (shared + seen).enumerated().sorted { ($0.element.keptAt, $0.offset) > ($1.element.keptAt, $1.offset) }.map(\.element)
    }

    /// Puts a kept version of a companion file (`record.originalPath` names one) back under
    /// the plain name the app reads, after keeping what is there now.
    /// - Returns: the record of the replaced file, if there was one.
    /// - Throws: ``VersionStoreError``, ``ArchiveError`` (another process wrote it meanwhile).
    @discardableResult
    public func restoreCompanion(_ record: VersionRecord) throws -> (path: String, replaced: VersionRecord?) {
        guard let companion = CompanionFile.classify(record.originalPath) else { throw VersionStoreError.noSuchVersion(record.shortID) }
        let object = objectURL(record)
        guard let data = FileManager.default.contents(atPath: object.path) else { throw VersionStoreError.missingObject(record.shortID) }
        let url = library.root.appendingPathComponent(companion.plainPath)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let current = FileIdentity.current(at: url.path)
        let replaced = current == .absent ? nil : try keep(url, reason: "replaced by restoring version \(record.shortID)")
        try CoordinatedDocument.replace(at: url.path, with: data, expecting: current) { _ in }
        return (companion.plainPath, replaced)
    }

    /// The version of `url` whose id starts with `prefix`.
    /// - Throws: ``VersionStoreError`` when none or several match.
    public func version(_ prefix: String, of url: URL) throws -> VersionRecord {
        let matches = try versions(of: url).filter { $0.sha256.hasPrefix(prefix.lowercased()) }
        let distinct = Set(matches.map(\.sha256))
        guard let first = matches.first else { throw VersionStoreError.noSuchVersion(prefix) }
        guard distinct.count == 1 else { throw VersionStoreError.ambiguousVersion(prefix, matches.count) }
        return first
    }

    /// Puts `record`'s bytes back at `url`, after keeping what is there now.
    /// - Returns: the record of the replaced document, if there was one.
    /// - Throws: ``VersionStoreError``, ``ArchiveError`` (the kept bytes must verify).
    @discardableResult
    public func restore(_ record: VersionRecord, to url: URL) throws -> VersionRecord? {
        let object: URL
        if record.keptHere == true {
            object = try Keeper(library: library).verifiedObject(record)  // its SHA-256 checked first
        } else {
            object = objectURL(record)
            guard FileManager.default.fileExists(atPath: object.path) else { throw VersionStoreError.missingObject(record.shortID) }
        }
        return try restore(bytesAt: object, id: record.shortID, to: url)
    }

    /// Puts the bytes of `file` (the version `id`, checked by the caller) at `url`, after
    /// keeping what is there now.
    /// - Returns: the record of the replaced document, if there was one.
    @discardableResult
    public func restore(bytesAt object: URL, id: String, to url: URL) throws -> VersionRecord? {
        var replaced: VersionRecord? = nil
        // What is kept is what gets replaced: the write refuses if another process wrote meanwhile.
        let current = FileIdentity.current(at: url.path)
        if current != .absent {
            let reason = "replaced by restoring version \(id)"
            if (try? DocumentReader(path: url.path, checks: .layout).metadata()) == nil {
                // Bytes that are not a document (garbage, ransomware) stay on this machine, in
                // the keeper, rather than travel to every device in the shared store.
                replaced = try Keeper(library: library).keepAnyBytes(at: url, reason: reason)
            } else {
                replaced = try keep(url, reason: reason)
            }
        }
        try CoordinatedDocument.replace(at: url.path, withBytesOf: object.path, expecting: current)
        return replaced
    }
}


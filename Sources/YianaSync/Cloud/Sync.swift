import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// What a sync did.
public struct SyncReport: Codable, Sendable {
    public var uploaded: [String] = []
    public var pulled: [String] = []
    /// Documents both devices changed: the local version stayed, the other arrived as this copy.
    public var conflictCopies: [String: String] = [:]
    /// Local deletions sent to the cloud.
    public var deletedInCloud: [String] = []
    /// Documents deleted on another device, removed here (kept in the version store first).
    public var deletedHere: [String] = []
    public var failed: [String: String] = [:]
}

/// Two-way sync between a library and its cloud store, as iCloud Drive would do it.
public struct Sync: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Uploads local changes and pulls remote ones. A document changed on both sides since
    /// the last sync keeps the local version; the remote one arrives as a conflict copy named
    /// as iCloud names them (`Name 2.yianazip`). Deletions travel as tombstones; a document
    /// deleted elsewhere is kept in the version store before it goes here, and a deletion
    /// never wins over an edit it had not seen. Evicted documents stay evicted.
    /// - Throws: when the library is not attached or cannot be scanned; a document that
    ///   fails is reported in `failed` and the rest go on.
    public func run(now: Date = Date()) throws -> SyncReport {
        let attachment = try CloudAttachment.load(library)
        let cloud = try attachment.cloud()
        let device = attachment.device
        let latest = cloud.latest()
        var state = SyncState.file(library).load() ?? SyncState()
        var report = SyncReport()
        let items = try LibraryScanner.scan(library.root)
        var local: [String: LibraryItem] = [:]
        for item in items {
            if let path = library.relativePath(ofFile: item.documentFilePath) { local[path] = item }
        }

        for path in Set(local.keys).union(latest.keys).union(state.synced.keys).sorted() {
            do {
                do {
                    try syncOne(path, item: local[path], cloudRecord: latest[path], cloud: cloud, device: device, state: &state, report: &report)
                } catch where local[path].map({ !FileManager.default.fileExists(atPath: $0.url.path) }) == true {
                    // Removed by another process after the library was listed: as if it had been gone then.
                    try syncOne(path, item: nil, cloudRecord: latest[path], cloud: cloud, device: device, state: &state, report: &report)
                }
            } catch {
                report.failed[path] = "\(error)"
            }
        }
        state.lastSync = now
        let final = state
        try SyncState.file(library).update(initial: SyncState()) { $0 = final }
        return report
    }

    /// A path the cloud knows and this device does not have: deleted here since the last
    /// sync (the deletion goes up), or new elsewhere (it comes down).
    private func syncAbsent(_ path: String, at url: URL, cloudRecord: CloudRecord?, cloud: CloudStore, device: String,
                            state: inout SyncState, report: inout SyncReport) throws {
        guard let cloudRecord, let cloudSHA = cloudRecord.sha256 else {
            state.synced[path] = nil
            return
        }
        if let synced = state.synced[path], synced == cloudSHA {
            try cloud.delete(path, device: device)  // deleted here since the last sync
            state.synced[path] = nil
            report.deletedInCloud.append(path)
        } else {
            try place(cloudSHA, from: cloud, at: url, expecting: .absent)  // new elsewhere, or changed after our deletion
            remember(path, sha: cloudSHA, url: url, in: &state)
            report.pulled.append(path)
        }
    }

    /// An evicted document deleted on another device: its stub goes; a data-less file (at
    /// the document's own name) goes through the coordinated writer, as a document would.
    private func removePlaceholder(_ item: LibraryItem, path: String, state: inout SyncState, report: inout SyncReport) throws {
        if item.path == item.documentFilePath {
            try CoordinatedDocument.remove(at: item.path, expecting: FileIdentity.current(at: item.path))
        } else {
            do { try Sys.unlink(item.path) } catch {
                if !error.isNotFound { throw ArchiveError(.system(error), path: item.path) }
            }
            OwnWrites.noteRemoved(item.documentFilePath)
        }
        try DatalessFiles.file(library).update(initial: DatalessFiles()) { $0.sizes[path] = nil }
        state.synced[path] = nil
        report.deletedHere.append(path)
    }

    private func syncOne(_ path: String, item: LibraryItem?, cloudRecord: CloudRecord?, cloud: CloudStore, device: String,
                         state: inout SyncState, report: inout SyncReport) throws {
        let url = library.root.appendingPathComponent(path)
        let synced = state.synced[path]

        guard let item else {
            return try syncAbsent(path, at: url, cloudRecord: cloudRecord, cloud: cloud, device: device, state: &state, report: &report)
        }
        if item.kind == .placeholder {
            // Evicted here: follows a deletion, otherwise stays evicted until downloaded.
            if cloudRecord?.isDeletion == true { try removePlaceholder(item, path: path, state: &state, report: &report) }
            return
        }

        // The version of the file the decisions below are made on: a pull never writes over,
        // nor a deletion removes, a version another process wrote after it.
        let identity = FileIdentity.current(at: item.path)
        let localSHA = try currentSHA(item.url, path: path, state: state)
        let base = synced.map { [$0] } ?? []  // what this version was made from
        guard let cloudRecord else {
            try upload(item.url, as: path, cloud: cloud, device: device, parents: base)
            remember(path, sha: localSHA, url: item.url, in: &state)
            report.uploaded.append(path)
            return
        }
        guard let cloudSHA = cloudRecord.sha256 else {
            if localSHA == synced {
                // Deleted on another device; nothing changed here since: keep it, then remove it.
                try DocumentRewrite(library: library).keepAndRemove(item.url, reason: "deleted on \(cloudRecord.device) (sync)", expecting: identity)
                state.synced[path] = nil
                report.deletedHere.append(path)
            } else {
                try upload(item.url, as: path, cloud: cloud, device: device, parents: base)  // an edit it had not seen wins
                remember(path, sha: localSHA, url: item.url, in: &state)
                report.uploaded.append(path)
            }
            return
        }
        if cloudSHA == localSHA {
            remember(path, sha: localSHA, url: item.url, in: &state)
        } else if localSHA == synced {
            try place(cloudSHA, from: cloud, at: url, expecting: identity)  // changed elsewhere only
            remember(path, sha: cloudSHA, url: url, in: &state)
            report.pulled.append(path)
        } else if cloudSHA == synced {
            try upload(item.url, as: path, cloud: cloud, device: device, parents: base)  // changed here only
            remember(path, sha: localSHA, url: item.url, in: &state)
            report.uploaded.append(path)
        } else {
            // Changed on both sides: ours stays; theirs arrives as "Name 2", as iCloud does it.
            let copy = DocumentRewrite(library: library).freeName(for: url.deletingPathExtension().lastPathComponent,
                                                                    in: url.deletingLastPathComponent(), numberedFrom: 2)
            try place(cloudSHA, from: cloud, at: copy, expecting: .absent)
            let copyPath = library.relativePath(of: copy) ?? copy.path
            try cloud.upload(copy, as: copyPath, device: device)
            try upload(item.url, as: path, cloud: cloud, device: device, parents: base)
            remember(copyPath, sha: cloudSHA, url: copy, in: &state)
            remember(path, sha: localSHA, url: item.url, in: &state)
            report.conflictCopies[path] = copyPath
        }
    }

    /// Puts the cloud's bytes `sha256` at `url`, verified, through the coordinated writer.
    /// Uploads a local version made from `parents`, and writes that step into the history
    /// too, so that a later merge here finds the common ancestor with another device's edit.
    private func upload(_ url: URL, as path: String, cloud: CloudStore, device: String, parents: [String]) throws {
        let record = try cloud.upload(url, as: path, device: device, parents: parents)
        if record.parents != nil, let sha = record.sha256 { CloudLineage(cloud: cloud, library: library).record(sha) }
    }

    /// Only if the file there is still `expecting` (``FileIdentity/absent`` for a new one).
    /// What the cloud knows of how the version was made goes into this library's history.
    private func place(_ sha256: String, from cloud: CloudStore, at url: URL, expecting: FileIdentity) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.replace(at: url.path, withBytesOf: cloud.objectURL(sha256).path, expecting: expecting)
        CloudLineage(cloud: cloud, library: library).record(sha256)
        if let stub = Placeholder.existingStub(for: url) { try? FileManager.default.removeItem(at: stub) }
    }

    private func currentSHA(_ url: URL, path: String, state: SyncState) throws -> String {
        if let synced = state.synced[path], FileState(url) == state.files[path] { return synced }
        return try FileHash.sha256(of: url)
    }

    private func remember(_ path: String, sha: String, url: URL, in state: inout SyncState) {
        state.synced[path] = sha
        state.files[path] = FileState(url)
    }
}

import Foundation
import YianaArchive
import YianaLibrary
#if canImport(Glibc)
import Glibc
#endif

/// Evicts documents to the cloud, as iCloud does to save space.
public struct Eviction: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Makes sure the cloud has the document's current bytes, then replaces the local file:
    /// by an iCloud stub `.Name.yianazip.icloud` (the default), or, `dataless`, by a file of
    /// the same name and size without data (recorded in `.yiana/dataless.json`). Done under
    /// the document's lock; the bytes are in the cloud before the local copy goes.
    /// - Throws: ``CloudError`` or ``ArchiveError`` (a damaged document is not evicted).
    public func evict(_ url: URL, dataless: Bool = false) throws {
        let attachment = try CloudAttachment.load(library)
        let cloud = try attachment.cloud()
        guard let path = library.relativePath(of: url), FileManager.default.fileExists(atPath: url.path),
              !DatalessFiles.paths(in: library).contains(path) else { throw CloudError.notADocument(url.path) }
        let lock = try DocumentLock(document: url.path, mode: .exclusive, timeout: CoordinatedDocument.defaultLockTimeout)
        defer { lock.release() }
        try DocumentReader(path: url.path).verifyContents()

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
        let sha: String? = local
        if dataless {
            try replaceWithEmptyFile(url, size: UInt64(stat?.size ?? 0))
            try DatalessFiles.file(library).update(initial: DatalessFiles()) { $0.sizes[path] = UInt64(stat?.size ?? 0) }
        } else {
            let stub = Placeholder(documentName: url.lastPathComponent, documentSize: UInt64(stat?.size ?? 0))
            try AtomicFile.write(try stub.stubData(), to: Placeholder.stubURL(for: url))
            guard unlink(url.path) == 0 else { throw ArchiveError(.system(SystemError("remove", path: url.path, errno: errno)), path: url.path) }
            VersionStore.fsyncFolder(url.deletingLastPathComponent())
        }
        try SyncState.file(library).update(initial: SyncState()) {
            $0.synced[path] = sha
            $0.files[path] = nil
        }
    }

    private func replaceWithEmptyFile(_ url: URL, size: UInt64) throws {
        let temp = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).yiana-tmp-\(UUID().uuidString.prefix(8))")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0, ftruncate(fd, off_t(size)) == 0, fsync(fd) == 0 else {
            let error = SystemError("write", path: temp.path, errno: errno)
            if fd >= 0 { close(fd) }
            unlink(temp.path)
            throw ArchiveError(.system(error), path: url.path)
        }
        close(fd)
        guard rename(temp.path, url.path) == 0 else {
            unlink(temp.path)
            throw ArchiveError(.system(SystemError("rename", path: url.path, errno: errno)), path: url.path)
        }
        VersionStore.fsyncFolder(url.deletingLastPathComponent())
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

import Foundation
import YianaArchive
import YianaLibrary

/// A document's state toward the cloud, in Apple's terms.
public struct DocumentStatus: Codable, Sendable, Equatable {
    /// Apple's three download statuses.
    public enum Download: String, Codable, Sendable {
        /// Only a stub (or a data-less file) is here.
        case notDownloaded
        /// A local copy exists but is older than the cloud's.
        case downloaded
        /// The newest version is local.
        case current
    }

    public let path: String
    public let status: Download
    /// A download is under way (or was interrupted and will resume).
    public let isDownloading: Bool
    /// 0…1 while downloading.
    public let progress: Double?
    /// The last download error, if the last attempt failed.
    public let downloadError: String?
    /// The local copy has changes the cloud does not have yet.
    public let uploadPending: Bool
    /// The document is part of a conflict that needs resolving.
    public let inConflict: Bool
}

public struct StatusReport: Codable, Sendable {
    public let device: String
    public let lastSync: Date?
    public let documents: [DocumentStatus]
}

extension CloudStore {
    /// The status of every document and placeholder in `library` (or those under `paths`).
    /// Local files are hashed only when they changed since they were last synced.
    public static func status(of library: Library, paths: [String] = []) async throws -> StatusReport {
        let attachment = try CloudAttachment.load(library)
        let cloud = try attachment.cloud()
        let latest = cloud.latest()
        let index = cloud.index.read()
        let sync = SyncState.file(library).load() ?? SyncState()
        let downloads = Downloads.file(library).load()?.byPath ?? [:]
        let conflicts = Set(try await ConflictDetector(library: library).detect().groups.filter(\.needsResolving).flatMap { $0.files.map(\.path) })
        var documents: [DocumentStatus] = []
        for item in try LibraryScanner.scan(library.root) {
            guard let path = library.relativePath(ofFile: item.documentFilePath) else { continue }
            guard paths.isEmpty || paths.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) else { continue }
            let download = downloads[path]
            let cloudSHA = latest[path]?.sha256
            var status = DocumentStatus.Download.current
            var uploadPending = false
            if item.kind == .placeholder {
                status = .notDownloaded
            } else {
                let local: String?
                if let synced = sync.synced[path], FileState(item.url) == sync.files[path] {
                    local = synced
                } else {
                    local = try? FileHash.sha256(of: item.url)
                }
                if local == cloudSHA {
                    status = .current
                } else if let local, index.contains(where: { $0.path == path && $0.sha256 == local }) {
                    status = .downloaded  // an older version the cloud has had
                } else {
                    uploadPending = true  // changed here since the cloud's version
                }
            }
            documents.append(DocumentStatus(
                path: path, status: status, isDownloading: (download?.received ?? 0) > 0 || (download != nil && download?.error == nil),
                progress: download.map { $0.size == 0 ? 1 : Double($0.received) / Double($0.size) },
                downloadError: download?.error, uploadPending: uploadPending, inConflict: conflicts.contains(path)))
        }
        return StatusReport(device: attachment.device, lastSync: sync.lastSync, documents: documents)
    }
}

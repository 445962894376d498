import Foundation
import YianaLibrary

/// What `yiana download` did to each document it was given.
public struct DownloadReport: Encodable, Sendable {
    public struct Downloaded: Encodable, Sendable {
        public let path: String
        /// How many attempts it took (more than 1 when faults were retried).
        public let attempts: Int
    }

    public var downloaded: [Downloaded] = []
    public var failed: [BatchFailure] = []
}

extension Downloader {
    /// The evicted documents `arguments` name, or every evicted document when nil.
    /// - Throws: ``DocumentLookupError`` for a name that is not an evicted document.
    public func targets(named arguments: [String]?) throws -> [URL] {
        guard let arguments else {
            return try LibraryScanner.scan(library.root).filter { $0.kind == .placeholder }.map(\.documentURL)
        }
        return try arguments.map { argument in
            switch library.locate(argument) {
            case .placeholder(_, let document): return document
            case .document(let url): throw DocumentLookupError(description: "\(library.relativePath(of: url) ?? url.path) is already downloaded.")
            case .notFound: throw DocumentLookupError(description: "no document \"\(argument)\" here, evicted or not.")
            }
        }
    }

    /// Downloads each of `urls` in turn (see ``download(_:progress:)``), going on past
    /// failures; `progress` hears the number of the document, its path and its fraction done.
    public func download(_ urls: [URL], progress: @escaping @Sendable (Int, String, Double) -> Void = { _, _, _ in }) -> DownloadReport {
        var report = DownloadReport()
        for (number, url) in urls.enumerated() {
            let path = library.relativePath(of: url) ?? url.path
            do {
                let attempts = try download(url) { progress(number, path, $0) }
                report.downloaded.append(DownloadReport.Downloaded(path: path, attempts: attempts))
            } catch {
                report.failed.append(BatchFailure(document: path, error: "\(error)"))
            }
        }
        return report
    }
}

extension FaultSettings {
    /// Fault settings from a JSON file such as `{"flakiness": 0.3, "seed": 7}`.
    /// - Throws: ``CloudError`` naming the file when it cannot be read as such.
    public static func load(_ path: String) throws -> FaultSettings {
        guard let data = FileManager.default.contents(atPath: path),
              let settings = try? JSONDecoder().decode(FaultSettings.self, from: data) else {
            throw CloudError.badFaultFile(path)
        }
        return settings
    }
}

import Foundation
import YianaLibrary

/// What `yiana evict` did to each document it was given.
public struct EvictionReport: Encodable, Sendable {
    /// Evicted now (relative paths).
    public var evicted: [String] = []
    /// Evicted before: done, not an error (a rerun after an interruption).
    public var alreadyEvicted: [String] = []
    public var failed: [BatchFailure] = []
}

extension Eviction {
    /// Evicts each named document (see ``evict(_:dataless:)``), going on past failures.
    public func evict(named arguments: [String], dataless: Bool = false) -> EvictionReport {
        var report = EvictionReport()
        for argument in arguments {
            if case .placeholder(_, let document) = library.locate(argument) {
                report.alreadyEvicted.append(library.relativePath(of: document) ?? document.path)
                continue
            }
            do {
                let url = try library.document(named: argument)
                try evict(url, dataless: dataless)
                report.evicted.append(library.relativePath(of: url) ?? url.path)
            } catch {
                report.failed.append(BatchFailure(document: argument, error: "\(error)"))
            }
        }
        return report
    }
}

import Foundation
import YianaFolder
import YianaArchive

/// What a prune removed (or, with `dryRun`, would remove).
public struct PruneReport: Codable, Sendable {
    /// Records dropped from the log.
    public var removed: [VersionRecord] = []
    /// Records kept.
    public var kept = 0
    /// Stored copies deleted, and the bytes freed.
    public var deletedObjects = 0
    public var freedBytes: UInt64 = 0
    public var dryRun = false
}

/// A version some device pruned: hidden from every device's listing.
struct PrunedVersion: Codable, Sendable, Hashable {
    let sha256: String
    let keptAt: Date
    let originalPath: String

    init(_ record: VersionRecord) {
        sha256 = record.sha256
        keptAt = record.keptAt
        originalPath = record.originalPath
    }
}

extension VersionStore {
    /// Drops old versions: for each original path, the newest `keepLast` versions and every
    /// version younger than `keepDays` days are kept, the rest removed; stored bytes no
    /// longer listed are deleted. With `dryRun`, nothing changes.
    /// - Throws: ``VersionStoreError/nothingToKeepBy`` when neither limit is given.
    public func prune(keepDays: Int?, keepLast: Int?, dryRun: Bool, now: Date = Date()) throws -> PruneReport {
        guard keepDays != nil || keepLast != nil else { throw VersionStoreError.nothingToKeepBy }
        return try prunedLog.own().withLock { try pruneLocked(keepDays: keepDays, keepLast: keepLast, dryRun: dryRun, now: now) }
    }

    private func pruneLocked(keepDays: Int?, keepLast: Int?, dryRun: Bool, now: Date) throws -> PruneReport {
        let all = try records()
        var keep = [Bool](repeating: false, count: all.count)
        let byPath = Dictionary(grouping: all.indices, by: { all[$0].originalPath })
        for indices in byPath.values {
            for (rank, index) in indices.sorted(by: { all[$0].keptAt > all[$1].keptAt }).enumerated() {
                if let keepLast, rank < keepLast { keep[index] = true }
                if let keepDays, now.timeIntervalSince(all[index].keptAt) < Double(keepDays) * 86_400 { keep[index] = true }
            }
        }
        var report = PruneReport(dryRun: dryRun)
        report.removed = all.indices.filter { !keep[$0] }.map { all[$0] }
        report.kept = keep.filter { $0 }.count
        let remaining = all.indices.filter { keep[$0] }.map { all[$0] }
        let stillNeeded = Set(remaining.map(\.sha256))
        let doomed = Set(report.removed.map(\.sha256)).subtracting(stillNeeded)
        report.deletedObjects = doomed.count
        report.freedBytes = report.removed.filter { doomed.contains($0.sha256) }
            .reduce(into: [String: UInt64]()) { $0[$1.sha256] = $1.size }.values.reduce(0, +)
        guard !dryRun, !report.removed.isEmpty else { return report }

        // Every device's log is its own to write: what is pruned is recorded in this device's
        // list of pruned versions (which every device reads), then the bytes nobody lists go.
        try prunedLog.own().appendLocked(report.removed.map(PrunedVersion.init))
        for sha256 in doomed { objectStore.remove(sha256) }
        return report
    }
}

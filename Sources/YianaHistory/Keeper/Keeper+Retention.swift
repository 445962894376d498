import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// How long the keeper keeps what it saw, predictably:
/// - a deleted (or overwritten) document's states at least ``deletedDays`` days after it went,
///   as iCloud's Recently Deleted;
/// - a living document's current state always, its earlier ones thinned as Syncthing's
///   staggered versioning does (``thinning``): all for a day, one a day for a month, one a
///   week after;
/// - within a disk budget (default a tenth of the space free to the store, counting what the
///   store itself takes), enforced oldest first; the last state of a document deleted less
///   than ``deletedDays`` ago goes only when nothing else is left to drop.
public struct KeeperRetention: Sendable, Equatable {
    public var deletedDays = 30
    /// Bytes the store may take beyond the library (nil: the default share of free space).
    public var budget: UInt64?

    /// Up to each age, keep one state per step (0: every state).
    static let thinning: [(upTo: TimeInterval, step: TimeInterval)] = [
        (86_400, 0),
        (30 * 86_400, 86_400),
        (.infinity, 7 * 86_400),
    ]

    public init(deletedDays: Int = 30, budget: UInt64? = nil) {
        self.deletedDays = deletedDays
        self.budget = budget
    }
}

/// The keeper's size against its budget, as the last prune found it.
public struct KeeperUsage: Codable, Sendable, Equatable {
    public let at: Date
    /// Bytes the store takes beyond the library.
    public let bytes: UInt64
    public let budget: UInt64
    /// Last states of recently deleted documents the budget forced out.
    public let forcedOut: Int

    /// Past this share of its budget the keeper is nearly full: told to the person.
    public static let nearlyFull = 0.9

    public var share: Double { budget == 0 || budget == .max ? 0 : Double(bytes) / Double(budget) }
    public var isNearlyFull: Bool { share >= Self.nearlyFull || forcedOut > 0 }
}

/// What a prune dropped (or, with `dryRun`, would drop).
public struct KeeperPruneReport: Codable, Sendable {
    public var dropped: [VersionRecord] = []
    public var kept = 0
    /// Stored bytes deleted, and how many of their bytes were the store's own (not shared
    /// with a document still in the library).
    public var deletedObjects = 0
    public var freedBytes: UInt64 = 0
    /// The budget and what the store took beyond the library before and after.
    public var budget: UInt64 = 0
    public var costBefore: UInt64 = 0
    public var costAfter: UInt64 = 0
    /// Last states of recently deleted documents the budget forced out (said loudly).
    public var forcedOut: [String] = []
    public var dryRun = false
}

extension Keeper {
    var lastPruneFile: URL { place.folder.appendingPathComponent("last-prune") }

    /// What the store takes beyond the library: bytes of objects that are not also a
    /// document's file (a linked state whose document is still there costs nothing).
    func cost(of sha256: String) -> UInt64 {
        guard let st = try? Sys.lstat(objectURL(sha256).path) else { return 0 }
        return st.links > 1 ? 0 : st.size
    }

    /// Drops what ``KeeperRetention`` says may go, then what the budget needs.
    /// - Throws: ``VersionStoreError`` when the store cannot be written.
    public func prune(_ retention: KeeperRetention = KeeperRetention(), dryRun: Bool, now: Date = Date()) throws -> KeeperPruneReport {
        guard FileKind.at(journal.url.path) == .regular else { return KeeperPruneReport(dryRun: dryRun) }
        return try journal.withLock { try pruneLocked(retention, dryRun: dryRun, now: now) }
    }

    private func pruneLocked(_ retention: KeeperRetention, dryRun: Bool, now: Date) throws -> KeeperPruneReport {
        if !dryRun { try journal.checkWritable() }
        let catalog = catalog()
        var report = KeeperPruneReport(dryRun: dryRun)
        var (drop, protected, pinned) = try thinned(catalog, retention, now: now)
        // What the kept bytes cost beyond the library (most cost nothing: a linked state whose
        // document is still there); only what costs something is held.
        var costs: [String: UInt64] = [:]
        try catalog.forEachKeptObject { sha256, _ in
            let bytes = self.cost(of: sha256)
            if bytes > 0 { costs[sha256] = bytes }
        }
        report.costBefore = costs.values.reduce(0, +)
        // Free space unknown: no budget is enforced (never drop what cannot be weighed).
        report.budget = retention.budget ?? (try? Sys.freeBytes(place.folder.path)).map { ($0 + report.costBefore) / 10 } ?? .max
        // How many states left after thinning use each of the bytes that cost something.
        var users: [String: Int] = [:]
        if !costs.isEmpty {
            try catalog.forEachKeptState { state in
                if costs[state.sha256] != nil, !drop.contains(state.id) { users[state.sha256, default: 0] += 1 }
                return true
            }
        }
        var cost = users.keys.reduce(0) { $0 + (costs[$1] ?? 0) }
        if cost > report.budget {
            // Oldest first: everything not pinned or protected, then the protected last states.
            func take(_ state: KeeperCatalog.Weight) {
                drop.insert(state.id)
                if protected.contains(state.id) { report.forcedOut.append(state.path) }
                guard let bytes = costs[state.sha256] else { return }
                users[state.sha256, default: 1] -= 1
                // Bytes another state still needs stay, and cost as before.
                if users[state.sha256] == 0 { cost -= bytes }
            }
            var last: [KeeperCatalog.Weight] = []
            try catalog.forEachKeptState { state in
                guard cost > report.budget else { return false }
                if drop.contains(state.id) || pinned.contains(state.id) { return true }
                if protected.contains(state.id) { last.append(state) } else { take(state) }
                return true
            }
            for state in last where cost > report.budget { take(state) }
        }
        pinned = []
        // The bytes no state left needs: those only dropped states named, and those no state names.
        let dropped = try catalog.states(ids: drop)
        var doomed = Set(dropped.values.map(\.sha256))
        if !doomed.isEmpty {
            try catalog.forEachKeptState { state in
                if !drop.contains(state.id) { doomed.remove(state.sha256) }
                return !doomed.isEmpty
            }
        }
        doomed.formUnion(try catalog.unnamedObjects())
        report.costAfter = costs.filter { !doomed.contains($0.key) }.values.reduce(0, +)
        report.dropped = drop.sorted().compactMap { dropped[$0].map(record) }
        report.kept = try catalog.keptStateCount() - drop.count
        report.deletedObjects = doomed.count
        report.freedBytes = doomed.reduce(0) { $0 + (costs[$1] ?? self.cost(of: $1)) }
        guard !dryRun else { return report }
        if !drop.isEmpty || !doomed.isEmpty {
            // The journal first (no line names bytes about to go), then the bytes.
            try compact(catalog, dropping: drop)
            for sha256 in doomed { Sys.removeIfPresent(objectURL(sha256).path) }
        }
        try? TemporaryFile.replace(lastPruneFile.path, with: Array(String(Int64(now.timeIntervalSince1970)).utf8), mode: 0o600)
        let usage = KeeperUsage(at: now, bytes: report.costAfter, budget: report.budget, forcedOut: report.forcedOut.count)
        if let data = try? JSONEncoder().encode(usage) { try? TemporaryFile.replace(usageFile.path, with: Array(data), mode: 0o600) }
        return report
    }

    var usageFile: URL { place.folder.appendingPathComponent("usage.json") }

    /// What the store took beyond the library against its budget at the last prune (daily,
    /// at the end of a look, or `yiana versions prune`); nil before the first.
    public func usage() -> KeeperUsage? {
        FileManager.default.contents(atPath: usageFile.path).flatMap { try? JSONDecoder().decode(KeeperUsage.self, from: $0) }
    }

    /// What the retention drops before the budget is counted: the states of documents lost
    /// longer ago than kept for, and those the thinning table leaves out; with the states
    /// `protected` (the last of a recently lost document) and `pinned` (a living document's
    /// current bytes), by state id. Read path by path.
    private func thinned(_ catalog: KeeperCatalog, _ retention: KeeperRetention, now: Date)
        throws -> (drop: Set<Int64>, protected: Set<Int64>, pinned: Set<Int64>) {
        var drop = Set<Int64>(), protected = Set<Int64>(), pinned = Set<Int64>()
        try catalog.forEachKeptPath { _, newestFirst, record, lastHeld in
            var lostAt: Date?
            switch record?.state {
            case .document(let current)?:
                // Every line of the current bytes at this path is the current state.
                for state in newestFirst where state.sha256 == current.sha256 { pinned.insert(state.id) }
            case .gone(let at, _)? where !lastHeld:
                lostAt = at
            case .notDocument(_, let at)?:
                lostAt = at
            default:
                break
            }
            if let lostAt, now.timeIntervalSince(lostAt) >= Double(retention.deletedDays) * 86_400 {
                drop.formUnion(newestFirst.map(\.id))  // lost longer ago than kept for
                return
            }
            if lostAt != nil, let last = newestFirst.first { protected.insert(last.id) }
            var buckets = Set<String>()
            for state in newestFirst where !pinned.contains(state.id) && !protected.contains(state.id) {
                let age = max(0, now.timeIntervalSince(state.seen))
                guard let rule = KeeperRetention.thinning.first(where: { age < $0.upTo }), rule.step > 0 else { continue }
                // One per step: the newest state of each step-long bucket of age.
                if !buckets.insert("\(rule.step)/\(Int(age / rule.step))").inserted { drop.insert(state.id) }
            }
        }
        return (drop, protected, pinned)
    }

    /// Rewrites the journal less the dropped states, the states whose bytes are not kept and
    /// what is known of paths no state is left of, in its order: read and written a piece at
    /// a time, never the whole journal in memory.
    private func compact(_ catalog: KeeperCatalog, dropping drop: Set<Int64>) throws {
        let unkept = try catalog.unkeptStateIDs()
        func left(_ id: Int64) -> Bool { !drop.contains(id) && !unkept.contains(id) }
        var remains: [String: Bool] = [:]  // asked only of the paths of lines that are not states
        try journal.rewriteLocked { emit in
            var stateID: Int64 = 0
            var placed = Set<String>()
            try journal.forEachEvent { event in
                switch event {
                case .state(var state):
                    stateID += 1
                    guard left(stateID) else { return }
                    // The first line left of each kept bytes says how they were placed.
                    if placed.insert(state.sha256).inserted, let object = try catalog.keptObject(state.sha256) {
                        state.placed = KeptState.Placement(how: object.how, modified: object.modified)
                    } else {
                        state.placed = nil
                    }
                    try emit(.state(state))
                case .notDocument(_, _, let path), .gone(_, _, let path):
                    if remains[path] == nil { remains[path] = try catalog.stateIDs(path: path).contains(where: left) }
                    if remains[path] == true { try emit(event) }
                case .dropped:
                    break
                }
            }
        }
    }

    /// Prunes when the last prune is a day old (at the end of a look), never while the
    /// mass-loss alarm is raised: then everything is kept until a person has looked.
    func pruneIfDue(now: Date) {
        guard FileKind.at(alarmFile.url.path) == .missing else { return }
        if let text = FileManager.default.contents(atPath: lastPruneFile.path), let last = Double(String(decoding: text, as: UTF8.self)),
           now.timeIntervalSince1970 - last < 86_400 { return }
        _ = try? prune(dryRun: false, now: now)
    }
}

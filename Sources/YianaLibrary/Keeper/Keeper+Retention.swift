import Foundation
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
        let catalog = Weighed(catalog())
        var report = KeeperPruneReport(dryRun: dryRun)
        let thinning = thinned(catalog, retention, now: now)
        var drop = thinning.drop
        let protected = thinning.protected, pinned = thinning.pinned
        // What is referenced after thinning, and what that costs.
        func referenced(_ dropped: Set<Int>) -> Set<String> {
            Set(catalog.states.indices.filter { !dropped.contains($0) && catalog.isKept(catalog.states[$0]) }.map { catalog.states[$0].sha256 })
        }
        var costs: [String: UInt64] = [:]
        for sha256 in referenced([]) { costs[sha256] = cost(of: sha256) }
        report.costBefore = costs.values.reduce(0, +)
        // Free space unknown: no budget is enforced (never drop what cannot be weighed).
        report.budget = retention.budget ?? (try? Sys.freeBytes(place.folder.path)).map { ($0 + report.costBefore) / 10 } ?? .max
        var users: [String: Int] = [:]
        for index in catalog.states.indices where !drop.contains(index) && catalog.isKept(catalog.states[index]) {
            users[catalog.states[index].sha256, default: 0] += 1
        }
        var cost = users.keys.reduce(0) { $0 + (costs[$1] ?? 0) }
        if cost > report.budget {
            // Oldest first: everything not pinned or protected, then the protected last states.
            let byAge = catalog.states.indices.filter { catalog.isKept(catalog.states[$0]) && !drop.contains($0) && !pinned.contains($0) }
                .sorted { (protected.contains($0) ? 1 : 0, catalog.states[$0].seenAt) < (protected.contains($1) ? 1 : 0, catalog.states[$1].seenAt) }
            for index in byAge where cost > report.budget {
                drop.insert(index)
                if protected.contains(index) { report.forcedOut.append(catalog.states[index].path) }
                let sha256 = catalog.states[index].sha256
                users[sha256, default: 1] -= 1
                // Bytes another state still needs stay, and cost as before.
                if users[sha256] == 0 { cost -= costs[sha256] ?? 0 }
            }
        }
        let live = referenced(drop)
        report.costAfter = live.reduce(0) { $0 + (costs[$1] ?? 0) }
        report.dropped = drop.sorted().map { record(catalog.states[$0]) }
        report.kept = catalog.states.indices.filter { catalog.isKept(catalog.states[$0]) }.count - drop.count
        let doomed = Set(catalog.objects.keys).subtracting(live)
        report.deletedObjects = doomed.count
        report.freedBytes = doomed.reduce(0) { $0 + (costs[$1] ?? self.cost(of: $1)) }
        guard !dryRun else { return report }
        if !drop.isEmpty || !doomed.isEmpty {
            // The journal first (no line names bytes about to go), then the bytes.
            try journal.rewriteLocked(try compacted(catalog, dropping: drop, live: live))
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
    /// current bytes), by index into the catalog's states.
    private func thinned(_ catalog: Weighed, _ retention: KeeperRetention, now: Date)
        -> (drop: Set<Int>, protected: Set<Int>, pinned: Set<Int>) {
        var byPath: [String: [Int]] = [:]
        for (index, state) in catalog.states.enumerated() where catalog.isKept(state) {
            byPath[state.path, default: []].append(index)
        }
        var drop = Set<Int>(), protected = Set<Int>(), pinned = Set<Int>()
        for (path, indexes) in byPath {
            // Asked path by path: a prune never holds every path's record at once.
            let record = catalog.catalog.record(of: path)
            let newestFirst = indexes.sorted { catalog.states[$0].seenAt > catalog.states[$1].seenAt }
            var lostAt: Date?
            switch record?.state {
            case .document(let current)?:
                // Every line of the current bytes at this path is the current state.
                for index in indexes where catalog.states[index].sha256 == current.sha256 { pinned.insert(index) }
            case .gone(let at, _)? where !(record?.lastDocument.map(catalog.catalog.held) ?? false):
                lostAt = at
            case .notDocument(_, let at)?:
                lostAt = at
            default:
                break
            }
            if let lostAt, now.timeIntervalSince(lostAt) >= Double(retention.deletedDays) * 86_400 {
                drop.formUnion(newestFirst)  // lost longer ago than kept for
                continue
            }
            if lostAt != nil, let last = newestFirst.first { protected.insert(last) }
            var buckets = Set<String>()
            for index in newestFirst where !pinned.contains(index) && !protected.contains(index) {
                let age = max(0, now.timeIntervalSince(catalog.states[index].seenAt))
                guard let rule = KeeperRetention.thinning.first(where: { age < $0.upTo }), rule.step > 0 else { continue }
                // One per step: the newest state of each step-long bucket of age.
                if !buckets.insert("\(rule.step)/\(Int(age / rule.step))").inserted { drop.insert(index) }
            }
        }
        return (drop, protected, pinned)
    }

    /// The journal less the dropped states, the objects no state needs and what is known of
    /// paths no state is left of, in its order.
    private func compacted(_ catalog: Weighed, dropping drop: Set<Int>, live: Set<String>) throws -> [KeeperEvent] {
        var stateIndex = 0
        var events: [KeeperEvent] = []
        var remainingPaths = Set<String>()
        for (index, state) in catalog.states.enumerated() where !drop.contains(index) && live.contains(state.sha256) {
            remainingPaths.insert(state.path)
        }
        var placed = Set<String>()
        try journal.forEachEvent { event in
            switch event {
            case .state(var state):
                defer { stateIndex += 1 }
                guard !drop.contains(stateIndex), live.contains(state.sha256) else { return }
                // The first line left of each kept bytes says how they were placed.
                if placed.insert(state.sha256).inserted, let object = catalog.objects[state.sha256] {
                    state.placed = KeptState.Placement(how: object.how, modified: object.modified)
                } else {
                    state.placed = nil
                }
                events.append(.state(state))
            case .notDocument(_, _, let path), .gone(_, _, let path):
                if remainingPaths.contains(path) { events.append(event) }
            case .dropped:
                break
            }
        }
        return events
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

/// The catalog as a prune weighs it, in memory once a day: every state (by its place in the
/// journal's order), the objects kept, and the catalog for what each path is.
private struct Weighed {
    let catalog: KeeperCatalog
    let states: [KeptState]
    let objects: [String: KeeperCatalog.Object]

    init(_ catalog: KeeperCatalog) {
        self.catalog = catalog
        states = catalog.allStates()
        objects = catalog.allObjects()
    }

    func isKept(_ state: KeptState) -> Bool { objects[state.sha256] != nil }
}

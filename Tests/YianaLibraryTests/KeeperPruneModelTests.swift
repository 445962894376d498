import Foundation
import Testing
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// A prune asks the catalog path by path and state by state (a year's history is never in
/// memory); what it drops is what the same rules say over every state and object held in
/// memory (the model below, the prune as it was first written), for random histories and
/// budgets from none to everything.
@Suite("keeper: a prune against the rules over the whole history in memory")
struct KeeperPruneModelTests {
    /// What a prune report says, to compare.
    struct Outcome: Equatable {
        var dropped: [String] = []
        var kept = 0
        var deletedObjects = 0
        var freedBytes: UInt64 = 0
        var costBefore: UInt64 = 0
        var costAfter: UInt64 = 0
        var forcedOut: [String] = []
    }

    static func outcome(_ report: KeeperPruneReport) -> Outcome {
        Outcome(dropped: report.dropped.map { "\($0.originalPath) \($0.sha256.prefix(4)) \($0.keptAt.timeIntervalSince1970)" }, kept: report.kept,
                deletedObjects: report.deletedObjects, freedBytes: report.freedBytes, costBefore: report.costBefore,
                costAfter: report.costAfter, forcedOut: report.forcedOut)
    }

    /// The rules over everything in memory.
    static func model(_ keeper: Keeper, _ retention: KeeperRetention, now: Date) -> Outcome {
        let catalog = keeper.catalog()
        let states = catalog.allStates(), objects = catalog.allObjects()
        func isKept(_ index: Int) -> Bool { objects[states[index].sha256] != nil }
        var byPath: [String: [Int]] = [:]
        for index in states.indices where isKept(index) { byPath[states[index].path, default: []].append(index) }
        var drop = Set<Int>(), protected = Set<Int>(), pinned = Set<Int>()
        for (path, indexes) in byPath {
            let record = catalog.record(of: path)
            let newestFirst = indexes.sorted { states[$0].seenAt > states[$1].seenAt }
            var lostAt: Date?
            switch record?.state {
            case .document(let current)?: pinned.formUnion(indexes.filter { states[$0].sha256 == current.sha256 })
            case .gone(let at, _)? where !(record?.lastDocument.map(catalog.held) ?? false): lostAt = at
            case .notDocument(_, let at)?: lostAt = at
            default: break
            }
            if let lostAt, now.timeIntervalSince(lostAt) >= Double(retention.deletedDays) * 86_400 {
                drop.formUnion(newestFirst)
                continue
            }
            if lostAt != nil, let last = newestFirst.first { protected.insert(last) }
            var buckets = Set<String>()
            for index in newestFirst where !pinned.contains(index) && !protected.contains(index) {
                let age = max(0, now.timeIntervalSince(states[index].seenAt))
                guard let rule = KeeperRetention.thinning.first(where: { age < $0.upTo }), rule.step > 0 else { continue }
                if !buckets.insert("\(rule.step)/\(Int(age / rule.step))").inserted { drop.insert(index) }
            }
        }
        func live(_ dropped: Set<Int>) -> Set<String> { Set(states.indices.filter { !dropped.contains($0) && isKept($0) }.map { states[$0].sha256 }) }
        var costs: [String: UInt64] = [:]
        for sha256 in live([]) { costs[sha256] = keeper.cost(of: sha256) }
        var outcome = Outcome()
        outcome.costBefore = costs.values.reduce(0, +)
        var users: [String: Int] = [:]
        for index in states.indices where !drop.contains(index) && isKept(index) { users[states[index].sha256, default: 0] += 1 }
        var cost = users.keys.reduce(0) { $0 + costs[$1]! }
        let budget = retention.budget!
        if cost > budget {
            let byAge = states.indices.filter { isKept($0) && !drop.contains($0) && !pinned.contains($0) }
                .sorted { (protected.contains($0) ? 1 : 0, states[$0].seenAt) < (protected.contains($1) ? 1 : 0, states[$1].seenAt) }
            for index in byAge where cost > budget {
                drop.insert(index)
                if protected.contains(index) { outcome.forcedOut.append(states[index].path) }
                users[states[index].sha256, default: 1] -= 1
                if users[states[index].sha256] == 0 { cost -= costs[states[index].sha256] ?? 0 }
            }
        }
        let after = live(drop)
        outcome.costAfter = after.reduce(0) { $0 + costs[$1]! }
        outcome.dropped = drop.sorted().map { "\(states[$0].path) \(states[$0].sha256.prefix(4)) \(states[$0].seenAt.timeIntervalSince1970)" }
        outcome.kept = states.indices.filter(isKept).count - drop.count
        let doomed = Set(objects.keys).subtracting(after)
        outcome.deletedObjects = doomed.count
        outcome.freedBytes = doomed.reduce(0) { $0 + (costs[$1] ?? keeper.cost(of: $1)) }
        return outcome
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6])
    func dropsWhatTheRulesSay(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let library = try TemporaryFolder(), store = try TemporaryFolder(), elsewhere = try TemporaryFolder()
        let keeper = Keeper(library: try Library(root: library.url), place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test"))
        try keeper.prepare()
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let paths = (0..<10).map { "Folder \($0 % 2)/Doc \($0).yianazip" }
        let ids = (0..<7).map { "ID-\($0)" }
        let contents = (0..<14).map { String(format: "%02x", $0) + String(repeating: "c", count: 62) }
        // Each content's bytes in the store: some also linked elsewhere (a document still
        // there: they cost nothing), some not (they cost their size).
        for (index, sha256) in contents.enumerated() where index % 7 != 6 {
            let object = keeper.objectURL(sha256)
            try Data(repeating: UInt8(index), count: 100 * (index + 1)).write(to: object)
            if index % 3 == 0 { try FileManager.default.linkItem(at: object, to: elsewhere.url.appendingPathComponent(sha256)) }
        }
        var events: [KeeperEvent] = []
        for step in 0..<160 {
            // Over 90 days, often several at the same instant.
            let seen = now.addingTimeInterval(-Double(Int.random(in: 0..<30, using: &random) * 3) * 86_400 - Double(Int.random(in: 0..<2, using: &random)) * 3_600)
            let path = paths.randomElement(using: &random)!
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<6:
                let sha256 = contents.randomElement(using: &random)!
                let placed = FileKind.at(keeper.objectURL(sha256).path) == .regular ? KeptState.Placement(how: .copy, modified: Int64(step)) : nil
                events.append(.state(KeptState(sha256: sha256, size: 100, stamp: FileStamp(size: 100, modified: Int64(step), inode: Int64(step)), path: path,
                                               seenAt: seen, documentID: Int.random(in: 0..<8, using: &random) == 0 ? nil : ids.randomElement(using: &random),
                                               title: nil, reason: Keeper.seenHere, placed: placed)))
            case 6..<8: events.append(.gone(at: seen, lastSeen: seen.addingTimeInterval(-60), path: path))
            case 8: events.append(.notDocument(at: seen, stamp: FileStamp(size: 3, modified: Int64(step), inode: 9), path: path))
            default: events.append(.dropped(at: seen, sha256: contents.randomElement(using: &random)!, why: KeeperCatalog.changedInPlace))
            }
        }
        try keeper.journal.append(events)
        let costly = Self.model(keeper, KeeperRetention(budget: 1 << 40), now: now).costBefore
        for budget in [1 << 40, costly / 2, costly / 5, 1] {
            for days in [30, 10] {
                let retention = KeeperRetention(deletedDays: days, budget: budget)
                let pruned = try keeper.prune(retention, dryRun: true, now: now)
                #expect(Self.outcome(pruned) == Self.model(keeper, retention, now: now), "seed \(seed), budget \(budget), \(days) days")
            }
        }
        // And a real prune leaves the catalog what its rewritten journal says.
        let expected = Self.model(keeper, KeeperRetention(budget: costly / 2), now: now)
        let pruned = try keeper.prune(KeeperRetention(budget: costly / 2), dryRun: false, now: now)
        #expect(Self.outcome(pruned) == expected)
        #expect(keeper.catalogProblems().isEmpty)
        #expect(try keeper.catalog().keptStateCount() == expected.kept)
        #expect(keeper.integrityProblems().isEmpty)
    }
}

import Foundation
import Testing
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// What the catalog answers (what each path is, bytes and ids held now, paths gone, moves,
/// kept states and documents, the documents lost) is what replaying the whole history in
/// memory gives, both caught up event batch by event batch and rebuilt whole.
@Suite("keeper: the catalog's answers against the history replayed")
struct KeeperCatalogDerivedTests {
    struct Answers: Equatable {
        var held: [String: Bool] = [:]
        var moved: Set<String> = []
        var absent: Set<String> = []
        var holding = 0
        var holdingAnything = 0
        var keptStates = 0
        var keptDocuments = 0
        var lost = 0
        var lastDocument: [String: String] = [:]
    }

    enum Path { case document(KeptState), notDocument(FileStamp, Date), gone(Date, Date) }

    /// The history replayed in memory, as the keeper's catalog was once kept.
    static func replayed(_ events: [KeeperEvent]) -> Answers {
        var paths: [String: Path] = [:], lastDocument: [String: KeptState] = [:], objects = Set<String>(), states: [KeptState] = []
        for event in events {
            switch event {
            case .state(let state):
                if state.placed != nil { objects.insert(state.sha256) }
                states.append(state)
                guard state.isDocument else { continue }
                paths[state.path] = .document(state)
                lastDocument[state.path] = state
            case .notDocument(let at, let stamp, let path):
                if case .notDocument(stamp, let since)? = paths[path] { paths[path] = .notDocument(stamp, since) } else { paths[path] = .notDocument(stamp, at) }
            case .gone(let at, let lastSeen, let path):
                if case .gone? = paths[path] { continue }
                paths[path] = .gone(at, lastSeen)
            case .dropped(_, let sha, _):
                objects.remove(sha)
            }
        }
        var hashes = Set<String>(), ids = Set<String>(), answers = Answers()
        for case .document(let state) in paths.values {
            hashes.insert(state.sha256)
            if let id = state.documentID { ids.insert(id) }
            answers.holding += 1
        }
        answers.holdingAnything = paths.values.count { if case .gone = $0 { false } else { true } }
        var firstSeen: [String: [String: Date]] = [:]
        for state in states {
            guard let id = state.documentID else { continue }
            firstSeen[id, default: [:]][state.path] = min(firstSeen[id]?[state.path] ?? .distantFuture, state.seenAt)
        }
        for (path, state) in paths {
            let last = lastDocument[path]
            if let last {
                answers.held[path] = hashes.contains(last.sha256) || last.documentID.map(ids.contains) == true
                answers.lastDocument[path] = last.sha256
            }
            if case .document = state { continue }
            answers.absent.insert(path)
            var moved = false
            if case .gone(_, let lastSeen) = state, let id = last?.documentID,
               firstSeen[id]?.contains(where: { $0.key != path && $0.value >= lastSeen }) == true {
                answers.moved.insert(path)
                moved = true
            }
            guard let last, objects.contains(last.sha256) else { continue }
            if case .notDocument = state { answers.lost += 1 } else if !moved, answers.held[path] == false { answers.lost += 1 }
        }
        let kept = states.filter { objects.contains($0.sha256) && $0.isDocument }
        answers.keptStates = kept.count
        answers.keptDocuments = Set(kept.compactMap(\.documentID)).count
        return answers
    }

    static func answers(_ catalog: KeeperCatalog) -> Answers {
        var answers = Answers()
        let paths = Set(catalog.holdingPaths()).union(catalog.absent().map(\.path))
        for (path, record) in catalog.records(of: paths) {
            if let last = record.lastDocument {
                answers.held[path] = catalog.heldElsewhere(lastStateOf: path)
                answers.lastDocument[path] = last.sha256
            }
            if case .document = record.state { continue }
            answers.absent.insert(path)
            if catalog.movedAway(path) { answers.moved.insert(path) }
        }
        answers.holding = catalog.holding
        answers.holdingAnything = catalog.holdingCount
        (answers.keptStates, answers.keptDocuments, answers.lost) = catalog.counts()
        return answers
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func answersAsTheHistoryReplayed(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let folder = try TemporaryFolder()
        let journal = KeeperJournal(url: folder.url.appendingPathComponent("journal.tsv"))
        let paths = (0..<12).map { "Folder \($0 % 3)/Doc \($0).yianazip" }
        let ids = (0..<8).map { "ID-\($0)" }
        let contents = (0..<10).map { String(repeating: String($0), count: 64) }
        var events: [KeeperEvent] = [], batch: [KeeperEvent] = []
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        let incremental = KeeperCatalog(journal: journal)
        for step in 0..<400 {
            clock = clock.addingTimeInterval(Double(Int.random(in: 1...600, using: &random)))
            let path = paths.randomElement(using: &random)!
            let sha = contents.randomElement(using: &random)!
            let event: KeeperEvent
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let placed = Bool.random(using: &random) ? KeptState.Placement(how: .link, modified: Int64(step)) : nil
                event = .state(KeptState(sha256: sha, size: 10, stamp: FileStamp(size: 10, modified: Int64(step), inode: Int64(step)), path: path,
                                         seenAt: clock, documentID: Int.random(in: 0..<10, using: &random) == 0 ? nil : ids.randomElement(using: &random),
                                         title: nil, reason: Keeper.seenHere, placed: placed))
            case 5..<7:
                event = .gone(at: clock, lastSeen: clock.addingTimeInterval(-30), path: path)
            case 7..<9:
                event = .notDocument(at: clock, stamp: FileStamp(size: 3, modified: Int64(step), inode: 9), path: path)
            default:
                event = .dropped(at: clock, sha256: sha, why: KeeperCatalog.changedInPlace)
            }
            events.append(event)
            batch.append(event)
            if step % 37 == 0 {
                try journal.append(batch)
                batch = []
                try incremental.refresh()
                #expect(Self.answers(incremental) == Self.replayed(events), "seed \(seed), step \(step)")
            }
        }
        try journal.append(batch)
        try incremental.refresh()
        #expect(incremental.wholeReads == 1)
        #expect(Self.answers(incremental) == Self.replayed(events))
        let whole = KeeperCatalog(journal: journal, inMemory: true)
        try whole.refresh()
        #expect(Self.answers(whole) == Self.replayed(events))
        #expect(KeeperCatalogTests.dump(whole) == KeeperCatalogTests.dump(incremental))
    }
}

import Foundation
import Testing
import YianaSystem
@testable import YianaLibrary

/// What the catalog keeps up event by event (bytes and ids held now, paths gone, where ids
/// were first seen, kept states) is what counting from the whole history gives.
@Suite("keeper: the catalog's counts kept up event by event")
struct KeeperCatalogDerivedTests {
    /// Counted from the whole catalog, as the keeper did before it kept them up.
    struct Counted: Equatable {
        var held: [String: Bool] = [:]
        var moved: Set<String> = []
        var absent: Set<String> = []
        var holding = 0
        var keptStates = 0
        var keptDocuments = 0
    }

    func counted(_ catalog: KeeperCatalog) -> Counted {
        var hashes = Set<String>(), ids = Set<String>(), result = Counted()
        for (_, state) in catalog.paths {
            guard case .document(let index) = state else { continue }
            hashes.insert(catalog.states[index].sha256)
            if let id = catalog.states[index].documentID { ids.insert(id) }
            result.holding += 1
        }
        var firstSeen: [String: [String: Date]] = [:]
        for state in catalog.states where state.isDocument {
            guard let id = state.documentID else { continue }
            firstSeen[id, default: [:]][state.path] = min(firstSeen[id]?[state.path] ?? .distantFuture, state.seenAt)
        }
        for (path, state) in catalog.paths {
            if let last = catalog.lastDocumentState(of: path) {
                result.held[path] = hashes.contains(last.sha256) || last.documentID.map(ids.contains) == true
            }
            if case .document = state { continue }
            result.absent.insert(path)
            if case .gone(_, let lastSeen) = state, let id = catalog.lastDocumentState(of: path)?.documentID,
               firstSeen[id]?.contains(where: { $0.key != path && $0.value >= lastSeen }) == true {
                result.moved.insert(path)
            }
        }
        let kept = catalog.states.filter { catalog.isKept($0) && $0.isDocument }
        result.keptStates = kept.count
        result.keptDocuments = Set(kept.map { $0.documentID ?? $0.path }).count
        return result
    }

    func derived(_ catalog: KeeperCatalog) -> Counted {
        var result = Counted()
        for path in catalog.paths.keys where catalog.lastDocumentState(of: path) != nil {
            result.held[path] = catalog.heldElsewhere(lastStateOf: path)
        }
        result.moved = catalog.movedAway()
        result.absent = catalog.derived.absent
        result.holding = catalog.holding
        result.keptStates = catalog.derived.keptStates
        result.keptDocuments = catalog.derived.keptDocuments.count
        return result
    }

    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func keptUpAsCountedFromTheWholeHistory(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let paths = (0..<12).map { "Folder \($0 % 3)/Doc \($0).yianazip" }
        let ids = (0..<8).map { "ID-\($0)" }
        let contents = (0..<10).map { "sha-\($0)" }
        var events: [KeeperEvent] = []
        var clock = Date(timeIntervalSince1970: 1_800_000_000)
        var incremental = KeeperCatalog([])
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
            incremental.apply(event)
            if step % 37 == 0 {
                incremental.settle()
                #expect(derived(incremental) == counted(incremental), "seed \(seed), step \(step)")
            }
        }
        incremental.settle()
        let replayed = KeeperCatalog(events)
        #expect(derived(incremental) == counted(replayed))
        #expect(derived(replayed) == counted(replayed))
        #expect(incremental.derived == replayed.derived)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// Every state the keeper offers hashes to its name; a listing in a fresh process reads again
/// only the bytes of a file changed since it was last found so, not every state it lists
/// (`versions list --deleted` after a year of history: issue 57).
@Suite("keeper: the states listed checked once, not by every process")
struct KeeperVerifiedTests {
    @Test func aFreshProcessReadsOnlyTheStatesChangedSinceTheyWereChecked() async throws {
        let folder = try TemporaryFolder(), store = try TemporaryFolder()
        let root = folder.url
        let place = KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test")
        let keeper = Keeper(library: try Library(root: root), place: place)
        // Two documents, each seen in two states, then deleted.
        for name in ["A.yianazip", "B.yianazip"] {
            let url = root.appendingPathComponent(name)
            for text in ["first", "second"] {
                try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: UUID(), title: name, pageCount: 1), pdf: .data(simplePDF([text])))
                _ = await keeper.lookAtLibrary()
            }
            try FileManager.default.removeItem(at: url)
        }
        // Later than the racy window: the objects' files settled before they are checked.
        let later = Date().addingTimeInterval(10)
        func listing() async -> (states: Set<String>, hashed: Int) {
            VerifiedObjects.shared.removeAll()  // a process started afresh
            let catalog = keeper.catalog(), before = catalog.hashed.load(ordering: .relaxed)
            let lost = await Keeper(library: try! Library(root: root), place: place).lostNow(now: later)
            return (Set(lost.flatMap { $0.versions.map(\.sha256) }), catalog.hashed.load(ordering: .relaxed) - before)
        }
        let first = await listing()
        #expect(first.states.count == 4 && first.hashed == 4)
        let second = await listing()
        #expect(second.states == first.states && second.hashed == 0)
        // One state's bytes changed in place: that file alone read again, and no longer offered.
        let changed = try #require(first.states.sorted().first)
        let handle = try #require(FileHandle(forWritingAtPath: keeper.objectURL(changed).path))
        try handle.write(contentsOf: Data("rewritten".utf8))
        try handle.close()
        let third = await listing()
        #expect(third.states == first.states.subtracting([changed]) && third.hashed == 1)
        #expect(await listing().hashed == 0)
    }
}

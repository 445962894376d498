import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// A watcher's look is told what changed (its walk, kept between passes, says which documents
/// differ): it records what a look at the whole library would, and nothing is left for one.
@Suite("keeper: a look at what changed")
struct KeeperPartialLookTests {
    func document(_ root: URL, _ name: String, title: String) throws {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(title: title, pageCount: 1), pdf: .data(simplePDF([title])))
    }

    /// Twelve documents in three folders, and a keeper that links, in `store`.
    func twelveDocuments(_ folder: TemporaryFolder, _ store: TemporaryFolder) throws -> (URL, Library, Keeper) {
        for index in 0..<12 { try document(folder.url, "Folder \(index % 3)/Doc \(index).yianazip", title: "Doc \(index)") }
        let library = try Library(root: folder.url)
        return (folder.url, library, Keeper(library: library, place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .link, reason: "test")))
    }

    /// Doc 0 deleted, Doc 1 moved, Doc 2 written over with bytes that are not a document, Doc
    /// `changing` changed, and a new document.
    func fiveChanges(_ root: URL, changing: Int) throws {
        try FileManager.default.removeItem(at: root.appendingPathComponent("Folder 0/Doc 0.yianazip"))
        try FileManager.default.moveItem(at: root.appendingPathComponent("Folder 1/Doc 1.yianazip"), to: root.appendingPathComponent("Folder 2/Moved.yianazip"))
        try Data("not a zip".utf8).write(to: root.appendingPathComponent("Folder 2/Doc 2.yianazip.new"))
        _ = rename(root.appendingPathComponent("Folder 2/Doc 2.yianazip.new").path, root.appendingPathComponent("Folder 2/Doc 2.yianazip").path)
        try document(root, "Folder 0/Doc \(changing).yianazip", title: "Doc \(changing), second version")
        try document(root, "Folder 1/New.yianazip", title: "New")
    }

    @Test func recordsWhatAWholeLookWouldAndLeavesNothingForOne() async throws {
        let (folder, store) = (try TemporaryFolder(), try TemporaryFolder())
        let (root, library, keeper) = try twelveDocuments(folder, store)
        let cache = LibraryScanCache(library: library)
        func look(_ changed: [String]?) async throws -> KeeperReport {
            let scan = try cache.scan(changed: changed.map { Set($0.map { root.appendingPathComponent($0).path }) })
            return await keeper.look(scan, arrival: Arrival(scan: scan, window: 0))
        }
        #expect(try await look(nil).kept == 12)

        // Deleted, moved, written over with bytes that are not a document, changed, and new:
        // each named as inotify would name it.
        try fiveChanges(root, changing: 3)
        let report = try await look(["Folder 0/Doc 0.yianazip", "Folder 1/Doc 1.yianazip", "Folder 2/Moved.yianazip", "Folder 2/Doc 2.yianazip",
                                     "Folder 2/Doc 2.yianazip.new", "Folder 0/Doc 3.yianazip", "Folder 1/New.yianazip"])
        #expect(report.gone == ["Folder 0/Doc 0.yianazip"])  // the moved one is not lost
        #expect(report.notDocuments == ["Folder 2/Doc 2.yianazip"])
        #expect(report.kept == 3)  // the moved one, the changed one and the new one
        #expect(Set(keeper.lost().map(\.path)) == ["Folder 0/Doc 0.yianazip", "Folder 2/Doc 2.yianazip"])
        #expect(keeper.summary().lost == 2 && keeper.summary().states == 15)

        // Nothing changed: no journal read, nothing written.
        let size = FileStamp(path: keeper.journal.url.path)?.size
        #expect(try await look([]).kept == 0)
        #expect(FileStamp(path: keeper.journal.url.path)?.size == size)

        // A look at the whole library finds nothing the partial looks left out.
        let whole = try await look(nil)
        #expect(whole.kept == 0 && whole.gone.isEmpty && whole.notDocuments.isEmpty)
        #expect(FileStamp(path: keeper.journal.url.path)?.size == size)
    }

    /// A whole look after another (`yiana index` run again) asks the catalog only about what
    /// the last one did not record as it is now, and counts rather than lists what is held:
    /// it still finds every change, and a document a command added since and deleted again.
    @Test func aWholeLookAfterAnotherFindsEveryChangeFromTheSnapshot() async throws {
        let (folder, store) = (try TemporaryFolder(), try TemporaryFolder())
        let (root, library, keeper) = try twelveDocuments(folder, store)
        func look() async throws -> KeeperReport {
            let scan = try LibraryScanner.scan(library)
            return await keeper.look(scan, arrival: Arrival(scan: scan, window: 0))
        }
        #expect(try await look().kept == 12)

        // Only one changed: nothing gone, the count of what is held agrees; the snapshot's
        // record of it written in place (the same file), and then matching the library whole.
        let snapshot = keeper.snapshot.url.path, first = FileStamp(path: snapshot)?.inode
        try document(root, "Folder 0/Doc 3.yianazip", title: "Doc 3, second version")
        let one = try await look()
        #expect(one.kept == 1 && one.gone.isEmpty && one.notDocuments.isEmpty)
        #expect(first != nil && FileStamp(path: snapshot)?.inode == first)
        let journal = FileStamp(path: keeper.journal.url.path)?.size
        #expect(try await look().kept == 0)
        #expect(FileStamp(path: keeper.journal.url.path)?.size == journal, "the patched snapshot matched: no journal read or written")

        // A document a command wrote (and the keeper observed) since that look, deleted again
        // before the next: the snapshot never saw it, the catalog holds it.
        try document(root, "Folder 1/Imported.yianazip", title: "Imported")
        await keeper.observe([root.appendingPathComponent("Folder 1/Imported.yianazip")])
        try FileManager.default.removeItem(at: root.appendingPathComponent("Folder 1/Imported.yianazip"))
        // Deleted, moved, written over with bytes that are not a document, changed, and new.
        try fiveChanges(root, changing: 6)
        let report = try await look()
        #expect(report.gone == ["Folder 0/Doc 0.yianazip", "Folder 1/Imported.yianazip"])  // the moved one is not lost
        #expect(report.notDocuments == ["Folder 2/Doc 2.yianazip"])
        #expect(report.kept == 3)  // the moved one, the changed one and the new one
        #expect(FileStamp(path: snapshot)?.inode != first, "documents came and went: the snapshot written whole")
        #expect(keeper.catalogProblems().isEmpty)
        #expect(Set(keeper.lost().map(\.path)) == ["Folder 0/Doc 0.yianazip", "Folder 1/Imported.yianazip", "Folder 2/Doc 2.yianazip"])

        // And again: nothing left for a look.
        let size = FileStamp(path: keeper.journal.url.path)?.size
        let again = try await look()
        #expect(again.kept == 0 && again.gone.isEmpty && again.notDocuments.isEmpty)
        #expect(FileStamp(path: keeper.journal.url.path)?.size == size)
    }
}

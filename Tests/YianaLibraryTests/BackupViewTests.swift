import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// The folder restic is given (issue 58): each document as it should be kept (never a damaged
/// file or a placeholder), every other kept state once, the journal; links left alone while
/// they stay the same, so that restic's next run reads nothing of them.
@Suite("keeper: the backup view")
struct BackupViewTests {
    func sha(_ path: String) throws -> String { try FileHash.sha256(of: URL(fileURLWithPath: path)) }

    /// The view's files, by path, with their SHA-256.
    func contents(_ view: BackupView) throws -> [String: String] {
        var found: [String: String] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: view.top))
        while let path = walker.nextObject() as? String {
            if FileKind.at(view.top + "/" + path) == .regular { found[path] = try sha(view.top + "/" + path) }
        }
        return found
    }

    @Test func theViewHoldsWhatShouldBeKeptEachByteOnce() async throws {
        let kept = try KeptLibrary()
        let root = kept.root, keeper = kept.keeper
        for name in ["Top.yianazip", "A/One.yianazip", "A/Two.yianazip", "B/Three.yianazip"] { try kept.document(name) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".addresses"), withIntermediateDirectories: true)
        try Data(#"{"name": "Jane"}"#.utf8).write(to: root.appendingPathComponent(".addresses/One.json"))
        let first = [("Top.yianazip", try sha(root.path + "/Top.yianazip")), ("A/One.yianazip", try sha(root.path + "/A/One.yianazip")),
                     ("A/Two.yianazip", try sha(root.path + "/A/Two.yianazip")), ("B/Three.yianazip", try sha(root.path + "/B/Three.yianazip"))]
        await keeper.lookAtLibrary()
        let view = keeper.backupView
        func refresh() async throws -> BackupView.Update {
            await keeper.lookAtLibrary()
            let contents = keeper.backupEntries(try LibraryScanner.scan(keeper.library))
            #expect(contents.unkept.isEmpty && contents.notDownloaded.isEmpty)
            return try view.update(contents.entries)
        }
        // Young: every document as it is, the address file and the manifest copied, no other state.
        #expect(try await refresh() == BackupView.Update(linked: 5, copied: 2, removed: 0, same: 0))
        var expected = Dictionary(uniqueKeysWithValues: first.map { ("library/" + $0.0, $0.1) })
        expected["library/.addresses/One.json"] = try sha(root.path + "/.addresses/One.json")
        expected["history/journal.tsv"] = try sha(keeper.journal.url.path)
        expected["history/library.tsv"] = try sha(keeper.backupManifest)
        #expect(try contents(view) == expected)
        let manifest = try String(contentsOfFile: view.top + "/history/library.tsv", encoding: .utf8)
        #expect(Set(manifest.split(separator: "\n")) == Set(first.map { "\($0.1)\t\($0.0)" }), "which state each document is")
        let oneInode = try #require(FileStamp(path: view.top + "/library/A/One.yianazip")).inode
        // Nothing changed: nothing made again.
        #expect(try await refresh() == BackupView.Update(linked: 0, copied: 0, removed: 0, same: 7))

        // A document edited, another deleted, one damaged (bytes that are not a document
        // renamed over it), one evicted (iCloud's placeholder in its place).
        try kept.document("A/Two.yianazip", text: "Two, edited")
        try FileManager.default.removeItem(at: root.appendingPathComponent("Top.yianazip"))
        let junk = root.appendingPathComponent("A/.junk")
        try Data("not a document".utf8).write(to: junk)
        try FileManager.default.removeItem(at: root.appendingPathComponent("A/One.yianazip"))
        try FileManager.default.moveItem(at: junk, to: root.appendingPathComponent("A/One.yianazip"))
        let three = root.appendingPathComponent("B/Three.yianazip")
        try Placeholder(documentName: "Three.yianazip", documentSize: 4000).stubData().write(to: Placeholder.stubURL(for: three))
        try FileManager.default.removeItem(at: three)
        let update = try await refresh()
        let now = try contents(view)
        #expect(now["library/A/Two.yianazip"] == (try sha(root.path + "/A/Two.yianazip")), "the edit")
        #expect(now["library/A/One.yianazip"] == first[1].1, "damaged: its last good state")
        #expect(now["library/B/Three.yianazip"] == first[3].1, "evicted: its last state")
        #expect(now["library/Top.yianazip"] == nil, "deleted: not in the library")
        // Every state kept, each once: the deleted document's and the edited one's before.
        #expect(Set(now.keys.filter { $0.hasPrefix("history/objects/") }) == ["history/objects/" + first[0].1, "history/objects/" + first[2].1])
        #expect(now.allSatisfy { !$0.key.hasPrefix("history/objects/") || $0.key.hasSuffix($0.value) })
        #expect(FileStamp(path: view.top + "/library/A/One.yianazip")?.inode == oneInode, "the same state: the same link")
        #expect(update.removed == 1 && update.same >= 3, "\(update)")
    }

    /// A document with a placeholder beside it (a stub left from before it was downloaded) is
    /// backed up as it is now, whichever the folder lists first; a placeholder alone is said
    /// apart, as never downloaded here.
    @Test func aDocumentBesideItsPlaceholderGoesInAsItIsNow() async throws {
        let kept = try KeptLibrary()
        let keeper = kept.keeper, root = kept.root
        let one = try kept.document("One.yianazip")
        await keeper.lookAtLibrary()
        try kept.document("One.yianazip", text: "One, edited")
        await keeper.lookAtLibrary()
        try Placeholder(documentName: "One.yianazip", documentSize: 4000).stubData().write(to: Placeholder.stubURL(for: one))
        let two = root.appendingPathComponent("Two.yianazip")
        try Placeholder(documentName: "Two.yianazip", documentSize: 4000).stubData().write(to: Placeholder.stubURL(for: two))
        let contents = keeper.backupEntries(try LibraryScanner.scan(keeper.library))
        #expect(contents.entries.first { $0.path == "library/One.yianazip" }?.source == keeper.objectPath(try sha(one.path)))
        #expect(contents.notDownloaded == ["Two.yianazip"] && contents.unkept.isEmpty)
    }

    /// A file gone between the entries and the update (an object the keeper's prune removed,
    /// a companion deleted) is left out, its name removed; the rest is made.
    @Test func aFileGoneMeanwhileIsLeftOut() throws {
        let folder = try TemporaryFolder()
        let view = BackupView(folder: folder.url.appendingPathComponent("backup"))
        try Data("kept".utf8).write(to: folder.url.appendingPathComponent("object"))
        try Data("gone".utf8).write(to: folder.url.appendingPathComponent("doomed"))
        let entries = [BackupView.Entry(path: "library/A.yianazip", source: folder.path("object"), link: true),
                       BackupView.Entry(path: "history/objects/doomed", source: folder.path("doomed"), link: true)]
        #expect(try view.update(entries) == BackupView.Update(linked: 2))
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("doomed"))
        try Data("another".utf8).write(to: folder.url.appendingPathComponent("object2"))
        let later = [BackupView.Entry(path: "library/A.yianazip", source: folder.path("object2"), link: true), entries[1],
                     BackupView.Entry(path: "library/.addresses/A.json", source: folder.path("no-such-companion"), link: false),
                     BackupView.Entry(path: "history/objects/pruned", source: folder.path("pruned"), link: true)]  // a new name, its file gone
        #expect(try view.update(later) == BackupView.Update(linked: 1, missing: 3))
        #expect(FileKind.at(view.top + "/history/objects/pruned") == .missing)
        #expect(FileKind.at(view.top + "/history/objects/doomed") == .missing)
        #expect(try String(contentsOfFile: view.top + "/library/A.yianazip", encoding: .utf8) == "another")
    }

    /// The view backed up by the real restic, then the machine lost: from the repository
    /// alone, each document as it was and every earlier state come back byte for byte; a
    /// second run with nothing changed reads nothing again.
    @Test func aSnapshotOfTheViewBringsEveryStateBack() async throws {
        let kept = try KeptLibrary(), elsewhere = try TemporaryFolder()
        let root = kept.root, keeper = kept.keeper
        for name in ["Top.yianazip", "A/One.yianazip", "A/Two.yianazip"] { try kept.document(name) }
        let top = try sha(root.path + "/Top.yianazip"), two = try sha(root.path + "/A/Two.yianazip")
        await keeper.lookAtLibrary()
        try kept.document("A/Two.yianazip", text: "Two, edited")
        try FileManager.default.removeItem(at: root.appendingPathComponent("Top.yianazip"))
        await keeper.lookAtLibrary()
        let view = keeper.backupView
        _ = try view.update(keeper.backupEntries(try LibraryScanner.scan(keeper.library)).entries)
        let restic = try Restic(repository: elsewhere.path("repo"), environment: try resticEnvironment(elsewhere, password: "a long one"))
        try restic.run(["init"])
        let first = try restic.backup(BackupView.name, in: view.folder.path, tags: ["yiana"])
        #expect(first.filesNew == 6 && !first.incomplete, "two documents, two earlier states, the journal, the manifest: \(first)")
        let again = try restic.backup(BackupView.name, in: view.folder.path, tags: ["yiana"])
        #expect(again.filesNew == 0 && again.filesChanged == 0 && again.filesUnmodified == 6 && again.bytesProcessed == first.bytesProcessed, "\(again)")
        // The machine lost: only the repository.
        try FileManager.default.removeItem(at: root)
        try restic.run(["restore", "latest", "--target", elsewhere.path("back")])
        let back = elsewhere.path("back") + "/" + BackupView.name
        #expect(try sha(back + "/library/A/One.yianazip") == (try sha(view.top + "/library/A/One.yianazip")))
        #expect(try sha(back + "/library/A/Two.yianazip") != two, "the edit")
        for old in [top, two] { #expect(try sha(back + "/history/objects/" + old) == old, "an earlier state, named by its SHA-256") }
        let journal = try String(contentsOfFile: back + "/history/journal.tsv", encoding: .utf8)
        #expect(journal.contains("Top.yianazip") && journal.contains(top), "the journal says where the deleted document was")
        #expect(try restic.run(["check"]).status == 0)
    }
}

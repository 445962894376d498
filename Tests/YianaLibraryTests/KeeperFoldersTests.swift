import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// `versions list --deleted` in a fresh process lists again only the folders whose times
/// changed since the last look, and lists what a look at the whole library would.
@Suite("keeper: a look at the folders changed since the last look")
struct KeeperFoldersTests {
    @Test func listsWhatAWholeLookWould() async throws {
        let kept = try KeptLibrary()
        let root = kept.root, place = kept.place, keeper = kept.keeper
        for name in ["Top.yianazip", "A/One.yianazip", "A/Two.yianazip", "A/Deep/Three.yianazip", "B/Four.yianazip", "B/Five.yianazip",
                     "C/Six.yianazip", "D/Seven.yianazip", "D/Eight.yianazip", "Ünïcödé/Dôc é.yianazip", "Ünïcödé/Autre.yianazip",
                     "A/Deep 2.yianazip", "A/Deeper.yianazip"] {
            try kept.document(name)
        }
        // No record of the folders yet: the whole library is looked at, and recorded.
        #expect(keeper.folderRecord.read() == nil)
        #expect(await keeper.lostNow().isEmpty)
        #expect(keeper.folderRecord.read()?.folders.keys.sorted() == ["", "A", "A/Deep", "B", "C", "D", "Ünïcödé"])
        // What a listing of a folder is compared with: the names there (SQLite counts a
        // name's start in characters; a folder below passed over, with the names that sort
        // just before and after it read), or every path below.
        let catalog = keeper.catalog()
        #expect(try catalog.holdingStamps(namedIn: "Ünïcödé").keys.sorted() == ["Autre.yianazip", "Dôc é.yianazip"])
        #expect(try catalog.holdingStamps(namedIn: "").keys.sorted() == ["Top.yianazip"])
        #expect(try catalog.holdingStamps(namedIn: "A").keys.sorted() == ["Deep 2.yianazip", "Deeper.yianazip", "One.yianazip", "Two.yianazip"])
        #expect(try catalog.holdingStamps(below: "A").keys.sorted()
            == ["A/Deep 2.yianazip", "A/Deep/Three.yianazip", "A/Deeper.yianazip", "A/One.yianazip", "A/Two.yianazip"])
        let fm = FileManager.default
        let steps: [(String, () throws -> Void, [String])] = [
            ("a document deleted in a folder below another", { try fm.removeItem(at: root.appendingPathComponent("A/Deep/Three.yianazip")) },
             ["A/Deep/Three.yianazip"]),
            ("a document renamed", { try fm.moveItem(at: root.appendingPathComponent("A/One.yianazip"), to: root.appendingPathComponent("A/Uno.yianazip")) },
             ["A/Deep/Three.yianazip"]),
            ("a document moved to another folder", {
                try fm.moveItem(at: root.appendingPathComponent("B/Four.yianazip"), to: root.appendingPathComponent("C/Four.yianazip"))
            }, ["A/Deep/Three.yianazip"]),
            ("a folder renamed", { try fm.moveItem(at: root.appendingPathComponent("C"), to: root.appendingPathComponent("See")) },
             ["A/Deep/Three.yianazip"]),
            ("a document moved into a new folder", {
                try fm.createDirectory(at: root.appendingPathComponent("New/Inner"), withIntermediateDirectories: true)
                try fm.moveItem(at: root.appendingPathComponent("B/Five.yianazip"), to: root.appendingPathComponent("New/Inner/Five.yianazip"))
            }, ["A/Deep/Three.yianazip"]),
            ("a folder deleted with its documents", { try fm.removeItem(at: root.appendingPathComponent("D")) },
             ["A/Deep/Three.yianazip", "D/Seven.yianazip", "D/Eight.yianazip"]),
            ("a document at the top deleted", { try fm.removeItem(at: root.appendingPathComponent("Top.yianazip")) },
             ["A/Deep/Three.yianazip", "D/Seven.yianazip", "D/Eight.yianazip", "Top.yianazip"]),
            ("a document deleted from the folder made new", { try fm.removeItem(at: root.appendingPathComponent("New/Inner/Five.yianazip")) },
             ["A/Deep/Three.yianazip", "D/Seven.yianazip", "D/Eight.yianazip", "Top.yianazip", "New/Inner/Five.yianazip"]),
            ("a document written again as the app writes, another deleted beside it", {
                try kept.document("Ünïcödé/Dôc é.yianazip")
                try fm.removeItem(at: root.appendingPathComponent("Ünïcödé/Autre.yianazip"))
            }, ["A/Deep/Three.yianazip", "D/Seven.yianazip", "D/Eight.yianazip", "Top.yianazip", "New/Inner/Five.yianazip", "Ünïcödé/Autre.yianazip"]),
        ]
        for (what, change, deleted) in steps {
            try change()
            // Another process: nothing of this one's is reused but the files it wrote.
            let fresh = Keeper(library: try Library(root: root), place: place)
            #expect(Set(await fresh.lostNow().map(\.path)) == Set(deleted), "\(what)")
            // The record names the folders there are now, no folder changed since it.
            let record = try #require(fresh.folderRecord.read(), "\(what)")
            let walked = try LibraryScanner.scan(fresh.library).folders
            #expect(Set(record.folders.keys) == Set(walked.keys), "\(what)")
            #expect(record.folders.allSatisfy { walked[$0.key] == $0.value }, "\(what)")
        }
        // The document written again was kept as it is now, as a second state.
        #expect(keeper.records(path: "Ünïcödé/Dôc é.yianazip", documentID: nil).count == 2)
        // And a whole look at the library agrees.
        await keeper.lookAtLibrary()
        #expect(Set(keeper.lost().map(\.path)) == Set(steps.last!.2))
    }

    /// Nothing changed since the record, and no folder's time too near it to trust: no
    /// folder is listed, and nothing is read but the folders' times.
    @Test func nothingChangedListsNothing() async throws {
        let kept = try KeptLibrary()
        let folder = kept.folder, keeper = kept.keeper
        try kept.document("A/One.yianazip")
        await keeper.lookAtLibrary()
        var record = try #require(keeper.folderRecord.read())
        let firstChange = try #require(record.folders.values.min()), lastChange = try #require(record.folders.values.max())
        // Recorded within the file system clock's reach of the folders' changes: not trusted.
        record.at = firstChange + KeeperFolders.racy(firstChange) / 2
        #expect(keeper.folderRecord.changed(in: record, root: folder.url).sorted() == ["", "A"], "changed just before: not trusted")
        record.at = lastChange + 10 * KeeperFolders.racy(lastChange)
        #expect(keeper.folderRecord.changed(in: record, root: folder.url).isEmpty)
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent("A/One.yianazip"))
        #expect(keeper.folderRecord.changed(in: record, root: folder.url) == ["A"])
    }

    /// How near a folder's time may be to the record's and be trusted goes by what the time
    /// says of its file system's clock: a part of a second, a tick of milliseconds; a whole
    /// second, a clock of seconds (FAT's of two).
    @Test func theClocksReachGoesByTheFileSystemsTimes() {
        let second: Int64 = 1_000_000_000, whole = 1_795_000_000 * second
        #expect(KeeperFolders.racy(whole) == 2 * second && KeeperFolders.racy(whole + 123_456_789) == second / 10)
        #expect(KeeperFolders.untrusted(whole, at: whole + 2 * second - 1) && !KeeperFolders.untrusted(whole, at: whole + 2 * second + 1))
        #expect(KeeperFolders.untrusted(whole + 5, at: whole + 5 + second / 10 - 1) && !KeeperFolders.untrusted(whole + 5, at: whole + 5 + second / 10 + 1))
        #expect(KeeperFolders.untrusted(-1, at: whole), "a folder marked never to match")
    }

    /// The record holds as of when the folders' times were taken, not when it was written (a
    /// look that keeps thousands of documents writes it minutes after): never later than now.
    @Test func theRecordIsAsOfTheListing() async throws {
        let kept = try KeptLibrary()
        let keeper = kept.keeper
        try kept.document("A/One.yianazip")
        // A look records when its walk began.
        let record = keeper.folderRecord, before = FileStamp.now()
        await keeper.lookAtLibrary()
        let looked = try #require(record.read())
        #expect(looked.at >= before && looked.folders.keys.sorted() == ["", "A"])
        #expect(try LibraryScanner.scan(keeper.library).listedAt.map { $0 >= looked.at } == true)
        let now = FileStamp.now()
        record.write(["": 1, "A": 2], unsettled: [], listedAt: now - 60_000_000_000)
        #expect(record.read()?.at == now - 60_000_000_000)
        record.write(["": 1, "A": 3], unsettled: ["A"], listedAt: now + 60_000_000_000)
        #expect(try #require(record.read()).at <= FileStamp.now() && record.read()?.folders["A"] == -1, "never after now")
        record.write(["": 1], unsettled: [], listedAt: nil)
        #expect(try #require(record.read()).at >= now)
    }
}

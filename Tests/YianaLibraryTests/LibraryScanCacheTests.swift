import Foundation
import Testing
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// A watcher's pass lists again only the folders inotify named; what it gets is what a walk
/// of the whole library would give.
@Suite("library: the walk kept between passes")
struct LibraryScanCacheTests {
    /// Everything a scan says, in an order that does not depend on how it was walked.
    func summary(_ scan: LibraryScan) -> [String] {
        scan.items.map { "item \($0.kind) \($0.path) \($0.documentURL.path) \(String(describing: $0.documentPath)) \(String(describing: $0.stamp))" }
            + scan.leftoverTemps.map { "temp \($0.path)" }.sorted()
            + scan.foreign.map { "foreign \($0.kind) \($0.path) \($0.documents)" }.sorted()
            + scan.shadowed.map { "shadowed \($0)" }.sorted()
            + scan.irregular.map { "irregular \($0.path) \($0.code)" }.sorted()
            + scan.unfollowedLinks.map { "link \($0)" }.sorted()
            + scan.companions.map { "companion \($0.path)" }.sorted()
            + scan.folders.map { "folder \($0.key) \($0.value)" }.sorted()
    }

    func write(_ path: String, _ text: String = "x") throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    @Test func listsOnlyWhatChangedAndFindsWhatAWalkFinds() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        // Every kind of entry a walk tells apart.
        for path in ["A.yianazip", "Work/B.yianazip", "Work/Old/C.yianazip", "Work/.D.yianazip.icloud", "Home/E.yianazip",
                     "Home/E.yianazip..path1", "Home/.F.yianazip.yiana-tmp-ABCDEFGH", ".stversions/G.yianazip", ".addresses/x.json",
                     ".letters/drafts/y.json", "Home/.syncthing.H.yianazip.tmp", "Home/Bad.yianazip/I.yianazip", "Home/notes.txt"] {
            try write(root + "/" + path)
        }
        try FileManager.default.createSymbolicLink(atPath: root + "/Home/link", withDestinationPath: root + "/Work")
        let library = try Library(root: folder.url)
        let inotify = try Inotify(skip: { path in
            path.hasPrefix(root + "/") && path.dropFirst(root.count + 1).split(separator: "/").contains { $0 == ".stversions" || $0 == ".yiana" }
        })
        inotify.watchTree(root)
        let cache = LibraryScanCache(library: library)
        #expect(summary(try cache.scan(changed: nil)) == summary(try LibraryScanner.scan(library)))
        let folders = cache.listed
        #expect(folders == 5)  // the root, Work, Work/Old, Home and Home/Bad.yianazip (the companion folders with the root)

        func changes() -> Set<String> {
            _ = inotify.wait(timeout: 0.2)
            return Set(inotify.read().events.map(\.path))
        }
        // Each step: what inotify saw is all the cache is told; the scan is a walk's.
        let steps: [(String, Int, () throws -> Void)] = [
            ("a document arrives as Syncthing writes it", 1, {
                try write(root + "/Work/Old/.syncthing.N.yianazip.tmp")
                try FileManager.default.moveItem(atPath: root + "/Work/Old/.syncthing.N.yianazip.tmp", toPath: root + "/Work/Old/N.yianazip")
            }),
            ("a document rewritten in place", 1, { try write(root + "/Home/E.yianazip", "longer") }),
            ("a document deleted", 1, { try FileManager.default.removeItem(atPath: root + "/A.yianazip") }),
            ("a folder moved in with documents", 3, {
                let outside = try TemporaryFolder()
                try write(outside.url.path + "/Trip/P.yianazip")
                try write(outside.url.path + "/Trip/Days/Q.yianazip")
                try FileManager.default.moveItem(atPath: outside.url.path + "/Trip", toPath: root + "/Work/Trip")
            }),
            ("a folder renamed", 3, { try FileManager.default.moveItem(atPath: root + "/Work/Trip", toPath: root + "/Work/Journey") }),
            ("a folder deleted", 1, { try FileManager.default.removeItem(atPath: root + "/Work/Journey") }),
            ("a companion file and a leftover temporary file", 2, {
                try write(root + "/.addresses/z.json")
                try write(root + "/Work/.B.yianazip.yiana-tmp-QWERTYUI")
            }),
        ]
        /// Each document's item, by path, as the keeper and the indexer compare them.
        func documents(_ scan: LibraryScan) -> [String: String] {
            Dictionary(scan.items.map { ($0.documentPath ?? "?", "\($0.kind) \($0.path) \(String(describing: $0.stamp))") }, uniquingKeysWith: { $1 })
        }
        var before = documents(try LibraryScanner.scan(library))
        for (what, most, change) in steps {
            try change()
            let scan = try cache.scan(changed: changes())
            let walked = try LibraryScanner.scan(library)
            #expect(summary(scan) == summary(walked), "\(what)")
            #expect(cache.listed <= most, "\(what): \(cache.listed) folders listed")
            // What it says changed is what differs between the two walks, with the items as they are now.
            let after = documents(walked)
            let differ = Set(before.keys).union(after.keys).filter { before[$0] != after[$0] }
            #expect(scan.changes?.paths == differ, "\(what)")
            #expect(Set((scan.changes?.items ?? []).map { $0.documentPath ?? "?" }) == differ.filter { after[$0] != nil }, "\(what)")
            before = after
        }
        // A document asked for again is said to have changed, though it did not.
        let again = try cache.scan(changed: [root + "/Home/E.yianazip"], recheck: ["Home/E.yianazip"])
        #expect(again.changes?.paths == ["Home/E.yianazip"])
        #expect(again.changes?.items.map(\.documentPath) == ["Home/E.yianazip"])
        // Nothing changed: nothing listed.
        let same = try cache.scan(changed: [])
        #expect(summary(same) == summary(try LibraryScanner.scan(library)))
        #expect(cache.listed == 0)
        #expect(same.changes?.paths == [])
        // Walked whole: what changed is not known.
        #expect(try cache.scan(changed: nil).changes == nil)
    }

    /// The items of a pass are the last scan's, patched: a document this device evicted the
    /// macOS 14 way (its record, not the library, says so) stays a placeholder across passes,
    /// and is a document again once the record drops it, though nothing in the library changed.
    @Test func documentsEvictedTheMacOS14WayFollowTheRecordAcrossPasses() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        try write(root + "/A.yianazip")
        try write(root + "/Work/B.yianazip")
        let library = try Library(root: folder.url)
        let record = DatalessFiles.file(library)
        defer { _ = try? record.update(initial: DatalessFiles()) { $0.sizes = [:] } }
        try record.update(initial: DatalessFiles()) { $0.sizes["Work/B.yianazip"] = 1 }
        let cache = LibraryScanCache(library: library)
        #expect(summary(try cache.scan(changed: nil)) == summary(try LibraryScanner.scan(library)))
        try write(root + "/Work/C.yianazip")
        let pass = try cache.scan(changed: [root + "/Work/C.yianazip"])
        #expect(summary(pass) == summary(try LibraryScanner.scan(library)))
        #expect(pass.items.first { $0.documentPath == "Work/B.yianazip" }?.kind == .placeholder)
        #expect(pass.changes?.paths == ["Work/C.yianazip"])
        try record.update(initial: DatalessFiles()) { $0.sizes = [:] }
        let downloaded = try cache.scan(changed: [])
        #expect(summary(downloaded) == summary(try LibraryScanner.scan(library)))
        #expect(downloaded.items.first { $0.documentPath == "Work/B.yianazip" }?.kind == .document)
    }

    /// The periodic rescan and an overflowed queue name every folder: each is listed again, the
    /// scan is a walk's, it says which documents changed though no event said so (what comes
    /// after then costs those), and an unchanged document's paths are the last scan's strings,
    /// not a second copy of every path of the library.
    @Test func everyFolderListedAgainSaysWhatChangedAndHoldsUnchangedPathsOnce() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        // Names long enough that their strings are on the heap (15 bytes and fewer are held inline).
        for path in ["A.yianazip", "Work/Bravo letter.yianazip", "Work/Old/C.yianazip", "Home/E.yianazip", "Home/Foxtrot scan.yianazip"] {
            try write(root + "/" + path)
        }
        let library = try Library(root: folder.url)
        let cache = LibraryScanCache(library: library)
        let first = try cache.scan(changed: nil)
        #expect(cache.folders == [root, root + "/Work", root + "/Work/Old", root + "/Home"])
        func storage(_ text: String?) -> UInt? {
            guard let text, text.utf8.count > 15 else { return nil }
            return text.utf8.withContiguousStorageIfAvailable { UInt(bitPattern: $0.baseAddress) } ?? nil
        }
        func strings(_ scan: LibraryScan, _ document: String) -> [UInt?] {
            let item = scan.items.first { $0.documentPath == document }
            return [storage(item?.path), storage(item?.documentPath)]
        }
        // Nothing told: a document added, one rewritten, one deleted, a folder made, one removed.
        try write(root + "/Work/N.yianazip")
        try write(root + "/Home/E.yianazip", "longer")
        try FileManager.default.removeItem(atPath: root + "/A.yianazip")
        try write(root + "/Work/New/P.yianazip")
        try FileManager.default.removeItem(atPath: root + "/Work/Old")
        let rescan = try cache.scan(changed: cache.folders)
        #expect(summary(rescan) == summary(try LibraryScanner.scan(library)))
        #expect(rescan.changes?.paths == ["Work/N.yianazip", "Home/E.yianazip", "A.yianazip", "Work/New/P.yianazip", "Work/Old/C.yianazip"])
        #expect(cache.listed == 4)  // the root, Work, Home, and Work/New walked new
        for unchanged in ["Work/Bravo letter.yianazip", "Home/Foxtrot scan.yianazip"] {
            #expect(strings(rescan, unchanged) == strings(first, unchanged) && !strings(first, unchanged).contains(nil))
        }
        // Nothing changed: nothing said, every path the last scan's.
        let again = try cache.scan(changed: cache.folders)
        #expect(again.changes?.paths == [])
        for item in rescan.items where item.path.utf8.count > 15 {
            #expect(storage(again.items.first { $0.path == item.path }?.path) == storage(item.path))
        }
    }

    /// A watcher holds an item per document: 80 bytes each in its array (and the two
    /// strings), not the URLs it once held (docs/PERFORMANCE.md, memory at 100,000 documents).
    @Test func anItemIsEightyBytes() {
        #expect(MemoryLayout<LibraryItem>.stride == 80)
    }

    @Test func aRootThatCannotBeListedThrowsAndTheNextCallWalksAgain() throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path + "/lib"
        try write(root + "/A.yianazip")
        let library = try Library(root: URL(fileURLWithPath: root))
        let cache = LibraryScanCache(library: library)
        #expect(try cache.scan(changed: nil).items.count == 1)
        try FileManager.default.moveItem(atPath: root, toPath: root + "-away")
        #expect(throws: (any Error).self) { try cache.scan(changed: [root + "/A.yianazip"]) }
        try FileManager.default.moveItem(atPath: root + "-away", toPath: root)
        try write(root + "/B.yianazip")
        // Told of nothing, after a failure: walked whole all the same.
        #expect(try cache.scan(changed: []).items.count == 2)
    }
}

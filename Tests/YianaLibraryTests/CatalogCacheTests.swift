import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaLibrary

/// The keeper's journal is read whole once per process, then only what was appended since;
/// anything but an append (a rewrite, a journal copied over it in place, a torn line) is
/// read as a whole read would read it.
@Suite("keeper: the journal read once, then what was appended")
struct CatalogCacheTests {
    func same(_ a: KeeperCatalog, _ b: KeeperCatalog) -> Bool {
        a.states == b.states && a.paths == b.paths && a.objects == b.objects && a.lastSeen == b.lastSeen
            && a.lastDocument == b.lastDocument && a.events == b.events
    }

    func add(_ folder: TemporaryFolder, _ name: String) throws -> URL {
        let url = folder.url.appendingPathComponent("\(name).yianazip")
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(title: name, pageCount: 1), pdf: .data(simplePDF([name])))
        return url
    }

    @Test func appendedLinesAreReadAloneAndAnythingElseWhole() async throws {
        let folder = try TemporaryFolder(), store = try TemporaryFolder()
        let keeper = Keeper(library: try Library(root: folder.url),
                            place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test"))
        let journal = keeper.journal, cache = CatalogCache()
        #expect(cache.catalog(of: journal).states.isEmpty)
        await keeper.observe(try (0..<5).map { try add(folder, "Letter \($0)") })
        #expect(same(cache.catalog(of: journal), KeeperCatalog(journal.read())))
        #expect(cache.wholeReads == 1)

        // Appended: only the new lines are read.
        await keeper.observe([try add(folder, "Letter 5"), try add(folder, "Letter 0")])
        #expect(same(cache.catalog(of: journal), KeeperCatalog(journal.read())))
        #expect(cache.catalog(of: journal).states.count == 7)
        #expect(cache.wholeReads == 1)

        // A line torn by a crash: not read until it is ended, and then skipped as a whole read skips it.
        let torn = try Sys.open(journal.url.path, [.writeOnly, .append])
        try Sys.writeAll(torn, Array("S\t1764300000000\tabc".utf8), path: journal.url.path)
        Sys.close(torn)
        #expect(cache.catalog(of: journal).states.count == 7)
        await keeper.observe([try add(folder, "Letter 6")])
        #expect(same(cache.catalog(of: journal), KeeperCatalog(journal.read())))
        #expect(cache.catalog(of: journal).states.count == 8)
        #expect(cache.wholeReads == 1)

        // Rewritten (a prune: another file): read whole.
        try journal.withLock { try journal.rewriteLocked(Array(journal.read().prefix(3))) }
        #expect(same(cache.catalog(of: journal), KeeperCatalog(journal.read())))
        #expect(cache.catalog(of: journal).states.count == 3)
        #expect(cache.wholeReads == 2)

        // Another journal written over this one in place (the same file, other bytes): read whole.
        let other = Array((KeeperJournal.header + "\n" + journal.read().suffix(2).map { $0.line + "\n" }.joined()).utf8)
        let fd = try Sys.open(journal.url.path, [.writeOnly, .truncate])
        try Sys.writeAll(fd, other + Array(repeating: UInt8(ascii: "\n"), count: 4096), path: journal.url.path)
        Sys.close(fd)
        #expect(same(cache.catalog(of: journal), KeeperCatalog(journal.read())))
        #expect(cache.catalog(of: journal).states.count == 2)
        #expect(cache.wholeReads == 3)

        // Copied over in place by a journal that ends alike (the same document seen again, at
        // another time: the crash harness puts a library back this way): read whole.
        await keeper.observe([try add(folder, "Letter 7")])
        _ = cache.catalog(of: journal)
        let bytes = try Data(contentsOf: journal.url)
        let lastLine = bytes.dropLast().lastIndex(of: UInt8(ascii: "\n"))! + 1
        var alike = Array(bytes)
        alike[lastLine + 2] = alike[lastLine + 2] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")  // its time, first digit
        let again = try Sys.open(journal.url.path, [.writeOnly, .truncate])
        try Sys.writeAll(again, alike, path: journal.url.path)
        Sys.close(again)
        await keeper.observe([try add(folder, "Letter 8")])
        let reads = cache.wholeReads
        #expect(same(cache.catalog(of: journal), KeeperCatalog(journal.read())))
        #expect(cache.wholeReads == reads + 1)

        // Gone: nothing.
        try FileManager.default.removeItem(at: journal.url)
        #expect(cache.catalog(of: journal).states.isEmpty)
    }
}

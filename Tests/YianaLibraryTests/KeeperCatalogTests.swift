import Foundation
import YianaSQLite
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// The keeper's catalog (SQLite beside the journal) reads only what was appended since any
/// process last read the journal; anything but an append (a rewrite, a journal copied over it
/// in place, a torn line) and any catalog that cannot be trusted (unreadable, of another
/// journal) is rebuilt from the whole journal, and always says what the whole journal says.
@Suite("keeper: the catalog beside the journal, read from where it stopped")
struct KeeperCatalogTests {
    static func dump(_ catalog: KeeperCatalog) -> KeeperCatalog.Contents { catalog.contents() }

    /// The catalog of the whole journal as it is now, built in memory.
    static func whole(_ journal: KeeperJournal) throws -> KeeperCatalog.Contents {
        let catalog = KeeperCatalog(journal: journal, inMemory: true)
        try catalog.refresh()
        #expect(catalog.wholeReads <= 1)
        return dump(catalog)
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
        let journal = keeper.journal
        #expect(keeper.catalog().allStates().isEmpty)
        await keeper.observe(try (0..<5).map { try add(folder, "Letter \($0)") })
        let catalog = keeper.catalog()
        #expect(Self.dump(catalog) == (try Self.whole(journal)))
        #expect(catalog.wholeReads == 1)
        // Private, as the journal is: the file and the write-ahead log beside it.
        for suffix in ["", "-wal"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: store.url.appendingPathComponent("k/\(KeeperCatalog.fileName)\(suffix)").path)
            #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600, "\(suffix)")
        }

        // Appended: only the new lines are read.
        await keeper.observe([try add(folder, "Letter 5"), try add(folder, "Letter 0")])
        #expect(Self.dump(keeper.catalog()) == (try Self.whole(journal)))
        #expect(keeper.catalog().allStates().count == 7)
        #expect(catalog.wholeReads == 1)

        // Another process (another connection to the same file) reads nothing whole either.
        let other = KeeperCatalog(journal: journal)
        try other.refresh()
        #expect(other.wholeReads == 0)
        #expect(Self.dump(other) == (try Self.whole(journal)))

        // A line torn by a crash: not read until it is ended, and then skipped as a whole read skips it.
        let torn = try Sys.open(journal.url.path, [.writeOnly, .append])
        try Sys.writeAll(torn, Array("S\t1764300000000\tabc".utf8), path: journal.url.path)
        Sys.close(torn)
        #expect(keeper.catalog().allStates().count == 7)
        await keeper.observe([try add(folder, "Letter 6")])
        #expect(Self.dump(keeper.catalog()) == (try Self.whole(journal)))
        #expect(keeper.catalog().allStates().count == 8)
        #expect(catalog.wholeReads == 1)

        // Rewritten (a prune: another file): read whole.
        try journal.withLock { try journal.rewriteLocked(Array(journal.read().prefix(3))) }
        #expect(Self.dump(keeper.catalog()) == (try Self.whole(journal)))
        #expect(keeper.catalog().allStates().count == 3)
        #expect(catalog.wholeReads == 2)

        // Another journal written over this one in place (the same file, other bytes): read whole.
        let replacement = Array((KeeperJournal.header + "\n" + journal.read().suffix(2).map { $0.line + "\n" }.joined()).utf8)
        let fd = try Sys.open(journal.url.path, [.writeOnly, .truncate])
        try Sys.writeAll(fd, replacement + Array(repeating: UInt8(ascii: "\n"), count: 4096), path: journal.url.path)
        Sys.close(fd)
        #expect(Self.dump(keeper.catalog()) == (try Self.whole(journal)))
        #expect(keeper.catalog().allStates().count == 2)
        #expect(catalog.wholeReads == 3)

        // Copied over in place by a journal that ends alike (the same document seen again, at
        // another time: the crash harness puts a library back this way): read whole.
        await keeper.observe([try add(folder, "Letter 7")])
        _ = keeper.catalog()
        let bytes = try Data(contentsOf: journal.url)
        let lastLine = bytes.dropLast().lastIndex(of: UInt8(ascii: "\n"))! + 1
        var alike = Array(bytes)
        alike[lastLine + 2] = alike[lastLine + 2] == UInt8(ascii: "1") ? UInt8(ascii: "2") : UInt8(ascii: "1")  // its time, first digit
        let again = try Sys.open(journal.url.path, [.writeOnly, .truncate])
        try Sys.writeAll(again, alike, path: journal.url.path)
        Sys.close(again)
        let reads = catalog.wholeReads
        await keeper.observe([try add(folder, "Letter 8")])
        #expect(Self.dump(keeper.catalog()) == (try Self.whole(journal)))
        #expect(catalog.wholeReads == reads + 1)

        // Gone: nothing.
        try FileManager.default.removeItem(at: journal.url)
        #expect(keeper.catalog().allStates().isEmpty)
        #expect(keeper.catalog().counts() == (0, 0, 0))
    }

    /// A catalog file that is not what it should be: garbage where the database was, a
    /// catalog of another format, one left behind by an earlier offset, one of another
    /// journal. Each is rebuilt or caught up, never trusted as it is.
    @Test func aCatalogThatCannotBeTrustedIsRebuilt() async throws {
        let folder = try TemporaryFolder(), store = try TemporaryFolder()
        let keeper = Keeper(library: try Library(root: folder.url),
                            place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test"))
        let journal = keeper.journal
        await keeper.observe(try (0..<4).map { try add(folder, "Scan \($0)") })
        _ = keeper.catalog()
        let file = store.url.appendingPathComponent("k/\(KeeperCatalog.fileName)")
        func fresh() throws -> KeeperCatalog {
            let catalog = KeeperCatalog(journal: journal)
            try catalog.refresh()
            return catalog
        }
        // Behind the journal (lines appended by a process that did not read them): caught up
        // from where it stopped, not read whole.
        #expect((try fresh()).allStates().count == 4)
        try journal.append(Array(journal.read().suffix(2)))
        let behind = try fresh()
        #expect(behind.wholeReads == 0)
        #expect(Self.dump(behind) == (try Self.whole(journal)))
        #expect(behind.allStates().count == 6)

        // Garbage where the database was (a torn copy, a disk error): made anew.
        for suffix in ["-wal", "-shm"] { Sys.removeIfPresent(file.path + suffix) }
        try Data(repeating: 0x5A, count: 8192).write(to: file)
        let remade = try fresh()
        #expect(remade.wholeReads == 1)
        #expect(Self.dump(remade) == (try Self.whole(journal)))

        // Of another format: made anew.
        try remade.queue.write { try $0.execute(sql: "UPDATE meta SET value = 99 WHERE key = 'format'") }
        let reformatted = try fresh()
        #expect(reformatted.wholeReads == 1)
        #expect(Self.dump(reformatted) == (try Self.whole(journal)))

        // Of another journal (this one replaced by a copy: another file, the first kept so
        // that its inode is not given to the copy): read whole.
        try FileManager.default.moveItem(at: journal.url, to: journal.url.appendingPathExtension("old"))
        try FileManager.default.copyItem(at: journal.url.appendingPathExtension("old"), to: journal.url)
        let other = try fresh()
        #expect(other.wholeReads == 1)
        #expect(Self.dump(other) == (try Self.whole(journal)))

    }

    /// A catalog broken under a process that has it open (here its table of positions dropped
    /// by another connection): that process answers from a catalog built in memory, never
    /// from the broken file, and the next process to open the file makes it anew.
    @Test func aCatalogBrokenWhileOpenIsNotAnsweredFrom() async throws {
        let folder = try TemporaryFolder(), store = try TemporaryFolder()
        let keeper = Keeper(library: try Library(root: folder.url),
                            place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test"))
        await keeper.observe(try (0..<4).map { try add(folder, "Form \($0)") })
        #expect(keeper.catalog().onDisk)
        let file = store.url.appendingPathComponent("k/\(KeeperCatalog.fileName)")
        try SQLDatabase(path: file.path).writeWithoutTransaction { try $0.execute(sql: "DROP TABLE meta") }
        await keeper.observe([try add(folder, "Form 4")])
        let answering = keeper.catalog()
        #expect(!answering.onDisk)
        #expect(Self.dump(answering) == (try Self.whole(keeper.journal)))
        #expect(answering.allStates().count == 5)
        let next = KeeperCatalog(journal: keeper.journal)
        try next.refresh()
        #expect(next.onDisk && next.wholeReads == 1)
        #expect(Self.dump(next) == (try Self.whole(keeper.journal)))
    }

    /// A look at more documents than a batch writes them a batch at a time: the same bytes in
    /// two batches are placed once, and the catalog is what the journal says.
    @Test func aLookKeepsABatchAtATime() async throws {
        let folder = try TemporaryFolder(), store = try TemporaryFolder()
        var keeper = Keeper(library: try Library(root: folder.url),
                            place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test"))
        keeper.batch = 3
        let urls = try (0..<8).map { try add(folder, "Batch \($0)") }
        try FileManager.default.copyItem(at: urls[0], to: folder.url.appendingPathComponent("Batch 9, a copy of 0.yianazip"))  // in the last batch
        let report = await keeper.lookAtLibrary()
        // A first look: the catalog was its file from the start, caught up batch by batch, not
        // one built in memory (the library's size) and then read again whole.
        #expect(keeper.catalog().onDisk)
        #expect(KeeperCatalog.madeInMemory(for: keeper.journal) == 0)
        #expect(report?.kept == 9)
        #expect(report?.newObjects == 8)
        #expect(report?.failures.isEmpty == true)
        #expect(keeper.catalogProblems().isEmpty)
        #expect(keeper.catalog().counts().states == 9)
        // The journal says what was kept, batch by batch: nine states, eight objects placed once each.
        let placed = keeper.journal.read().filter { if case .state(let state) = $0 { state.placed != nil } else { false } }
        #expect(placed.count == 8)
    }
}

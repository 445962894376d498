import Foundation
import YianaSQLite
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

/// A document's pages live at the rowids of its range, so replacing or removing them is a
/// lookup, not a scan of every page (the benchmark `Scripts/bench/scale.sh` measures it).
@Suite("index pages by rowid range")
struct IndexRowidTests {
    /// Every page row is in its document's range, and every document has its pages.
    static func pagesAreInTheirRanges(_ index: SearchIndex) throws -> Bool {
        try index.pool.read { db in
            let rows = try db.rows(sql: "SELECT rowid, document FROM page")
            let documents = Set(try db.values(Int64.self, sql: "SELECT id FROM document"))
            return rows.allSatisfy { SearchIndex.pageRowids(of: $0["document"]).contains($0["rowid"]) }
                && Set(rows.map { $0["document"] as Int64 }) == documents
        }
    }

    @Test func changedMovedAndRemovedDocumentsKeepTheirPagesInRange() async throws {
        let fixture = try await IndexFixture()
        _ = try await fixture.run()
        #expect(try Self.pagesAreInTheirRanges(fixture.index as! SearchIndex))
        let paper = fixture.folder.url.appendingPathComponent("Papers/Flow control paper.yianazip")
        _ = try DocumentEditor(library: fixture.library).apply(MetadataEdit(title: "Renamed paper"), to: paper)
        try FileManager.default.moveItem(at: fixture.folder.url.appendingPathComponent("Letters/Bank statement reminder.yianazip"),
                                         to: fixture.folder.url.appendingPathComponent("Moved.yianazip"))
        try FileManager.default.removeItem(at: fixture.folder.url.appendingPathComponent("Receipt with OCR.yianazip"))
        let report = try await fixture.run()
        #expect(report.removed == 2 && report.reused == 2, "\(report)")  // removed: the moved one's old path and the deleted one; reused: the moved one, and the edited one (same PDF)
        #expect(try Self.pagesAreInTheirRanges(fixture.index as! SearchIndex))
        let hits = try await fixture.index.search("Renamed paper")
        #expect(hits.first?.path == "Papers/Flow control paper.yianazip")
        #expect(try await fixture.index.search("hinges").isEmpty)
    }

    @Test func aFullRebuildStartsFromNothingAndCountsWhatWentAway() async throws {
        let fixture = try await IndexFixture()
        let first = try await fixture.run()
        try FileManager.default.removeItem(at: fixture.folder.url.appendingPathComponent("Locked.yianazip"))
        let full = try await fixture.run(YianaSearch.IndexOptions(jobs: 2, full: true))
        #expect(full.removed == 1 && full.extracted == first.extracted - 1)
        #expect(full.documents.map(\.path) == first.documents.map(\.path).filter { $0 != "Locked.yianazip" })
        #expect(try Self.pagesAreInTheirRanges(fixture.index as! SearchIndex))
    }

    /// An index written by the previous version (pages found by their UNINDEXED column) is
    /// carried over when it is next opened: every page kept, now in its document's range.
    @Test func aVersion1IndexIsCarriedOver() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("v1.sqlite")
        do {
            let database = try SQLDatabase(path: path)
            try SearchIndex.migrations.apply(to: database, upTo: "v1")
            try database.write { db in
                for id in 1...3 {
                    try db.execute(sql: """
                        INSERT INTO document (id, path, folder, title, tags, fileSize, fileModified, fileInode, status, pageCount, textPages)
                        VALUES (?, ?, '', ?, '[]', 1, 1, ?, 'ok', 2, 2)
                        """, arguments: [id, "d\(id).yianazip", "Doc \(id)", id])
                }
                // Interleaved, as batches of concurrent extraction write them.
                for (document, number) in [(1, 1), (2, 1), (1, 2), (3, 1), (2, 2), (3, 2)] {
                    try db.execute(sql: "INSERT INTO page (title, body, tags, folder, document, number, source) VALUES (?, ?, '', '', ?, ?, 'pdf')",
                                   arguments: ["Doc \(document)", "word\(document)x\(number)", document, number])
                }
            }
        }
        let index = try SearchIndex(path: path)
        #expect(try Self.pagesAreInTheirRanges(index))
        let numbers = try await index.pool.read { db in try db.values(Int.self, sql: "SELECT number FROM page ORDER BY rowid") }
        #expect(numbers == [1, 2, 1, 2, 1, 2])
        #expect(try await index.search("word2x2").first?.pages.first?.number == 2)
    }

    /// The page table's definition as SQLite keeps it.
    static func pageTableSQL(_ path: String) throws -> String {
        try SQLDatabase(path: path).read { db in try db.value(String.self, sql: "SELECT sql FROM sqlite_master WHERE name = 'page'") ?? "" }
    }

    /// An index of the version before the two-letter prefixes is searched as it is (same
    /// results), and the next writer gives it the prefixes, every page kept; one of version 1
    /// must be brought up first.
    @Test func aVersion2IndexIsSearchedAsItIsThenGivenItsPrefixes() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("v2.sqlite"), v1 = folder.path("v1.sqlite")
        try SearchIndex.migrations.apply(to: try SQLDatabase(path: v1), upTo: "v1")
        #expect(throws: SearchError.self) { try SearchIndex(readingAt: v1) }
        do {
            let database = try SQLDatabase(path: path)
            try SearchIndex.migrations.apply(to: database, upTo: "v2: pages by rowid range")
            try database.write { db in
                for id: Int64 in 1...3 {
                    try db.execute(sql: """
                        INSERT INTO document (id, path, folder, title, tags, fileSize, fileModified, fileInode, status, pageCount, textPages)
                        VALUES (?, ?, '', ?, '[]', 1, 1, ?, 'ok', 2, 2)
                        """, arguments: [id, "d\(id).yianazip", "Doc \(id)", id])
                    for number: Int64 in 1...2 {
                        try db.execute(sql: "INSERT INTO page (rowid, title, body, tags, folder, document, number, source) VALUES (?, ?, ?, '', '', ?, ?, 'pdf')",
                                       arguments: [SearchIndex.pageRowids(of: id).lowerBound + number - 1, "Doc \(id)",
                                                   "receipt refund repair word\(id)x\(number)", id, number])
                    }
                }
                // A long document of other words, so that the table is most of the file.
                try db.execute(sql: """
                    INSERT INTO document (id, path, folder, title, tags, fileSize, fileModified, fileInode, status, pageCount, textPages)
                    VALUES (4, 'long.yianazip', '', 'Long', '[]', 1, 1, 4, 'ok', 400, 400)
                    """)
                for number: Int64 in 1...400 {
                    let words: [String] = (Int64(0)..<80).map { (k: Int64) -> String in "filler" + String((number * 7 + k * 13) % 997) }
                    let text = words.joined(separator: " ")
                    try db.execute(sql: "INSERT INTO page (rowid, title, body, tags, folder, document, number, source) VALUES (?, 'Long', ?, '', '', 4, ?, 'pdf')",
                                   arguments: [SearchIndex.pageRowids(of: 4).lowerBound + number - 1, text, number])
                }
            }
        }
        let sqlBefore = try Self.pageTableSQL(path)
        #expect(!sqlBefore.contains("prefix"))
        func results(_ index: SearchIndex) throws -> [String] {
            try ["re*", "word2*", "wo*", "receipt", "\"refund repair\""].flatMap { query in
                try index.search(query).map { hit in "\(query) \(hit.path) \(hit.pages.map { "\($0.number) \($0.snippet)" })" }
            }
        }
        let before = try results(SearchIndex(readingAt: path))
        let expected = 5 * 3 - 2  // word2* finds one document of the three
        #expect(before.count == expected)
        let sizeBefore = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        _ = try SearchIndex(path: path)  // the writer's open migrates, and gives back the old table's space
        let sizeAfter = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(sizeAfter < sizeBefore * 3 / 2, "\(sizeBefore) -> \(sizeAfter) bytes")
        let sqlAfter = try Self.pageTableSQL(path)
        #expect(sqlAfter.contains("prefix = '2'"))
        let after = try SearchIndex(readingAt: path)
        let afterResults = try results(after)
        #expect(afterResults == before)
        #expect(try Self.pagesAreInTheirRanges(after))
    }
}

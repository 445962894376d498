import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaSearch
import YianaTestSupport

/// The library listed without a query, from the index alone, on SQLite and on PostgreSQL.
struct BrowseTests {
    @Test(arguments: IndexBackend.allCases)
    func foldersTagsAndPagesOfNewestTitleAndOldest(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let documents: [(String, String, [String], Double)] = [
            ("Letters/2026/Bank.yianazip", "Bank letter", ["bank", "2026"], 800_000_300),
            ("Letters/2026/Clinic.yianazip", "clinic referral", ["Clinic"], 800_000_200),
            ("Letters/Old.yianazip", "Old letter", ["bank"], 800_000_100),
            ("Receipts/Till.yianazip", "Till receipt", [], 800_000_400),
            ("Top.yianazip", "Zebra notes", ["BANK"], 800_000_000),
        ]
        for (path, title, tags, modified) in documents {
            let url = folder.url.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var metadata = DocumentMetadata(title: title, pageCount: 1)
            metadata.tags = tags
            metadata.modified = Date(timeIntervalSinceReferenceDate: modified)
            try CoordinatedDocument.create(at: url.path, metadata: metadata, pdf: .data(simplePDF([title])))
        }
        let index = try await backend.makeIndex(for: library, in: indexFolder)
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))

        let outline = try await index.outline()
        #expect(outline.documents == 5)
        #expect(outline.folders.map { "\($0.path) \($0.count)" } == ["Letters 3", "Letters/2026 2", "Receipts 1"])
        #expect(outline.tags.map { "\($0.name.lowercased()) \($0.count)" } == ["bank 3", "2026 1", "clinic 1"])

        let newest = try await index.browse(BrowseQuery())
        #expect(newest.total == 5 && newest.documents.map(\.title) == ["Till receipt", "Bank letter", "clinic referral", "Old letter", "Zebra notes"])
        #expect(newest.documents.first?.modified == 800_000_400 + Date.timeIntervalBetween1970AndReferenceDate && newest.documents.first?.folder == "Receipts")
        let title = try await index.browse(BrowseQuery(sort: .title, limit: 2, offset: 1))
        #expect(title.total == 5 && title.documents.map(\.title) == ["clinic referral", "Old letter"])
        let oldest = try await index.browse(BrowseQuery(sort: .oldest, limit: 1))
        #expect(oldest.documents.map(\.path) == ["Top.yianazip"])
        let letters = try await index.browse(BrowseQuery(folder: "Letters", tags: ["Bank"]))
        #expect(letters.total == 2 && letters.documents.map(\.path) == ["Letters/2026/Bank.yianazip", "Letters/Old.yianazip"])
        #expect(letters.documents.first?.tags == ["bank", "2026"])
        #expect(try await index.browse(BrowseQuery(folder: "Letters/2026", tags: ["bank", "2026"])).total == 1)
        #expect(try await index.browse(BrowseQuery(folder: "Lett")).total == 0, "a folder is not a prefix of another's name")
        #expect(try await index.browse(BrowseQuery(folder: "100%_")).total == 0)
        #expect(try await index.browse(BrowseQuery(tags: ["a\u{0}b"])).total == 0)

        // A search in the list's orders: every match sorted before the limit, filters kept.
        var search = SearchOptions()
        #expect(try await index.search("bank", options: search).first?.title == "Bank letter", "relevance: its title says it")
        search.sort = .oldest
        let oldestHits = try await index.search("bank", options: search)
        #expect(oldestHits.map(\.title) == ["Zebra notes", "Old letter", "Bank letter"])
        #expect(oldestHits.allSatisfy { !$0.pages.isEmpty }, "each with what matched")
        search.sort = .newest
        #expect(try await index.search("bank", options: search).map(\.title) == ["Bank letter", "Old letter", "Zebra notes"])
        search.sort = .title
        search.limit = 1
        search.folder = "Letters"
        #expect(try await index.search("letter", options: search).map(\.title) == ["Bank letter"])
        search.sort = .oldest
        #expect(try await index.search("letter", options: search).map(\.title) == ["Old letter"], "the oldest of all, not of the best")
        #expect(try await index.search("nothingmatches", options: search).isEmpty)
        await index.close()
    }
}

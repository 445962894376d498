import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

/// Answers sized to what a page shows (issue 47): each document with its best few pages and
/// the count of all that match; the others on demand, for one document; the same on both
/// indexes.
@Suite("search: the pages of a hit")
struct HitPagesTests {
    /// A long document where "ledger" is on pages 2 to 11 (more often on later pages, so the
    /// best pages are known), and "annual" only in its title; a document whose title alone
    /// holds "ledger"; and thirty pages without it.
    static let shared = IndexBackend.allCases.reduce(into: [IndexBackend: Task<(TemporaryFolder, TemporaryFolder, any IndexStore), Error>]()) { fixtures, backend in
        fixtures[backend] = Task {
            let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
            let pages = (1...12).map { number -> [String] in
                let mentions = (2...11).contains(number) ? Array(repeating: "the ledger entry", count: number) : []
                return ["Page \(number) of the accounts"] + mentions + ["closing words for page \(number)"]
            }
            try CoordinatedDocument.create(at: folder.path("Annual accounts.yianazip"),
                                           metadata: DocumentMetadata(title: "Annual accounts", pageCount: 12), pdf: .data(pagedPDF(pages)))
            // Pages without the word, so that it weighs something (on every page, nothing).
            try CoordinatedDocument.create(at: folder.path("Minutes.yianazip"), metadata: DocumentMetadata(title: "Minutes", pageCount: 30),
                                           pdf: .data(pagedPDF((1...30).map { ["minutes of meeting \($0)", "nothing to report"] })))
            try CoordinatedDocument.create(at: folder.path("Ledger cover.yianazip"),
                                           metadata: DocumentMetadata(title: "Ledger cover", pageCount: 1), pdf: .data(simplePDF(["a blank cover sheet"])))
            let library = try Library(root: folder.url)
            let index = try await backend.makeIndex(for: library, in: indexFolder)
            _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
            return (folder, indexFolder, index)
        }
    }

    func search(_ query: String, pages: Int = 3, document: String? = nil, on backend: IndexBackend) async throws -> [SearchHit] {
        var options = SearchOptions()
        options.pages = pages
        options.document = document
        return try await Self.shared[backend]!.value.2.search(query, options: options)
    }

    @Test(arguments: IndexBackend.allCases)
    func aHitGivesItsBestPagesAndCountsTheOthers(backend: IndexBackend) async throws {
        let hit = try #require(try await search("ledger", on: backend).first { $0.path == "Annual accounts.yianazip" })
        #expect(hit.pages.count == 3)
        #expect(hit.matchingPages == 10)
        #expect(hit.pages.map(\.score) == hit.pages.map(\.score).sorted(by: >))
        if backend == .sqlite { #expect(hit.pages.map(\.number) == [11, 10, 9]) }  // bm25; PostgreSQL's ts_rank saturates sooner
        // They are the best of all its matching pages.
        let all = try #require(try await search("ledger", pages: 50, document: "Annual accounts.yianazip", on: backend).first)
        #expect(all.pages.prefix(3).map(\.number) == hit.pages.map(\.number))
        #expect(all.pages.dropFirst(3).allSatisfy { $0.score <= hit.pages[2].score })
        #expect(hit.pages.allSatisfy { $0.snippet.contains("\(SearchHit.markOpen)ledger\(SearchHit.markClose)") })
    }

    /// "More pages": one document's matching pages, all of them, the same best ones first.
    @Test(arguments: IndexBackend.allCases)
    func oneDocumentsOtherPagesOnDemand(backend: IndexBackend) async throws {
        let first = try #require(try await search("ledger", on: backend).first { $0.path == "Annual accounts.yianazip" })
        let all = try await search("ledger", pages: 50, document: "Annual accounts.yianazip", on: backend)
        #expect(all.map(\.path) == ["Annual accounts.yianazip"])
        let hit = try #require(all.first)
        #expect(hit.matchingPages == 10 && Set(hit.pages.map(\.number)) == Set(2...11))
        #expect(Array(hit.pages.prefix(3).map(\.number)) == first.pages.map(\.number))
        #expect(try await search("ledger", document: "Nowhere.yianazip", on: backend).isEmpty)
    }

    /// A page whose own text holds one word, the title the other, is a matching page; a
    /// document only its title matches has one title-only page and no matching page.
    @Test(arguments: IndexBackend.allCases)
    func pagesMatchByTheirOwnTextNotTheTitle(backend: IndexBackend) async throws {
        let both = try #require(try await search("annual ledger", on: backend).first)
        #expect(both.path == "Annual accounts.yianazip" && both.matchingPages == 10 && both.pages.count == 3)
        let cover = try #require(try await search("ledger", on: backend).first { $0.path == "Ledger cover.yianazip" })
        #expect(cover.matchingPages == 0 && cover.pages.map(\.number) == [0])
        let titleOnly = try #require(try await search("annual", on: backend).first)
        #expect(titleOnly.matchingPages == 0 && titleOnly.pages.count == 1 && titleOnly.pages[0].number == 0)
    }

    /// The count is the same however the words are asked for: a word, a prefix, a phrase,
    /// with a word the title holds (PostgreSQL counts a document whose title holds none of the
    /// words as its pages match, and the others page by page: both must agree).
    @Test(arguments: IndexBackend.allCases)
    func theCountIsTheSameHoweverTheWordsAreAskedFor(backend: IndexBackend) async throws {
        for query in ["ledger", "ledg*", "\"ledger entry\"", "annual ledger", "annual ledg*", "accounts ledger", "ledger ent*"] {
            let hit = try #require(try await search(query, on: backend).first { $0.path == "Annual accounts.yianazip" }, "\(query)")
            #expect(hit.matchingPages == 10 && hit.pages.count == 3, "\(query): \(hit.matchingPages)")
        }
        for query in ["ledger", "ledg*", "ledger cover"] {
            let cover = try #require(try await search(query, on: backend).first { $0.path == "Ledger cover.yianazip" }, "\(query)")
            #expect(cover.matchingPages == (query == "ledger cover" ? 1 : 0), "\(query): \(cover.matchingPages)")
        }
    }

    /// The marks around matched words, as JSON (`**`), HTML and the terminal write them:
    /// every mark replaced, the text around untouched, characters of several bytes included.
    @Test func matchedWordsMarkedForEachReader() {
        let (open, close) = (SearchHit.markOpen, SearchHit.markClose)
        let snippet = "Café \(open)Müller\(close) – \(open)ledger\(close) 日本 \(open)x\(close)"
        #expect(SearchHit.marking(snippet, open: "**", close: "**") == "Café **Müller** – **ledger** 日本 **x**")
        #expect(SearchHit.marking(snippet, open: "<mark>", close: "</mark>") == "Café <mark>Müller</mark> – <mark>ledger</mark> 日本 <mark>x</mark>")
        #expect(SearchHit.marking("no marks – at all", open: "[", close: "]") == "no marks – at all")
        #expect(SearchHit.marking("", open: "[", close: "]") == "")
        let hit = SearchHit(path: "a.yianazip", title: "A", tags: [], created: nil, status: .ok, score: 1,
                            pages: [SearchHit.Page(number: 1, snippet: snippet, score: 1, source: .pdf)])
        #expect(SearchHitJSON(hit).pages[0].snippet == "Café **Müller** – **ledger** 日本 **x**", "as --json and /api/search give it")
    }
}

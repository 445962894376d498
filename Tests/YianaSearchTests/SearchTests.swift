import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

/// The same searches on both indexes (SQLite, and PostgreSQL on a server the test process
/// starts), with the same answers.
@Suite("search")
struct SearchTests {
    static let shared = IndexBackend.allCases.reduce(into: [IndexBackend: Task<IndexFixture, Error>]()) { fixtures, backend in
        fixtures[backend] = Task {
            let fixture = try await IndexFixture(backend)
            _ = try await fixture.run()
            return fixture
        }
    }

    func search(_ query: String, _ options: SearchOptions = SearchOptions(), on backend: IndexBackend) async throws -> [SearchHit] {
        try await Self.shared[backend]!.value.index.search(query, options: options)
    }

    @Test(arguments: IndexBackend.allCases, [
        ("Élodie", "Letters/Bank statement reminder.yianazip", 1),        // diacritics
        ("elodie muller", "Letters/Bank statement reminder.yianazip", 1),
        ("A-1312/B", "Letters/Bank statement reminder.yianazip", 1),      // a code
        ("\"fees are charged\"", "Letters/Bank statement reminder.yianazip", 2),  // phrase, page 2
        ("ﬁnal section", "Papers/Flow control paper.yianazip", 1),       // ligature in the query
        ("mobile devices", "Papers/Flow control paper.yianazip", 1),      // hyphenated at a line end
        ("de-vices", "Papers/Flow control paper.yianazip", 1),
        ("interrupt*", "Papers/Flow control paper.yianazip", 1),          // prefix
        ("hinges", "Receipt with OCR.yianazip", 1),                       // OCR text
        ("evicted", "Evicted report.yianazip", 0),                        // a placeholder's name
    ])
    func findsTheRightPage(backend: IndexBackend, expected: (query: String, path: String, page: Int)) async throws {
        let (query, path, page) = expected
        let hits = try await search(query, on: backend)
        let hit = try #require(hits.first { $0.path == path }, "\(query)")
        #expect(hit.pages.first?.number == page, "\(query)")
    }

    @Test(arguments: IndexBackend.allCases)
    func snippetsMarkTheMatchedWords(backend: IndexBackend) async throws {
        let hit = try #require(try await search("balance", on: backend).first)
        #expect(hit.pages[0].snippet.contains("\(SearchHit.markOpen)balance\(SearchHit.markClose)"))
    }

    /// A prefix's snippets are made apart from the index (its pages copied into a table in
    /// memory): the same pages, scores and marked words as the word itself gives.
    @Test(arguments: IndexBackend.allCases)
    func aPrefixGivesTheSnippetsOfTheWordsItMatches(backend: IndexBackend) async throws {
        let word = try await search("balance", on: backend), prefix = try await search("balanc*", on: backend)
        #expect(!prefix.isEmpty && prefix.map(\.path) == word.map(\.path))
        for (a, b) in zip(word, prefix) {
            #expect(b.pages.map(\.number) == a.pages.map(\.number) && b.pages.map(\.snippet) == a.pages.map(\.snippet), "\(b.path)")
        }
        #expect(prefix.first?.pages.first?.snippet.contains("\(SearchHit.markOpen)balance\(SearchHit.markClose)") == true)
    }

    /// A title match outranks a body that repeats the word: proof that bm25's weights land
    /// on the right columns (the UNINDEXED ones take places in its argument list too).
    @Test(arguments: IndexBackend.allCases)
    func titlesWeighMoreThanBodyText(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let documents = [("Notes", ["budget budget budget budget", "more about the budget and the plan"]),
                         ("Budget 2026", ["plan for the year"]),
                         ("Minutes", ["we talked about the budget once"])]
        for (title, lines) in documents {
            try CoordinatedDocument.create(at: folder.path("\(title).yianazip"), metadata: DocumentMetadata(title: title, pageCount: 1),
                                           pdf: .data(simplePDF(lines)))
        }
        let index = try await backend.makeIndex(for: try Library(root: folder.url), in: indexFolder)
        _ = try await Indexer(library: try Library(root: folder.url), index: index).run()
        let hits = try await index.search("budget")
        #expect(hits.map(\.title) == ["Budget 2026", "Notes", "Minutes"])
        #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >))
    }

    @Test(arguments: IndexBackend.allCases)
    func pagesAreGroupedBestFirst(backend: IndexBackend) async throws {
        let hit = try #require(try await search("statement", on: backend).first { $0.path.hasPrefix("Letters/") })
        #expect(hit.pages.map(\.score) == hit.pages.map(\.score).sorted(by: >))
    }

    @Test(arguments: IndexBackend.allCases, ["\"unterminated", "AND", "NOT balance", "balance OR", "(", "*", "a:b", "C++", "-", "NEAR(",
                      "title:flow", "\"\"", "^flow", "flow)", "10:30 +44", "e-mail", "'quote'", "SELECT * FROM page;",
                      "qJ\u{0}", "a\u{0}b", "\u{0}", "\"flow\u{0}control\"", "inv\u{0}*", "\u{1}\u{7F}\u{1B}[0m"])
    func anyTextIsAValidQuery(backend: IndexBackend, query: String) async throws {
        do {
            _ = try await search(query, on: backend)
        } catch let error as SearchError {
            #expect(error == .nothingToSearch, "\(query)")
        }
    }

    /// NUL and other control characters in the query, a tag or the folder (a URL carries any):
    /// an answer or a ``SearchError``, never a database's error. FTS5's expression parser stops
    /// at a NUL (inside a quoted phrase, a syntax error); PostgreSQL takes no NUL in text at all.
    @Test(arguments: IndexBackend.allCases)
    func controlCharactersAreSearchedOrRefusedClearly(backend: IndexBackend) async throws {
        let punctuated = try await search("flow-control", on: backend).map(\.path)
        #expect(punctuated.contains("Papers/Flow control paper.yianazip"))
        #expect(try await search("flow\u{0}control", on: backend).map(\.path) == punctuated)
        var options = SearchOptions()
        options.tags = ["research\u{0}", "\u{0}"]
        #expect(try await search("flow", options, on: backend).isEmpty)
        options = SearchOptions()
        options.folder = "Let\u{0}ters"
        #expect(try await search("statement", options, on: backend).isEmpty)
        options = SearchOptions()
        options.document = "Papers/Flow control\u{0}paper.yianazip"  // one document's pages (path=)
        #expect(try await search("flow", options, on: backend).isEmpty)
        options = SearchOptions()
        options.advanced = true
        for query in ["flow\u{0}", "\"flow\u{0}control\"", "\u{0}"] {
            do {
                _ = try await search(query, options, on: backend)
            } catch is SearchError {}
        }
    }

    @Test func advancedSyntaxOnlyOnRequestAndWithAClearError() async throws {
        let backend = IndexBackend.sqlite
        var options = SearchOptions()
        options.advanced = true
        #expect(try await search("elodie NOT reference", options, on: backend).isEmpty)
        #expect(try await search("elodie NOT nothingsuch", options, on: backend).count == 1)
        #expect(try await search("title:flow", options, on: backend).map(\.path) == ["Papers/Flow control paper.yianazip"])
        await #expect(throws: SearchError.self) { try await search("AND AND (", options, on: backend) }
    }

    @Test(arguments: IndexBackend.allCases)
    func filtersByTagFolderAndDate(backend: IndexBackend) async throws {
        var options = SearchOptions()
        options.tags = ["research"]
        #expect(try await search("flow", options, on: backend).map(\.path) == ["Papers/Flow control paper.yianazip"])
        options = SearchOptions()
        options.folder = "Letters"
        #expect(try await search("statement", options, on: backend).allSatisfy { $0.path.hasPrefix("Letters/") })
        options = SearchOptions()
        options.until = Date(timeIntervalSinceReferenceDate: 0)
        #expect(try await search("statement", options, on: backend).isEmpty)
        options = SearchOptions()
        options.since = Date(timeIntervalSinceNow: -3600)
        #expect(try await search("statement", options, on: backend).isEmpty == false)
        options.limit = 1
        #expect(try await search("the", options, on: backend).count == 1)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

@Suite("search")
struct SearchTests {
    static let shared = Task { () throws -> IndexFixture in
        let fixture = try await IndexFixture()
        _ = try await fixture.run()
        return fixture
    }

    func search(_ query: String, _ options: SearchOptions = SearchOptions()) async throws -> [SearchHit] {
        try await Self.shared.value.index.search(query, options: options)
    }

    @Test(arguments: [
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
    func findsTheRightPage(query: String, path: String, page: Int) async throws {
        let hits = try await search(query)
        let hit = try #require(hits.first { $0.path == path }, "\(query)")
        #expect(hit.pages.first?.number == page, "\(query)")
    }

    @Test func snippetsMarkTheMatchedWords() async throws {
        let hit = try #require(try await search("balance").first)
        #expect(hit.pages[0].snippet.contains("\(SearchHit.markOpen)balance\(SearchHit.markClose)"))
    }

    /// A prefix's snippets are made apart from the index (its pages copied into a table in
    /// memory): the same pages, scores and marked words as the word itself gives.
    @Test func aPrefixGivesTheSnippetsOfTheWordsItMatches() async throws {
        let word = try await search("balance"), prefix = try await search("balanc*")
        #expect(!prefix.isEmpty && prefix.map(\.path) == word.map(\.path))
        for (a, b) in zip(word, prefix) {
            #expect(b.pages.map(\.number) == a.pages.map(\.number) && b.pages.map(\.snippet) == a.pages.map(\.snippet), "\(b.path)")
        }
        #expect(prefix.first?.pages.first?.snippet.contains("\(SearchHit.markOpen)balance\(SearchHit.markClose)") == true)
    }

    /// A title match outranks a body that repeats the word: proof that bm25's weights land
    /// on the right columns (the UNINDEXED ones take places in its argument list too).
    @Test func titlesWeighMoreThanBodyText() async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let documents = [("Notes", ["budget budget budget budget", "more about the budget and the plan"]),
                         ("Budget 2026", ["plan for the year"]),
                         ("Minutes", ["we talked about the budget once"])]
        for (title, lines) in documents {
            try CoordinatedDocument.create(at: folder.path("\(title).yianazip"), metadata: DocumentMetadata(title: title, pageCount: 1),
                                           pdf: .data(simplePDF(lines)))
        }
        let index = try SearchIndex(path: indexFolder.path("i.sqlite"))
        _ = try await Indexer(library: try Library(root: folder.url), index: index).run()
        let hits = try index.search("budget")
        #expect(hits.map(\.title) == ["Budget 2026", "Notes", "Minutes"])
        #expect(hits.map(\.score) == hits.map(\.score).sorted(by: >))
    }

    @Test func pagesAreGroupedBestFirst() async throws {
        let hit = try #require(try await search("statement").first { $0.path.hasPrefix("Letters/") })
        #expect(hit.pages.map(\.score) == hit.pages.map(\.score).sorted(by: >))
    }

    @Test(arguments: ["\"unterminated", "AND", "NOT balance", "balance OR", "(", "*", "a:b", "C++", "-", "NEAR(",
                      "title:flow", "\"\"", "^flow", "flow)", "10:30 +44", "e-mail", "'quote'", "SELECT * FROM page;"])
    func anyTextIsAValidQuery(query: String) async throws {
        do {
            _ = try await search(query)
        } catch let error as SearchError {
            #expect(error == .nothingToSearch, "\(query)")
        }
    }

    @Test func advancedSyntaxOnlyOnRequestAndWithAClearError() async throws {
        var options = SearchOptions()
        options.advanced = true
        #expect(try await search("elodie NOT reference", options).isEmpty)
        #expect(try await search("elodie NOT nothingsuch", options).count == 1)
        #expect(try await search("title:flow", options).map(\.path) == ["Papers/Flow control paper.yianazip"])
        await #expect(throws: SearchError.self) { try await search("AND AND (", options) }
    }

    @Test func filtersByTagFolderAndDate() async throws {
        var options = SearchOptions()
        options.tags = ["research"]
        #expect(try await search("flow", options).map(\.path) == ["Papers/Flow control paper.yianazip"])
        options = SearchOptions()
        options.folder = "Letters"
        #expect(try await search("statement", options).allSatisfy { $0.path.hasPrefix("Letters/") })
        options = SearchOptions()
        options.until = Date(timeIntervalSinceReferenceDate: 0)
        #expect(try await search("statement", options).isEmpty)
        options = SearchOptions()
        options.since = Date(timeIntervalSinceNow: -3600)
        #expect(try await search("statement", options).isEmpty == false)
        options.limit = 1
        #expect(try await search("the", options).count == 1)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

/// A process that searches many times (`yiana serve`) walks the vocabulary in memory: the same
/// answers as the look-ups in the index, and never an answer without a word the index gained
/// since it was read.
@Suite("search that forgives: the vocabulary in memory")
struct ResidentVocabularyTests {
    static let queries = ["Marlowe", "Armitage", "Hollis", "Wainwright", "Marolwe", "Quigly", "Fletchr", "Wianwrigth",
                          "Siobhan O'Brien-Sousa", "Zyxwvutq", "Armitage discharge"]

    func answers(_ index: any IndexStore, _ queries: [String]) async throws -> [String] {
        var answers: [String] = []
        for query in queries {
            let hits = try await index.search(query, options: SearchOptions())
            answers.append("\(query): " + hits.map { "\($0.path) \($0.approximate.map { "\($0.word)~\($0.matches)" })" }.joined(separator: "; "))
        }
        return answers
    }

    /// Searches `index` until its vocabulary in memory, read in the background (not more often
    /// than a tenth of the time), is `ready`.
    func waitForLexicon(_ index: any IndexStore, until ready: (Lexicon) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while !(index.residentVocabulary.current.map(ready) ?? false), ContinuousClock.now < deadline {
            _ = try await index.search("Marlowe", options: SearchOptions())
            await index.residentVocabulary.settled()
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(index.residentVocabulary.current.map(ready) == true)
    }

    @Test(arguments: IndexBackend.allCases)
    func theVocabularyInMemoryAnswersAsTheIndexDoesAndFollowsItsNewWords(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        for letter in TypoSearchTests.letters {
            try CoordinatedDocument.create(at: folder.path("\(letter.name).yianazip"), metadata: DocumentMetadata(title: letter.name, pageCount: 1),
                                           pdf: .data(simplePDF(letter.lines)))
        }
        let library = try Library(root: folder.url)
        let location = try backend.location(in: indexFolder)
        let writer = try await location.openForWriting(library)
        _ = try await Indexer(library: library, index: writer).run(options: IndexOptions(jobs: 1))
        let expected = try await answers(writer, Self.queries)

        let server = try #require(try await location.openExisting(library))
        server.residentVocabulary.enable()
        #expect(try await answers(server, Self.queries) == expected, "while the vocabulary is read")
        try await waitForLexicon(server) { $0.matches(of: "marlowe", edits: 1) == ["mariowe"] }
        #expect(try await answers(server, Self.queries) == expected, "from the vocabulary in memory")
        #expect(try await answers(server, Self.queries) == expected, "again, from the matches kept")
        #expect(try await server.search("Quennford", options: SearchOptions()).isEmpty, "kept: no match, before the scan below")

        // A scan indexed since: found at once (the index is looked up while the copy in
        // memory is behind), and then from memory too.
        try CoordinatedDocument.create(at: folder.path("Scan Z.yianazip"), metadata: DocumentMetadata(title: "Scan Z", pageCount: 1),
                                       pdf: .data(simplePDF(["Re: Mr Tobias Quennforrd, 3 Ash Row"])))
        _ = try await Indexer(library: library, index: writer).run(options: IndexOptions(jobs: 1))
        let quenford = try await answers(writer, ["Quennford", "Tobias"])
        #expect(quenford.first?.contains("Scan Z.yianazip [\"Quennford~[\\\"quennforrd\\\"]\"]") == true, "\(quenford)")
        #expect(try await answers(server, ["Quennford", "Tobias"]) == quenford, "the moment it is indexed")
        try await waitForLexicon(server) { $0.matches(of: "quennford", edits: 1) == ["quennforrd"] }
        #expect(try await answers(server, ["Quennford", "Tobias"] + Self.queries) == quenford + expected, "from memory")
        await server.close()
        await writer.close()
    }
}

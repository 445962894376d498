import Foundation
import Testing
import YianaArchive
import YianaLibrary
@testable import YianaPostgres
import YianaTestSupport
import YianaSQLite
import PostgresNIO
@testable import YianaSearch

/// Search that forgives (issue 56), on both indexes: a name found through OCR's misreadings
/// and through a slip of the keyboard, after every document with the name as typed, and said.
@Suite("search that forgives: on the index")
struct TypoSearchTests {
    typealias F = CompanionFixtures

    /// Letters to patients, some as scans whose text misreads the name as OCR does, one whose
    /// patient is only in the app's address file, and letters about others.
    static let letters: [(name: String, lines: [String])] = [
        ("Letter A", ["Re: Mrs Jane Marlowe, 12 Hill Road", "Thank you for seeing Mrs Marlowe in clinic.", "Yours sincerely, Dr Alan Fletcher"]),
        ("Scan B", ["Re: Mrs Jane Mariowe, 12 Hill Road", "Her appointment is confirmed.", "Yours sincerely, Dr Alan Fletcher"]),
        ("Scan C", ["Re: Mr John Arrnitage, 4 Mill Lane", "Discharge summary after the review.", "Dr Alan Fletcher"]),
        ("Scan D", ["Re: Mr Peter Ho11is, 9 Park View", "Follow-up in six weeks.", "Dr Alan Fletcher"]),
        ("Letter E", ["Re: Mr Harold Wainwright", "Blood results were normal.", "Dr Alan Fletcher"]),
        ("Scan F", ["Re: Mr Harold VVainwrigbt", "Blood results attached.", "Dr Alan Fletcher"]),
        ("Scan H", ["Re: Mrs Siobhan O'Brein-Sousa", "Seen in the eye clinic.", "Dr Alan Fletcher"]),
        ("Letter G", ["Clinic letter, see the addresses", "Dr Alan Fletcher"]),
    ] + (1...6).map { ("Note \($0)", ["Re: Mr Someone Else \($0)", "Nothing about the others here.", "Dr Alan Fletcher"]) }

    static let shared = IndexBackend.allCases.reduce(into: [IndexBackend: Task<(TemporaryFolder, TemporaryFolder, any IndexStore), Error>]()) { fixtures, backend in
        fixtures[backend] = Task {
            let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
            for letter in letters {
                try CoordinatedDocument.create(at: folder.path("\(letter.name).yianazip"), metadata: DocumentMetadata(title: letter.name, pageCount: 1),
                                               pdf: .data(simplePDF(letter.lines)))
            }
            let extraction = """
                {"schema_version" : 1, "document_id" : "Letter G", "extracted_at" : "2026-03-01T09:00:00Z", "page_count" : 1,
                 "pages" : [{"page_number" : 1, "address_type" : "patient", "patient" : {"full_name" : "Bernadette Quigley"}}], "overrides" : []}
                """
            try F.write(extraction, ".addresses/Letter G.json", in: folder.url)
            let library = try Library(root: folder.url)
            let index = try await backend.makeIndex(for: library, in: indexFolder)
            _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
            return (folder, indexFolder, index)
        }
    }

    func search(_ query: String, exact: Bool = false, on backend: IndexBackend) async throws -> [SearchHit] {
        var options = SearchOptions()
        options.exact = exact
        return try await Self.shared[backend]!.value.2.search(query, options: options)
    }

    func paths(_ hits: [SearchHit]) -> [String] { hits.map { $0.path.replacingOccurrences(of: ".yianazip", with: "") } }

    @Test(arguments: IndexBackend.allCases)
    func aNameMisreadByOCRIsFoundByTheTrueName(backend: IndexBackend) async throws {
        for (query, scan, misread) in [("Marlowe", "Scan B", "mariowe"), ("Armitage", "Scan C", "arrnitage"),
                                       ("Hollis", "Scan D", "ho11is"), ("Wainwright", "Scan F", "vvainwrigbt")] {
            let hits = try await search(query, on: backend)
            let hit = try #require(hits.prefix(3).first { $0.path == "\(scan).yianazip" }, "\(query) on \(backend): \(paths(hits))")
            #expect(hit.approximate == [SearchHit.Approximation(word: query, matches: [misread])], "\(query)")
            // The misread word is marked in the snippet as an exact one is.
            #expect(hit.pages.first?.snippet.lowercased().contains("\(SearchHit.markOpen)\(misread)\(SearchHit.markClose)") == true, "\(hit.pages)")
        }
    }

    @Test(arguments: IndexBackend.allCases)
    func theExactDocumentComesFirstAndIsNotDiluted(backend: IndexBackend) async throws {
        let marlowe = try await search("Marlowe", on: backend)
        #expect(paths(marlowe) == ["Letter A", "Scan B"])
        #expect(marlowe[0].approximate.isEmpty)
        let wainwright = try await search("Wainwright", on: backend)
        #expect(paths(wainwright) == ["Letter E", "Scan F"])
        // A query whose words all match as typed, in more documents than asked for: only those.
        var options = SearchOptions()
        options.limit = 3
        let fletcher = try await Self.shared[backend]!.value.2.search("Fletcher", options: options)
        #expect(fletcher.count == 3 && fletcher.allSatisfy { $0.approximate.isEmpty })
    }

    @Test(arguments: IndexBackend.allCases)
    func aSlipOfTheKeyboardIsForgiven(backend: IndexBackend) async throws {
        // Swapped, dropped, doubled, substituted letters; two slips in a long word.
        for (query, document) in [("Marolwe", "Letter A"), ("Marlwe", "Letter A"), ("Marrlowe", "Letter A"),
                                  ("Marlowa", "Letter A"), ("Wainwrihgt", "Letter E"), ("Wianwrigth", "Letter E"),
                                  ("Quigly", "Letter G"), ("Quiglee", "Letter G")] {
            let hits = try await search(query, on: backend)
            #expect(hits.prefix(3).contains { $0.path == "\(document).yianazip" }, "\(query) on \(backend): \(paths(hits))")
            #expect(hits.allSatisfy { !$0.approximate.isEmpty }, "\(query): nothing has it as typed")
        }
        // A name written with punctuation inside: each of its words by the rule.
        let obrien = try await search("Siobhan O'Brien-Sousa", on: backend)
        #expect(paths(obrien) == ["Scan H"])
        #expect(obrien.first?.approximate == [SearchHit.Approximation(word: "O'Brien-Sousa", matches: ["o brein sousa"])])
        #expect(paths(try await search("O'Brein-Suosa", on: backend)) == ["Scan H"])
        // A name in every letter: in every letter.
        #expect(try await search("Flecther", on: backend).count == Self.letters.count)
        // With other words as typed.
        #expect(paths(try await search("Armitage discharge", on: backend)) == ["Scan C"])
    }

    @Test(arguments: IndexBackend.allCases)
    func whatTheRuleDoesNotAllowFindsNothing(backend: IndexBackend) async throws {
        for query in ["Zyxwvutq", "Qwertyuiop", "Marlxwq", "Amritage"] {  // Amritage: a swap from a word the index does not hold
            #expect(try await search(query, on: backend).isEmpty, "\(query)")
        }
        // Exactly, when asked: --exact, or the word quoted; short words always.
        #expect(paths(try await search("Marlowe", exact: true, on: backend)) == ["Letter A"])
        #expect(paths(try await search("\"Marlowe\"", on: backend)) == ["Letter A"])
        #expect(try await search("Armitage", exact: true, on: backend).isEmpty)
        #expect(try await search("Hils", on: backend).isEmpty)
    }

    /// Both indexes find the same approximate words, for the same documents.
    @Test func bothIndexesGiveTheSameApproximateMatches() async throws {
        for query in ["Marlowe", "Armitage", "Hollis", "Wainwright", "Marolwe", "Quigly", "Fletchr", "Wianwrigth"] {
            let sqlite = try await search(query, on: .sqlite), postgres = try await search(query, on: .postgres)
            #expect(Set(sqlite.map { [$0.path] + $0.approximate.map { "\($0.word)~\($0.matches)" } })
                    == Set(postgres.map { [$0.path] + $0.approximate.map { "\($0.word)~\($0.matches)" } }), "\(query)")
        }
    }
}

/// An index made before there was a vocabulary is searched as it is (exactly), and the next
/// run that writes it gives it one from the pages it holds.
@Suite("search that forgives: an index made before")
struct TypoSearchUpgradeTests {
    @Test(arguments: IndexBackend.allCases)
    func anIndexMadeBeforeTheVocabularyGetsOne(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("Scan.yianazip"), metadata: DocumentMetadata(title: "Scan", pageCount: 1),
                                       pdf: .data(simplePDF(["Re: Mrs Jane Mariowe, 12 Hill Road"])))
        let library = try Library(root: folder.url)
        let location = try backend.location(in: indexFolder)
        let index = try await location.openForWriting(library)
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        #expect(try await index.search("Marlowe", options: SearchOptions()).map(\.path) == ["Scan.yianazip"])
        await index.close()
        // As an older yiana left it: no vocabulary.
        switch location {
        case .file(let path):
            try SQLDatabase(path: path).write { db in
                try db.execute(sql: "DROP TABLE word; DROP TABLE word_new; DROP TABLE word_letter; DROP TABLE word_version; DELETE FROM grdb_migrations WHERE identifier IN (?, ?)",
                               arguments: [SearchIndex.vocabulary, SearchIndex.vocabularyVersion])
            }
        case .server(let server):
            let database = try await PostgresDatabase.connect(server)
            _ = try await database.run(within: 10) { try await $0.query("DROP TABLE yiana_word, yiana_word_letter, yiana_word_version", logger: PostgresDatabase.logger) }
            await database.close()
        }
        let old = try #require(try await location.openExisting(library))
        #expect(try await old.search("Marlowe", options: SearchOptions()).isEmpty, "no vocabulary: exactly, and no error")
        await old.close()
        let upgraded = try await location.openForWriting(library)
        #expect(try await upgraded.search("Marlowe", options: SearchOptions()).map(\.path) == ["Scan.yianazip"])
        await upgraded.close()
    }
}

/// The vocabulary's new words are merged into its large table in bulk; found from both.
@Suite("search that forgives: the vocabulary's two tables")
struct VocabularyTablesTests {
    @Test func newWordsAreMergedInBulkAndFoundFromBothTables() async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let index = try SearchIndex(path: indexFolder.path("index.sqlite"), mergeEvery: 4)
        let names = ["Mariowe", "Arrnitage", "Ho11is", "Quigiey", "Fairvveather", "Okonkvvo"]
        for (number, name) in names.enumerated() {
            try CoordinatedDocument.create(at: folder.path("Scan \(number).yianazip"), metadata: DocumentMetadata(title: "Scan \(number)", pageCount: 1),
                                           pdf: .data(simplePDF(["Re: \(name), seen today in the clinic about the results of the tests"])))
            _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        }
        let (large, small) = try index.readNow { db in
            (try db.value(Int.self, sql: "SELECT count(*) FROM word") ?? 0, try db.value(Int.self, sql: "SELECT count(*) FROM word_new") ?? 0)
        }
        #expect(large > 0 && small > 0 && small < 4, "merged in bulk, the newest still apart: \(large) and \(small)")
        for (query, number) in [("Marlowe", 0), ("Armitage", 1), ("Hollis", 2), ("Quigley", 3), ("Fairweather", 4), ("Okonkwo", 5)] {
            #expect(try await index.search(query, options: SearchOptions()).map(\.path) == ["Scan \(number).yianazip"], "\(query)")
        }
    }
}

/// A word the index holds on many pages is taken as typed: of its neighbours, only the rare
/// ones (OCR's misreadings of it) are looked for; a rare or unknown word gets them all.
@Suite("search that forgives: common words")
struct CommonWordTests {
    @Test(arguments: IndexBackend.allCases)
    func aCommonWordIsTakenAsTypedButItsMisreadingsAreFound(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        for number in 0..<Approximate.commonWord {
            try CoordinatedDocument.create(at: folder.path("Letter \(number).yianazip"), metadata: DocumentMetadata(title: "Letter \(number)", pageCount: 1),
                                           pdf: .data(simplePDF(["Your appointment with the clinic is confirmed"])))
            try CoordinatedDocument.create(at: folder.path("Note \(number).yianazip"), metadata: DocumentMetadata(title: "Note \(number)", pageCount: 1),
                                           pdf: .data(simplePDF(["Your appointmant is a common misspelling here"])))
        }
        try CoordinatedDocument.create(at: folder.path("Scan.yianazip"), metadata: DocumentMetadata(title: "Scan", pageCount: 1),
                                       pdf: .data(simplePDF(["Your appointrnent with Mrs Mariowe"])))
        let library = try Library(root: folder.url)
        let index = try await backend.makeIndex(for: library, in: indexFolder)
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        var options = SearchOptions()
        options.limit = 100
        let common = try await index.search("appointment", options: options)
        #expect(common.filter(\.approximate.isEmpty).count == Approximate.commonWord, "\(common.map(\.path))")
        #expect(common.filter { !$0.approximate.isEmpty }.map(\.path) == ["Scan.yianazip"], "the rare misreading, not the common neighbour")
        let unknown = try await index.search("appointmint", options: options)
        #expect(unknown.count == 2 * Approximate.commonWord + 1, "an unknown word: every neighbour")
        await index.close()
    }
}

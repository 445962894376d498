import Foundation
import PostgresNIO
import YianaSearch

/// The vocabulary on PostgreSQL, as in the SQLite index (``YianaSearch/Approximate``): each
/// library's words of four letters or more, folded, and reversed, in byte order (`COLLATE "C"`,
/// so that a beginning's words are one range of the B-tree), with the letters they are made of.
/// The tables have no schema version of their own: a machine running an older yiana searches and
/// writes on without them (the words it writes are added by the next full index).
extension PostgresSchema {
    static let vocabularyTables = [
        """
        CREATE TABLE IF NOT EXISTS yiana_word (
            library bigint NOT NULL REFERENCES yiana_library(id) ON DELETE CASCADE,
            word text COLLATE "C" NOT NULL,
            reversed text COLLATE "C" NOT NULL,
            PRIMARY KEY (library, word)
        )
        """,
        "CREATE INDEX IF NOT EXISTS yiana_word_reversed ON yiana_word (library, reversed)",
        """
        CREATE TABLE IF NOT EXISTS yiana_word_letter (
            library bigint NOT NULL REFERENCES yiana_library(id) ON DELETE CASCADE,
            letter text NOT NULL,
            PRIMARY KEY (library, letter)
        )
        """,
    ]

    /// Each library's vocabulary version (``YianaSearch/ResidentVocabulary``): a new number
    /// from the sequence in each transaction that adds words or empties the vocabulary, so that
    /// a number seen once is never seen again for other words. Made apart from the tables (it
    /// came later).
    static let vocabularyVersion = [
        "CREATE SEQUENCE IF NOT EXISTS yiana_word_versions",
        """
        CREATE TABLE IF NOT EXISTS yiana_word_version (
            library bigint PRIMARY KEY REFERENCES yiana_library(id) ON DELETE CASCADE,
            version bigint NOT NULL
        )
        """,
    ]

    /// Makes the vocabulary's tables where missing; the pages written before are read into it
    /// afterwards, in steps (``fillVocabulary(_:documents:)``).
    static func makeVocabulary(_ connection: PostgresConnection) async throws {
        for statement in vocabularyVersion { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresDatabase.logger) }
        var present = false
        for try await value in try await connection.query("SELECT to_regclass('yiana_word') IS NOT NULL", logger: PostgresDatabase.logger)
            .decode(Bool.self) {
            present = value
        }
        guard !present else { return }
        try await execute(vocabularyTables, thenSchedule: "vocabulary", connection)
    }

    /// The words of the pages written before the vocabulary was, `documents` documents at a
    /// time, each step its own transaction; one machine at a time.
    /// - Returns: the documents read.
    @discardableResult
    public static func fillVocabulary(_ database: PostgresDatabase, documents: Int = 500) async throws(PostgresIndexError) -> Int {
        try await steps(of: "vocabulary", database) { connection, after in
            var texts: [Int64: [String]] = [:]
            var last: Int64?, count = 0
            for try await (id, library, text) in try await connection.query("""
                SELECT d.id, d.library, d.title || ' ' || array_to_string(d.tags, ' ') || ' ' || d.folder || ' '
                       || coalesce((SELECT string_agg(p.body, ' ') FROM yiana_page p WHERE p.document = d.id), '')
                FROM yiana_document d WHERE d.id > \(after) ORDER BY d.id LIMIT \(Int64(documents))
                """, logger: PostgresDatabase.logger).decode((Int64, Int64, String).self) {
                texts[library, default: []].append(text)
                last = id
                count += 1
            }
            guard let last else { return nil }
            for (library, texts) in texts.sorted(by: { $0.key < $1.key }) {
                try await PostgresIndex.addWords(Vocabulary.words(of: texts), library: library, connection)
            }
            return (last, count)
        }
    }
}

extension PostgresIndex {
    /// Adds `words` to library `library`'s vocabulary, in order (two machines adding the same
    /// words take turns instead of deadlocking).
    static func addWords(_ words: Set<String>, library: Int64, _ connection: PostgresConnection) async throws {
        guard !words.isEmpty else { return }
        let sorted = words.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        var added = 0
        for try await count in try await connection.query("""
            WITH added AS (
                INSERT INTO yiana_word (library, word, reversed)
                SELECT \(library), t.word, t.reversed FROM unnest(\(sorted)::text[], \(sorted.map(Vocabulary.reversed))::text[]) AS t(word, reversed)
                ON CONFLICT DO NOTHING RETURNING 1
            ) SELECT count(*) FROM added
            """, logger: PostgresDatabase.logger).decode(Int.self) {
            added = count
        }
        if added > 0 { try await newVocabularyVersion(library: library, connection) }
        let letters = Vocabulary.letters(of: words).map { String($0) }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        try await connection.query("""
            INSERT INTO yiana_word_letter (library, letter) SELECT \(library), unnest(\(letters)::text[]) ON CONFLICT DO NOTHING
            """, logger: PostgresDatabase.logger)
    }

    /// Gives library `library`'s vocabulary a new version, as the last step of a transaction
    /// (writers that add words take turns on its row only from there to their commit).
    static func newVocabularyVersion(library: Int64, _ connection: PostgresConnection) async throws {
        try await connection.query("""
            INSERT INTO yiana_word_version (library, version) VALUES (\(library), nextval('yiana_word_versions'))
            ON CONFLICT (library) DO UPDATE SET version = excluded.version
            """, logger: PostgresDatabase.logger)
    }

    /// The words of `documents` the vocabulary keeps (``YianaSearch/ExtractedDocument/words``).
    static func words(of documents: [ExtractedDocument]) -> Set<String> {
        documents.reduce(into: Set<String>()) { $0.formUnion($1.words) }
    }

    /// A search of the words as typed, then, while there is room, of the words found through a
    /// slip, as the SQLite index does it (``YianaSearch/SearchIndex``).
    func searchForgiving(_ query: String, options: SearchOptions) async throws -> [SearchHit] {
        guard let parsed = Parsed(query, advanced: false) else { throw SearchError.nothingToSearch }
        let exact = try await search(parsed, options: options)
        let terms = SearchQuery.terms(of: query), limit = max(1, options.limit)
        let words = options.exact || exact.count >= limit ? [] : Approximate.words(of: terms)
        guard !words.isEmpty else { return exact }
        // A common word is taken as typed: only its rare neighbours (OCR's misreadings of it).
        let approximate = try await approximateWords(words)
        // The words and all their matches asked about at once: one round trip.
        let common = try await common(Array(Set(approximate.keys).union(approximate.values.joined())))
        let found = Approximate.keepingRare(approximate, common: common.intersection(approximate.keys), commonMatches: common)
        guard let alternatives = Approximate.alternatives(of: terms, found: found),
              let wide = Parsed(query, advanced: false, alternatives: alternatives) else { return exact }
        var more = options
        more.limit = limit - exact.count
        more.excludedPaths = exact.map(\.path)
        let added = Approximate.added(try await search(wide, options: more), after: exact, limit: limit)
        guard !added.isEmpty else { return exact }
        return exact + Approximate.annotated(added, terms: terms, alternatives: alternatives,
                                             holding: try await holding(Array(Set(alternatives.joined())), paths: added.map(\.path)))
    }

    /// The words of the vocabulary within the rule's edits of each of `words`, nearest first.
    func approximateWords(_ words: [String]) async throws -> [String: [String]] {
        // A process that has read the vocabulary once knows its tables are there: one round
        // trip (should they have gone since, it asks as below).
        if residentVocabulary.current != nil, let found = (try? await residentMatches(words)) ?? nil { return found }
        let present = try await rows("SELECT to_regclass('yiana_word') IS NOT NULL, to_regclass('yiana_word_version') IS NOT NULL",
                                     as: (Bool, Bool).self, within: Self.searchTimeout)
        guard let (vocabulary, versions) = present.first, vocabulary else { return [:] }
        if versions, let found = try await residentMatches(words) { return found }
        let alphabet = Set(try await rows("SELECT letter FROM yiana_word_letter WHERE library = \(library)", as: String.self, within: Self.searchTimeout)
            .compactMap(\.unicodeScalars.first))
        var found: [String: [String]] = [:]
        for word in words {
            let edits = Approximate.allowedEdits(word.unicodeScalars.count)
            let probes = Approximate.probes(for: word, edits: edits, alphabet: alphabet)
            // A beginning's (an ending's) words: from it to it followed by the last character there
            // is, a range of the B-tree each (`OFFSET 0` keeps the planner from flattening the
            // LATERAL into one scan of the whole table, tested against every probe: 2 s a search).
            let candidates = try await rows("""
                SELECT word FROM yiana_word WHERE library = \(library) AND word = ANY(\(Array(probes.exact))::text[])
                UNION ALL
                SELECT w.word FROM unnest(\(Array(probes.prefixes))::text[]) p, LATERAL (
                    SELECT word FROM yiana_word WHERE library = \(library) AND word >= p COLLATE "C" AND word < (p || chr(1114111)) COLLATE "C"
                    AND length(word) BETWEEN \(probes.lengths.lowerBound) AND \(probes.lengths.upperBound) OFFSET 0) w
                UNION ALL
                SELECT w.word FROM unnest(\(Array(probes.suffixes))::text[]) p, LATERAL (
                    SELECT word FROM yiana_word WHERE library = \(library) AND reversed >= p COLLATE "C" AND reversed < (p || chr(1114111)) COLLATE "C"
                    AND length(word) BETWEEN \(probes.lengths.lowerBound) AND \(probes.lengths.upperBound) OFFSET 0) w
                """, as: String.self, within: Self.searchTimeout)
            let matches = Approximate.matches(of: word, among: candidates, edits: edits)
            if !matches.isEmpty { found[word] = matches }
        }
        return found
    }

    /// The approximate words from the vocabulary in memory when it is current
    /// (``YianaSearch/ResidentVocabulary``); nil when the process does not keep it, or while it
    /// is being read anew.
    private func residentMatches(_ words: [String]) async throws -> [String: [String]]? {
        guard residentVocabulary.isEnabled else { return nil }
        let library = self.library
        return residentVocabulary.matches(of: words, at: try await vocabularyVersion()) { [self] in
            // The version first: the words read after it are at least its words.
            let version = try await vocabularyVersion()
            return (version, try await rows("SELECT word FROM yiana_word WHERE library = \(library) ORDER BY word", as: String.self, within: 300))
        }
    }

    /// The library's vocabulary version (``PostgresSchema/vocabularyVersion``), as
    /// ``YianaSearch/ResidentVocabulary`` keys it: with the library, whose id a run may change.
    private func vocabularyVersion() async throws -> [Int64] {
        let library = self.library
        return [library, try await rows("SELECT version FROM yiana_word_version WHERE library = \(library)",
                                        as: Int64.self, within: Self.searchTimeout).first ?? 0]
    }

    /// Those of `words` the library holds on ``YianaSearch/Approximate/commonWord`` pages or
    /// more, asked in one statement.
    private func common(_ words: [String]) async throws -> Set<String> {
        guard !words.isEmpty else { return [] }
        return Set(try await rows("""
            SELECT w FROM unnest(\(words)::text[]) w WHERE (SELECT count(*) FROM (SELECT 1 FROM yiana_page WHERE library = \(library)
                AND search @@ to_tsquery('yiana_english', quote_literal(w)) LIMIT \(Approximate.commonWord)) c) >= \(Approximate.commonWord)
            """, as: String.self, within: Self.searchTimeout))
    }

    /// Which of `paths` (documents) hold each of `words`, in any part of any page.
    private func holding(_ words: [String], paths: [String]) async throws -> [String: Set<String>] {
        var holding: [String: Set<String>] = [:]
        for (word, path) in try await rows("""
            SELECT DISTINCT w, d.path FROM unnest(\(words)::text[]) w
            JOIN yiana_document d ON d.library = \(library) AND d.path = ANY(\(paths)::text[])
            JOIN yiana_page p ON p.document = d.id AND p.search @@ phraseto_tsquery('yiana_english', w)
            """, as: (String, String).self, within: Self.searchTimeout) {
            holding[word, default: []].insert(path)
        }
        return holding
    }
}

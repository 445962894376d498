import Foundation
import YianaSQLite
import Synchronization

/// The index's vocabulary (``Approximate``): every word it holds of four letters or more, as
/// typed but folded (not stemmed, as the page table's are), and reversed (for the look-ups of
/// endings), with the letters they are made of. Words are added as pages are written and kept
/// when their documents go (a word no page holds any more finds nothing); `index --full`
/// starts it anew.
///
/// New words go to a small table (`word_new`) and are merged into the large one (`word`) in
/// bulk, 20,000 at a time (``SearchIndex/mergeEvery``): a library's new words fall all over the large table's
/// B-trees, so each transaction that added them there rewrote a page for nearly every word
/// (`index` of 100,000 documents took 58% longer with the vocabulary than without). Both
/// tables are looked up; every step is one transaction with the pages it belongs to.
extension SearchIndex {
    static let vocabularyTables = """
        CREATE TABLE IF NOT EXISTS word (word TEXT PRIMARY KEY, reversed TEXT NOT NULL) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS word_reversed ON word(reversed);
        CREATE TABLE IF NOT EXISTS word_new (word TEXT PRIMARY KEY, reversed TEXT NOT NULL) WITHOUT ROWID;
        CREATE INDEX IF NOT EXISTS word_new_reversed ON word_new(reversed);
        CREATE TABLE IF NOT EXISTS word_letter (letter TEXT PRIMARY KEY) WITHOUT ROWID;
        """

    /// The vocabulary's two tables, looked up alike.
    static let wordTables = ["word", "word_new"]

    /// The vocabulary's version: one more in each transaction that adds words to it or empties
    /// it (``ResidentVocabulary``).
    static let versionTable = """
        CREATE TABLE IF NOT EXISTS word_version (version INTEGER NOT NULL);
        INSERT INTO word_version (version) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM word_version);
        """

    /// Makes the vocabulary of an index written before it had one, from its pages.
    static func makeVocabulary(_ db: SQLConnection) throws {
        try db.execute(sql: vocabularyTables)
        let pages = try db.cursor(sql: "SELECT title, body, tags, folder FROM page")
        var words = Set<String>()
        while let page = try pages.next() {
            words.formUnion(Vocabulary.words(of: [page[0], page[1], page[2], page[3]]))
            if words.count >= 50_000 {
                try insert(words, into: "word", db)
                words = []
            }
        }
        try insert(words, into: "word", db)
    }

    /// Adds `words` to the vocabulary (those the process added before skipped); none with
    /// ``keepsVocabulary`` false.
    func addWords(_ words: Set<String>, _ db: SQLConnection) throws {
        guard Self.keepsVocabulary else { return }
        // Filtered word by word: `subtracting` walks the whole remembered set each time.
        let (new, letters, pending) = vocabularySeen.withLock { seen -> (Set<String>, Set<Unicode.Scalar>, Int?) in
            let new = words.filter { !seen.words.contains($0) }
            if seen.words.count + new.count > Self.wordsRemembered { seen.words = [] }
            seen.words.formUnion(new)
            let letters = Vocabulary.letters(of: new).subtracting(seen.letters)
            seen.letters.formUnion(letters)
            return (new, letters, seen.pending)
        }
        guard !new.isEmpty else { return }
        var count = try pending ?? db.value(Int.self, sql: "SELECT count(*) FROM word_new") ?? 0
        let added = try Self.insert(new, letters: letters, into: "word_new", db)
        count += added
        // (An index written to has been brought up to this schema: the table is there.)
        if added > 0 { try db.execute(sql: "UPDATE word_version SET version = version + 1") }
        if count >= mergeEvery {
            try db.execute(sql: """
                INSERT OR IGNORE INTO word (word, reversed) SELECT word, reversed FROM word_new ORDER BY word;
                DELETE FROM word_new;
                """)
            count = 0
        }
        // (Should the transaction be rolled back, the count is off until the next merge, and its
        // words are remembered as added: a word lost so is found again by `index --full`.)
        vocabularySeen.withLock { $0.pending = count }
    }

    /// What a process added to the vocabulary, to skip its look-ups: words (at most
    /// ``wordsRemembered``) and letters.
    struct Added {
        var words: Set<String> = []
        var letters: Set<Unicode.Scalar> = []
        /// The rows of `word_new`, once counted.
        var pending: Int?
    }

    /// False with `YIANA_VOCABULARY=off` in the environment: no words found or added (what
    /// the vocabulary costs an index is measured so, Scripts/bench/search.sh).
    static let keepsVocabulary = ProcessInfo.processInfo.environment["YIANA_VOCABULARY"] != "off"

    /// The most words a process remembers having added (about 20 MB), to skip their look-ups.
    static let wordsRemembered = 400_000

    /// Inserts `words` into `table` and their letters (`letters`, else all of theirs).
    /// - Returns: the words that were not there.
    @discardableResult
    private static func insert(_ words: Set<String>, letters: Set<Unicode.Scalar>? = nil, into table: String, _ db: SQLConnection) throws -> Int {
        guard !words.isEmpty else { return 0 }
        let word = try db.statement(sql: "INSERT OR IGNORE INTO \(table) (word, reversed) VALUES (?, ?)")
        var added = 0
        for text in words.sorted() {
            try word.execute(arguments: [text, Vocabulary.reversed(text)])
            added += db.changes
        }
        let letter = try db.statement(sql: "INSERT OR IGNORE INTO word_letter (letter) VALUES (?)")
        for scalar in letters ?? Vocabulary.letters(of: words) {
            try letter.execute(arguments: [String(scalar)])
        }
        return added
    }

    /// Forgets the words the process added (the vocabulary was emptied).
    func forgetWords() {
        vocabularySeen.withLock { $0 = Added() }
    }


    /// The words of the vocabulary within the rule's edits of each of `words` (folded, as
    /// ``Approximate/words(of:)`` gives them), nearest first; none for an index without a
    /// vocabulary (one the next `yiana index` brings up to date).
    func approximateWords(_ words: [String], _ db: SQLConnection) throws -> [String: [String]] {
        guard !words.isEmpty, try db.tableExists("word_new") else { return [:] }
        if let found = try residentMatches(words, db) { return found }
        let alphabet = Set(try db.values(String.self, sql: "SELECT letter FROM word_letter").compactMap(\.unicodeScalars.first))
        var found: [String: [String]] = [:]
        for word in Set(words) {
            let edits = Approximate.allowedEdits(word.unicodeScalars.count)
            let probes = Approximate.probes(for: word, edits: edits, alphabet: alphabet)
            var candidates: [String] = []
            for table in Self.wordTables {
                candidates += try db.statement(sql: "SELECT word FROM \(table) WHERE word IN (SELECT value FROM json_each(?))")
                    .values(String.self, arguments: [Self.jsonStrings(probes.exact)])
                // Each beginning's (ending's) range of the B-tree: from it to it followed by the
                // last character there is.
                for (column, values) in [("word", probes.prefixes), ("reversed", probes.suffixes)] where !values.isEmpty {
                    candidates += try db.statement(sql: """
                        SELECT w.word FROM json_each(?1) p JOIN \(table) w ON w.\(column) >= p.value AND w.\(column) < p.value || char(1114111)
                        WHERE length(w.word) BETWEEN ?2 AND ?3
                        """).values(String.self, arguments: [Self.jsonStrings(values), probes.lengths.lowerBound, probes.lengths.upperBound])
                }
            }
            let matches = Approximate.matches(of: word, among: candidates, edits: edits)
            if !matches.isEmpty { found[word] = matches }
        }
        return found
    }

    /// The approximate words from the vocabulary in memory when it is current
    /// (``ResidentVocabulary``); nil when the process does not keep it, or while it is being
    /// read anew.
    private func residentMatches(_ words: [String], _ db: SQLConnection) throws -> [String: [String]]? {
        guard residentVocabulary.isEnabled, try db.tableExists("word_version") else { return nil }
        return residentVocabulary.matches(of: words, at: try Self.vocabularyVersion(db)) { [pool] in
            try await pool.read { db in
                let version = try Self.vocabularyVersion(db)
                let words = try Self.wordTables.map { try db.values(String.self, sql: "SELECT word FROM \($0) ORDER BY word") }
                return (version, Lexicon.merged(words[0], words[1]))
            }
        }
    }

    /// The vocabulary's version (``versionTable``), as ``ResidentVocabulary`` keys it.
    private static func vocabularyVersion(_ db: SQLConnection) throws -> [Int64] {
        [try db.value(Int64.self, sql: "SELECT version FROM word_version") ?? 0]
    }

    /// `values` as a JSON array of strings, for `json_each(?)`.
    static func jsonStrings(_ values: some Collection<String>) -> String {
        // Written here: `JSONEncoder` took a third of a forgiving search's own time.
        var json = "["
        json.reserveCapacity(values.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, value) in values.enumerated() {
            if index > 0 { json += "," }
            json += "\""
            for scalar in value.unicodeScalars {
                switch scalar {
                case "\"": json += "\\\""
                case "\\": json += "\\\\"
                case "\u{0}"..."\u{1F}": json += String(format: "\\u%04x", scalar.value)
                default: json.unicodeScalars.append(scalar)
                }
            }
            json += "\""
        }
        return json + "]"
    }
}

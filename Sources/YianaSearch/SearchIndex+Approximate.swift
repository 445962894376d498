import Foundation
import YianaSQLite

extension SearchIndex {
    /// A search of the words as typed, then, while there is room for more documents, of the
    /// words found through a slip (``Approximate``): every document with the words as typed
    /// comes first, and a query whose words all match as typed is not diluted.
    func searchForgiving(_ query: String, options: SearchOptions) throws -> [SearchHit] {
        let terms = SearchQuery.terms(of: query)
        guard !terms.isEmpty else { throw SearchError.nothingToSearch }
        let limit = max(1, options.limit)
        return try pool.read { db in
            let typed = SearchQuery.expressions(terms)
            let exact = try Self.run(typed.match, own: typed.own, options: options, db)
            let words = options.exact || exact.count >= limit ? [] : Approximate.words(of: terms)
            guard !words.isEmpty else { return exact }
            // A common word is taken as typed: only its rare neighbours (OCR's misreadings of
            // it) are looked for.
            let approximate = try approximateWords(words, db)
            let common = Set(try approximate.keys.filter { try Self.isCommon($0, db) })
            let commonMatches = Set(try Approximate.matches(of: common, in: approximate).filter { try Self.isCommon($0, db) })
            let found = Approximate.keepingRare(approximate, common: common, commonMatches: commonMatches)
            guard let alternatives = Approximate.alternatives(of: terms, found: found) else { return exact }
            let wide = SearchQuery.expressions(terms, alternatives: alternatives)
            var more = options
            more.limit = limit - exact.count
            more.excludedPaths = exact.map(\.path)
            let added = Approximate.added(try Self.run(wide.match, own: wide.own, options: more, db), after: exact, limit: limit)
            guard !added.isEmpty else { return exact }
            return exact + Approximate.annotated(added, terms: terms, alternatives: alternatives,
                                                 holding: try Self.holding(Set(alternatives.joined()), paths: added.map(\.path), db))
        }
    }

    /// Whether the index holds `word` on ``Approximate/commonWord`` pages or more.
    private static func isCommon(_ word: String, _ db: SQLConnection) throws -> Bool {
        let count = try db.statement(sql: "SELECT count(*) FROM (SELECT 1 FROM page WHERE page MATCH ? LIMIT \(Approximate.commonWord))")
        return try count.value(Int.self, arguments: [SearchQuery.quoted(SearchQuery.Term(text: word, prefix: false))]) ?? 0 >= Approximate.commonWord
    }

    /// Which of `paths` (documents) hold each of `words`, in any column.
    private static func holding(_ words: Set<String>, paths: [String], _ db: SQLConnection) throws -> [String: Set<String>] {
        var holding: [String: Set<String>] = [:]
        let statement = try db.statement(sql: """
            SELECT path FROM document WHERE path IN (SELECT value FROM json_each(?2))
            AND id IN (SELECT rowid >> \(pageBits) FROM page WHERE page MATCH ?1)
            """)
        let list = jsonStrings(paths)
        for word in words {
            holding[word] = Set(try statement.values(String.self, arguments: [SearchQuery.quoted(SearchQuery.Term(text: word, prefix: false)), list]))
        }
        return holding
    }
}

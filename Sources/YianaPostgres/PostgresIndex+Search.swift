import Foundation
import PostgresNIO
import YianaSearch

extension PostgresIndex {
    /// Seconds a search may take before it fails with an error naming the server.
    static let searchTimeout = 10.0

    /// Documents matching `query`, best first, each with its matching pages, best first, as the
    /// SQLite index answers (``YianaSearch/SearchIndex/search(_:options:)``): words, "phrases",
    /// prefixes (`inv*`); titles weigh most, then tags, folder names and page text; the same
    /// filters. With `options.advanced` the query is PostgreSQL's web search syntax (`"a
    /// phrase"`, `or`, `-word`) instead of FTS5's.
    /// - Throws: ``YianaSearch/SearchError`` `.nothingToSearch`, or ``PostgresIndexError``.
    public func search(_ query: String, options: SearchOptions) async throws -> [SearchHit] {
        // PostgreSQL takes no NUL in text, and no stored tag or folder holds one: such a filter
        // matches nothing; in the query a NUL parts words as any other non-letter does.
        if options.tags.contains(where: { $0.contains("\u{0}") }) || options.folder?.contains("\u{0}") == true { return [] }
        var sql = SQL()
        let parse: String, rank: String, phrase: Bool
        if options.advanced {
            parse = "websearch_to_tsquery('yiana_english', \(sql.bind(Self.folded(query).replacingOccurrences(of: "\u{0}", with: " "))))"
            rank = parse
            phrase = query.contains("\"")
        } else {
            guard let terms = Self.tsqueryTerms(query) else { throw SearchError.nothingToSearch }
            parse = "to_tsquery('yiana_english', \(sql.bind(terms.joined(separator: " & "))))"
            // Ranked by the OR of the terms: each term's weighted frequency, saturating, summed
            // as bm25 sums its terms' (for `a & b` PostgreSQL ranks by how close together they
            // are instead); a phrase by cover density (its whole matches); divided by the
            // logarithm of the page's length (1). Of the variants measured against the SQLite
            // index's top ten (Scripts/bench/postgres.sh) this agreed most often, and `ts_rank`
            // costs a third of `ts_rank_cd`. The weights are SQLite's column weights (text 1,
            // folder 2, tags 5, title 10) but for the text's, 0.15 and not 0.1: `ts_rank` counts
            // a word's later occurrences by 1/n² where bm25 saturates more slowly (agreement
            // 90.2% -> 92.1% on the benchmark's queries, 88.9% -> 90.8% on another 200).
            rank = "to_tsquery('yiana_english', \(sql.bind(terms.joined(separator: " | "))))"
            phrase = terms.contains { $0.contains("<->") }
        }
        let ranking = phrase ? "ts_rank_cd" : "ts_rank"
        let filter = Self.filter(options, &sql)
        let library = sql.bind(self.library)
        let limit = max(1, options.limit), shown = max(1, options.pages)
        let (order, pages) = if let sort = options.sort {
            try await ordered(by: sort, parse: parse, rank: rank, ranking: ranking, filter: filter, library: library, limit: limit, pages: shown, sql: sql)
        } else {
            try await best(parse: parse, rank: rank, ranking: ranking, filter: filter, library: library, limit: limit, pages: shown, sql: sql)
        }
        guard !order.isEmpty else { return [] }
        return try await hits(order, pages: pages, shown: shown, parse: parse, rank: rank, library: library, sql: sql)
    }

    typealias ChosenPages = [Int64: [(number: Int, source: String, score: Double, own: Bool)]]

    /// The documents whose pages match best, and those pages, best first; `own`: the page's own
    /// text holds one of the words (as the SQLite index tells it), not only the title, tags or
    /// folder every page of a document repeats.
    private func best(parse: String, rank: String, ranking: String, filter: String, library: String, limit: Int, pages shown: Int,
                      sql: SQL) async throws -> ([Int64], ChosenPages) {
        // The documents only for what they narrow by (each page knows its library). The pages'
        // word lists are not carried through the top-k sort: the window's rows are read again by
        // their ctid to tell their own text (a search in 16,000 pages took half the time).
        let join = filter.isEmpty ? "" : "JOIN yiana_document d ON d.id = p.document"
        var window = max(limit * 8, 200, shown * 4)
        var order: [Int64] = []
        var pages: ChosenPages = [:]
        while true {
            var windowed = sql
            let rows = try await self.rows(windowed.query("""
                SELECT w.document, w.number, w.source, w.score, ts_filter(t.search, '{d}') @@ o
                FROM (SELECT p.ctid AS row, p.document, p.number, p.source,
                             \(ranking)('{0.15, 0.2, 0.5, 1.0}', p.search, r, 1)::float8 AS score
                      FROM yiana_page p \(join), \(parse) q, \(rank) r
                      WHERE p.library = \(library) AND p.search @@ q \(filter)
                      ORDER BY score DESC, p.document, p.number LIMIT \(windowed.bind(window))) w
                JOIN yiana_page t ON t.ctid = w.row, \(rank) o
                ORDER BY w.score DESC, w.document, w.number
                """), as: (Int64, Int, String, Double, Bool).self, within: Self.searchTimeout)
            order = []
            pages = [:]
            for (document, number, source, score, own) in rows {
                if pages[document] == nil {
                    guard order.count < limit else { continue }
                    order.append(document)
                }
                pages[document, default: []].append((number, source, score, own))
            }
            if order.count == limit || rows.count < window { break }
            window *= 4
        }
        return (order, pages)
    }

    /// The matching documents in `sort`'s order (as the library's list orders them), and each
    /// one's matching pages, best first (at most `SearchIndex.pagesPerSortedHit`).
    private func ordered(by sort: BrowseQuery.Sort, parse: String, rank: String, ranking: String, filter: String, library: String, limit: Int,
                         pages shown: Int, sql: SQL) async throws -> ([Int64], ChosenPages) {
        var listed = sql
        let order: [Int64] = try await rows(listed.query("""
            SELECT d.id FROM yiana_document d
            WHERE d.library = \(library) AND d.id IN (SELECT p.document FROM yiana_page p, \(parse) q WHERE p.library = \(library) AND p.search @@ q) \(filter)
            ORDER BY \(Self.browseOrder(sort)) LIMIT \(listed.bind(Int64(limit)))
            """), as: Int64.self, within: Self.searchTimeout)
        guard !order.isEmpty else { return ([], [:]) }
        var paged = sql
        let ids = paged.bind(order)
        var pages: ChosenPages = [:]
        for (document, number, source, score, own) in try await rows(paged.query("""
            SELECT p.document, p.number, p.source, \(ranking)('{0.15, 0.2, 0.5, 1.0}', p.search, r, 1)::float8 AS score,
                   ts_filter(p.search, '{d}') @@ r
            FROM yiana_page p, \(parse) q, \(rank) r
            WHERE p.library = \(library) AND p.search @@ q AND p.document = ANY(\(ids))
            ORDER BY score DESC, p.document, p.number
            """), as: (Int64, Int, String, Double, Bool).self, within: Self.searchTimeout)
            where pages[document, default: []].count < max(SearchIndex.pagesPerSortedHit, shown * 4) {
            pages[document, default: []].append((number, source, score, own))
        }
        return (order, pages)
    }

    /// The hits of documents `order`, with snippets of their chosen pages (`ts_headline` of
    /// the stored text; of the title for a document only its title, tags or folder match).
    private func hits(_ order: [Int64], pages: ChosenPages, shown: Int,
                      parse: String, rank: String, library: String, sql: SQL) async throws -> [SearchHit] {
        var documents = sql
        let ids = documents.bind(order)
        var rows: [Int64: (String, String, [String], Double?, String)] = [:]
        for row in try await self.rows(documents.query("SELECT id, path, title, tags, created, status FROM yiana_document WHERE id = ANY(\(ids))"),
                                       as: (Int64, String, String, [String], Double?, String).self, within: Self.searchTimeout) {
            rows[row.0] = (row.1, row.2, row.3, row.4, row.5)
        }
        let chosen = order.flatMap { id in (pages[id] ?? []).filter(\.own).prefix(shown).map { (id, $0.number, $0.source) } }
        // How many pages of each document with a page of its own match do so.
        var counted = sql
        let owning = counted.bind(order.filter { id in (pages[id] ?? []).contains(where: \.own) })
        var matching: [Int64: Int] = [:]
        for (id, count) in try await self.rows(counted.query("""
            SELECT p.document, count(*) FROM yiana_page p, \(parse) q, \(rank) o
            WHERE p.library = \(library) AND p.document = ANY(\(owning)) AND p.search @@ q AND ts_filter(p.search, '{d}') @@ o
            GROUP BY p.document
            """), as: (Int64, Int64).self, within: Self.searchTimeout) {
            matching[id] = Int(count)
        }
        var snippets = sql
        let headline = "ts_headline('yiana_english', %@, q, \(snippets.bind(Self.headlineOptions)))"
        let chosenIDs = snippets.bind(chosen.map(\.0)), numbers = snippets.bind(chosen.map(\.1)), sources = snippets.bind(chosen.map(\.2))
        let titleIDs = snippets.bind(order.filter { id in !(pages[id] ?? []).contains(where: \.own) })
        var text: [String: String] = [:]
        for (id, number, source, snippet) in try await self.rows(snippets.query("""
            SELECT p.document, p.number, p.source, \(headline.replacingOccurrences(of: "%@", with: "p.body"))
            FROM unnest(\(chosenIDs)::int8[], \(numbers)::int8[], \(sources)::text[]) AS c(document, number, source)
            JOIN yiana_page p ON p.document = c.document AND p.number = c.number AND p.source = c.source, \(parse) q
            UNION ALL
            SELECT d.id, 0, 'none', \(headline.replacingOccurrences(of: "%@", with: "d.title || ' · ' || array_to_string(d.tags, ' ') || ' · ' || d.folder"))
            FROM yiana_document d, \(parse) q WHERE d.id = ANY(\(titleIDs))
            """), as: (Int64, Int, String, String).self, within: Self.searchTimeout) {
            text["\(id) \(number) \(source)"] = snippet
        }
        return order.compactMap { id -> SearchHit? in
            guard let document = rows[id], let found = pages[id] else { return nil }
            var hitPages = found.filter(\.own).prefix(shown).map { page in
                SearchHit.Page(number: page.number, snippet: text["\(id) \(page.number) \(page.source)"] ?? "", score: page.score,
                               source: TextSource(rawValue: page.source) ?? .none)
            }
            if hitPages.isEmpty {
                hitPages = [SearchHit.Page(number: 0, snippet: text["\(id) 0 none"] ?? document.1, score: found[0].score, source: .none)]
            }
            return SearchHit(path: document.0, title: document.1, tags: document.2, created: document.3.map { Date(timeIntervalSinceReferenceDate: $0) },
                             status: IndexStatus(rawValue: document.4) ?? .failed, score: found[0].score, pages: Array(hitPages),
                             matchingPages: matching[id] ?? 0)
        }
    }

    /// About a dozen words around the first match, matched words between the markers.
    static let headlineOptions = "StartSel=\(SearchHit.markOpen), StopSel=\(SearchHit.markClose), MaxWords=24, MinWords=10, ShortWord=2, HighlightAll=false, MaxFragments=1"

    /// The SQL narrowing hits to the options' tags (all of them, case-insensitively), folder
    /// (or below it) and dates; empty when nothing narrows.
    static func filter(_ options: SearchOptions, _ sql: inout SQL) -> String {
        var filters: [String] = []
        var tags: [String] = []
        for tag in options.tags.map({ $0.lowercased() }) where !tags.contains(tag) { tags.append(tag) }
        if !tags.isEmpty {
            filters.append("(SELECT count(DISTINCT lower(t)) FROM unnest(d.tags) t WHERE lower(t) = ANY(\(sql.bind(tags)))) = \(tags.count)")
        }
        if let folder = options.folder?.trimmingCharacters(in: CharacterSet(charactersIn: "/")), !folder.isEmpty {
            let escaped = folder.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            filters.append("(d.folder = \(sql.bind(folder)) OR d.folder LIKE \(sql.bind(escaped + "/%")))")
        }
        if let since = options.since { filters.append("d.created >= \(sql.bind(since.timeIntervalSinceReferenceDate))") }
        if let until = options.until { filters.append("d.created < \(sql.bind(until.timeIntervalSinceReferenceDate))") }
        if let document = options.document { filters.append("d.path = \(sql.bind(document))") }
        return filters.map { "AND " + $0 }.joined(separator: " ")
    }

    /// The `to_tsquery` text for what a person typed, read as the SQLite index reads it
    /// (``YianaSearch/SearchQuery``): every word must occur; a quoted phrase, and a word with
    /// punctuation inside (`A-1312/B`, `e-mail`), are their words in a row (`<->`); `inv*` a
    /// prefix (`:*`); every word a quoted lexeme, so nothing typed is an operator. Nil when
    /// nothing in it is searchable.
    public static func tsquery(_ text: String) -> String? {
        tsqueryTerms(text)?.joined(separator: " & ")
    }

    /// The terms of ``tsquery(_:)``, each a lexeme, a prefix or a phrase; nil when none.
    static func tsqueryTerms(_ text: String) -> [String]? {
        let terms = SearchQuery.terms(of: text).compactMap { term -> String? in
            let words = searchable(term.text).split(separator: " ")
            guard !words.isEmpty else { return nil }
            var parts = words.map { "'" + $0 + "'" }  // letters and digits only: nothing to escape
            if term.prefix { parts[parts.count - 1] += ":*" }
            return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " <-> ") + ")"
        }
        return terms.isEmpty ? nil : terms
    }
}

/// A statement's text and its bound values, built up together (`$1`, `$2`, … in order).
struct SQL: Sendable {
    private var bindings = PostgresBindings()

    /// The placeholder of `value`, bound as the next parameter.
    mutating func bind<T: PostgresNonThrowingEncodable & Sendable>(_ value: T) -> String {
        bindings.append(value)
        return "$\(bindings.count)"
    }

    /// The statement `text` with the values bound so far.
    mutating func query(_ text: String) -> PostgresQuery {
        PostgresQuery(unsafeSQL: text, binds: bindings)
    }
}

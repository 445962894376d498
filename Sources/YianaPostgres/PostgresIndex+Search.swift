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
        // PostgreSQL takes no NUL in text, and no stored tag, folder or path holds one: such a
        // filter matches nothing; in the query a NUL parts words as any other non-letter does.
        if options.tags.contains(where: { $0.contains("\u{0}") }) || [options.folder, options.document].contains(where: { $0?.contains("\u{0}") == true }) {
            return []
        }
        guard !options.advanced else {
            guard let parsed = Parsed(query, advanced: true) else { throw SearchError.nothingToSearch }
            return try await search(parsed, options: options)
        }
        return try await searchForgiving(query, options: options)
    }

    /// The hits of `parsed` (what a person typed, with the words it also matches).
    func search(_ parsed: Parsed, options: SearchOptions) async throws -> [SearchHit] {
        var sql = parsed.sql
        let filter = Self.filter(options, &sql)
        let library = sql.bind(self.library)
        let limit = max(1, options.limit), shown = max(1, options.pages)
        let found = if let sort = options.sort {
            try await ordered(by: sort, parsed, filter: filter, library: library, limit: limit, pages: shown, sql: sql)
        } else {
            try await best(parsed, filter: filter, library: library, limit: limit, pages: shown, sql: sql)
        }
        guard !found.order.isEmpty else { return [] }
        return try await hits(found, shown: shown, parsed)
    }

    /// What a person typed as a statement's parts, bound first and always in this order (so
    /// that a statement's text is the same for every search of one kind, and prepared once per
    /// connection, ``FixedStatements``): `q` what a page must match, `r` what ranks it, `o`
    /// what its own text must hold to be shown as a matching page, `h` what its header (title,
    /// tags, folder) would hold for the header to be why it matches.
    struct Parsed {
        var sql = SQL()
        /// `to_tsquery(…)` of `q`, `r`, `o` and `h`.
        let parse: String, rank: String, ownQuery: String, headerQuery: String
        /// `ts_rank`, or `ts_rank_cd` for a phrase (its whole matches).
        let ranking: String
        let advanced: Bool

        /// `alternatives`: for each of the query's terms (``SearchQuery/terms(of:)``), the words it
        /// also matches (``Approximate``).
        init?(_ query: String, advanced: Bool, alternatives: [[String]] = []) {
            self.advanced = advanced
            if advanced {
                parse = "websearch_to_tsquery('yiana_english', \(sql.bind(Vocabulary.folded(query).replacingOccurrences(of: "\u{0}", with: " "))))"
                rank = parse
                ownQuery = parse
                headerQuery = parse
                ranking = query.contains("\"") ? "ts_rank_cd" : "ts_rank"
                pageByPage = true
            } else {
                guard let words = PostgresIndex.words(of: query, alternatives: alternatives) else { return nil }
                let terms = PostgresIndex.lexemes(words)
                // With alternatives, one of them at least (as the SQLite index asks).
                let any = words.flatMap(\.or).map { PostgresIndex.phrase($0) }
                parse = "to_tsquery('yiana_english', \(sql.bind((terms + (any.isEmpty ? [] : ["(" + any.joined(separator: " | ") + ")"])).joined(separator: " & "))))"
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
                // The page's own text: any of the words as the page's text (weight D) holds it.
                // Read in the word list as it is; `ts_filter` copies the list first (twice the time).
                ownQuery = "to_tsquery('yiana_english', \(sql.bind(PostgresIndex.lexemes(words, weight: "D").joined(separator: " | "))))"
                headerQuery = "to_tsquery('yiana_english', \(sql.bind(PostgresIndex.lexemes(words, weight: "ABC").joined(separator: " | "))))"
                let phrase = words.contains { $0.words.count > 1 }
                ranking = phrase ? "ts_rank_cd" : "ts_rank"
                pageByPage = phrase
            }
        }

        /// Whether every document counts its matching pages one by one: a phrase in the query,
        /// or an advanced query (``recount(_:)``).
        private let pageByPage: Bool

        /// Whether a document whose page has the word list `search` (`h` in scope) must count
        /// its matching pages one by one (``own(_:)``): when its title, tags or folder hold a
        /// word, they may be all a page matches by. Otherwise every page matching `q` holds a
        /// word of its own: the pages are counted as they match, from the index. (A phrase
        /// can match across the header and the text; an advanced query's `-word` and `or` are
        /// not "every word": those are always counted one by one.)
        func recount(_ search: String) -> String {
            pageByPage ? "true" : "\(search) @@ h"
        }

        /// Whether the page whose word list is `search` holds a word of its own (`o` in scope):
        /// for an advanced query, the whole query on its text.
        func own(_ search: String) -> String {
            advanced ? "ts_filter(\(search), '{d}') @@ o" : "\(search) @@ o"
        }
    }

    typealias ChosenPages = [Int64: [(number: Int, source: String, score: Double, own: Bool)]]

    /// The documents found, best first (or in the sort's order); their best pages; and the
    /// documents every matching page of which holds a word of its own (``Parsed/recount(_:)``).
    struct Found {
        var order: [Int64] = []
        var pages: ChosenPages = [:]
        var plain: Set<Int64> = []
    }

    /// The documents whose pages match best, and those pages, best first; `own`: the page's own
    /// text holds one of the words (as the SQLite index tells it), not only the title, tags or
    /// folder every page of a document repeats.
    private func best(_ parsed: Parsed, filter: String, library: String, limit: Int, pages shown: Int,
                      sql: SQL) async throws -> Found {
        var window = max(limit * 8, 200, shown * 4)
        var found = Found()
        while true {
            var windowed = sql
            let rows = try await self.rows(Self.window(parsed, filter: filter, library: library, window: window, &windowed),
                                           as: (Int64, Int, String, Double, Bool, Bool).self, within: Self.searchTimeout)
            found = Found()
            for (document, number, source, score, own, recount) in rows {
                if found.pages[document] == nil {
                    guard found.order.count < limit else { continue }
                    found.order.append(document)
                    if !recount { found.plain.insert(document) }
                }
                found.pages[document, default: []].append((number, source, score, own))
            }
            if found.order.count == limit || rows.count < window { break }
            window *= 4
        }
        return found
    }

    /// The best `window` matching pages, best first, each with whether it holds a word of its
    /// own, and whether its document must count its pages one by one (``Parsed/recount(_:)``).
    static func window(_ parsed: Parsed, filter: String, library: String, window: Int, _ sql: inout SQL) -> PostgresQuery {
        // The documents only for what they narrow by (each page knows its library). The pages'
        // word lists are not carried through the top-k sort: the window's rows are read again by
        // their ctid to tell their own text (a search in 16,000 pages took half the time).
        // (Ranking into a table of every match, to choose the documents and count their pages
        // in one pass, saved the long manuals a second pass but cost 1.3-6x on 100,000 one-page
        // documents, where a common word matches 80,000 pages.)
        let join = filter.isEmpty ? "" : "JOIN yiana_document d ON d.id = p.document"
        return sql.query("""
            SELECT w.document, w.number, w.source, w.score, \(parsed.own("t.search")), \(parsed.recount("t.search"))
            FROM (SELECT p.ctid AS row, p.document, p.number, p.source,
                         \(parsed.ranking)('{0.15, 0.2, 0.5, 1.0}', p.search, r, 1)::float8 AS score
                  FROM yiana_page p \(join), \(parsed.parse) q, \(parsed.rank) r
                  WHERE p.library = \(library) AND p.search @@ q \(filter)
                  ORDER BY score DESC, p.document, p.number LIMIT \(sql.bind(window))) w
            JOIN yiana_page t ON t.ctid = w.row, \(parsed.ownQuery) o, \(parsed.headerQuery) h
            ORDER BY w.score DESC, w.document, w.number
            """)
    }

    /// The matching documents in `sort`'s order (as the library's list orders them), and each
    /// one's matching pages, best first (at most `SearchIndex.pagesPerSortedHit`).
    private func ordered(by sort: BrowseQuery.Sort, _ parsed: Parsed, filter: String, library: String, limit: Int,
                         pages shown: Int, sql: SQL) async throws -> Found {
        var listed = sql
        let order: [Int64] = try await rows(listed.query("""
            SELECT d.id FROM yiana_document d
            WHERE d.library = \(library) AND d.id IN (SELECT p.document FROM yiana_page p, \(parsed.parse) q WHERE p.library = \(library) AND p.search @@ q) \(filter)
            ORDER BY \(Self.browseOrder(sort)) LIMIT \(listed.bind(Int64(limit)))
            """), as: Int64.self, within: Self.searchTimeout)
        guard !order.isEmpty else { return Found() }
        var paged = sql
        let ids = paged.bind(order)
        var pages: ChosenPages = [:]
        for (document, number, source, score, own) in try await rows(paged.query("""
            SELECT p.document, p.number, p.source, \(parsed.ranking)('{0.15, 0.2, 0.5, 1.0}', p.search, r, 1)::float8 AS score,
                   \(parsed.own("p.search"))
            FROM yiana_page p, \(parsed.parse) q, \(parsed.rank) r, \(parsed.ownQuery) o
            WHERE p.library = \(library) AND p.search @@ q AND p.document = ANY(\(ids))
            ORDER BY score DESC, p.document, p.number
            """), as: (Int64, Int, String, Double, Bool).self, within: Self.searchTimeout)
            where pages[document, default: []].count < max(SearchIndex.pagesPerSortedHit, shown * 4) {
            pages[document, default: []].append((number, source, score, own))
        }
        return Found(order: order, pages: pages)
    }

    /// The hits of documents `order`, with snippets of their chosen pages (`ts_headline` of
    /// the stored text; of the title for a document only its title, tags or folder match), in
    /// one statement: the documents' rows, how many pages of each match, the snippets.
    private func hits(_ found: Found, shown: Int, _ parsed: Parsed) async throws -> [SearchHit] {
        let (order, pages) = (found.order, found.pages)
        let chosen = order.flatMap { id in (pages[id] ?? []).filter(\.own).prefix(shown).map { (id, Int64($0.number), $0.source) } }
        // How many pages match of each document with a page of its own among the best.
        let owning = order.filter { id in (pages[id] ?? []).contains(where: \.own) }
        var sql = parsed.sql
        let statement = Self.details(parsed, order: order, owning: owning, plain: owning.filter(found.plain.contains), chosen: chosen, &sql)
        typealias Row = (Int64, String, String, [String], Double?, String, Int64, [Int64], [String], [String], String?)
        var rows: [Int64: Row] = [:]
        for row in try await self.rows(statement, as: Row.self, within: Self.searchTimeout) { rows[row.0] = row }
        return order.compactMap { id -> SearchHit? in
            guard let row = rows[id], let best = pages[id] else { return nil }
            let (_, path, title, tags, created, status, matching, numbers, sources, snippets, titleSnippet) = row
            var text: [String: String] = [:]
            for (index, number) in numbers.enumerated() where index < sources.count && index < snippets.count {
                text["\(number) \(sources[index])"] = snippets[index]
            }
            var hitPages = best.filter(\.own).prefix(shown).map { page in
                SearchHit.Page(number: page.number, snippet: text["\(page.number) \(page.source)"] ?? "", score: page.score,
                               source: TextSource(rawValue: page.source) ?? .none)
            }
            if hitPages.isEmpty {
                hitPages = [SearchHit.Page(number: 0, snippet: titleSnippet ?? title, score: best[0].score, source: .none)]
            }
            return SearchHit(path: path, title: title, tags: tags, created: created.map { Date(timeIntervalSinceReferenceDate: $0) },
                             status: IndexStatus(rawValue: status) ?? .failed, score: best[0].score, pages: Array(hitPages),
                             matchingPages: Int(matching))
        }
    }

    /// Documents `order`'s rows; for those in `owning`, how many of their pages match with a word
    /// of their own (of those in `plain`, every page that matches: counted from the index, no
    /// page's word list read); the snippets of the `chosen` pages, in their order; for a
    /// document none of whose pages is chosen, the snippet of its title, tags and folder.
    static func details(_ parsed: Parsed, order: [Int64], owning: [Int64], plain: [Int64], chosen: [(Int64, Int64, String)],
                        _ sql: inout SQL) -> PostgresQuery {
        let options = sql.bind(headlineOptions)
        return sql.query("""
            WITH counted AS (
                SELECT p.document, count(*) AS matching FROM yiana_page p, \(parsed.parse) q, \(parsed.ownQuery) o
                WHERE p.document = ANY(\(sql.bind(owning))) AND p.search @@ q AND (p.document = ANY(\(sql.bind(plain))) OR \(parsed.own("p.search")))
                GROUP BY p.document),
            shown AS (
                SELECT c.document, array_agg(c.number ORDER BY c.k) AS numbers, array_agg(c.source ORDER BY c.k) AS sources,
                       array_agg(ts_headline('yiana_english', p.body, q, \(options)) ORDER BY c.k) AS snippets
                FROM unnest(\(sql.bind(chosen.map(\.0)))::int8[], \(sql.bind(chosen.map(\.1)))::int8[], \(sql.bind(chosen.map(\.2)))::text[])
                     WITH ORDINALITY AS c(document, number, source, k)
                JOIN yiana_page p ON p.document = c.document AND p.number = c.number AND p.source = c.source, \(parsed.parse) q
                GROUP BY c.document)
            SELECT d.id, d.path, d.title, d.tags, d.created, d.status, coalesce(n.matching, 0),
                   coalesce(s.numbers, '{}'), coalesce(s.sources, '{}'), coalesce(s.snippets, '{}'),
                   CASE WHEN s.document IS NULL
                        THEN ts_headline('yiana_english', d.title || ' · ' || array_to_string(d.tags, ' ') || ' · ' || d.folder, q, \(options)) END
            FROM yiana_document d LEFT JOIN counted n ON n.document = d.id LEFT JOIN shown s ON s.document = d.id, \(parsed.parse) q
            WHERE d.id = ANY(\(sql.bind(order)))
            """)
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
        if !options.excludedPaths.isEmpty { filters.append("d.path <> ALL(\(sql.bind(options.excludedPaths)))") }
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
    /// `weight`: each lexeme only of that weight (`D`: a page's own text).
    static func tsqueryTerms(_ text: String, weight: String = "") -> [String]? {
        words(of: text).map { lexemes($0, weight: weight) }
    }

    /// The searchable words of each term of `text` (several: a phrase), and whether its last
    /// is a prefix; nil when there are none.
    static func words(of text: String, alternatives: [[String]] = []) -> [Term]? {
        let terms = SearchQuery.terms(of: text).enumerated().compactMap { index, term -> Term? in
            let words = Vocabulary.searchable(term.text).split(separator: " ")
            return words.isEmpty ? nil : Term(words: words, prefix: term.prefix, or: index < alternatives.count ? alternatives[index] : [])
        }
        return terms.isEmpty ? nil : terms
    }

    /// A term of the query: its words (several: a phrase), whether the last is a prefix, and the
    /// words it also matches (``Approximate``; letters and digits only, as the vocabulary holds
    /// them; several, parted by spaces: a phrase).
    struct Term {
        let words: [Substring]
        let prefix: Bool
        var or: [String] = []
    }

    /// Each term of `terms` as `to_tsquery` reads it: a lexeme, a prefix (`:*`) or a phrase
    /// (`<->`), each lexeme of `weight` only when one is given.
    /// Words parted by spaces as `to_tsquery` reads them: a lexeme, or a phrase (`<->`); each
    /// of `weight` only when one is given.
    static func phrase(_ words: String, weight: String = "") -> String {
        let parts = words.split(separator: " ").map { "'" + $0 + "'" + (weight.isEmpty ? "" : ":" + weight) }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " <-> ") + ")"
    }

    static func lexemes(_ terms: [Term], weight: String = "") -> [String] {
        terms.map { term in
            // Letters and digits only: nothing to escape.
            let lexeme = { (word: Substring) in "'" + word + "'" + (weight.isEmpty ? "" : ":" + weight) }
            var parts = term.words.map(lexeme)
            if term.prefix { parts[parts.count - 1] = "'" + term.words[term.words.count - 1] + "':*" + weight }
            let typed = parts.count == 1 ? parts[0] : "(" + parts.joined(separator: " <-> ") + ")"
            let alternatives = term.or.map { phrase($0, weight: weight) }
            return term.or.isEmpty ? typed : "(" + ([typed] + alternatives).joined(separator: " | ") + ")"
        }
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

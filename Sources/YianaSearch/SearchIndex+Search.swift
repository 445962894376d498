import Foundation
import YianaSQLite

/// Filters and limits for a search.
public struct SearchOptions: Sendable {
    /// Only documents with every one of these tags (case-insensitive).
    public var tags: [String] = []
    /// Only documents in this folder or below it (relative to the library).
    public var folder: String?
    /// Only documents created at or after this moment.
    public var since: Date?
    /// Only documents created before this moment.
    public var until: Date?
    /// At most this many documents.
    public var limit = 20
    /// Pass the query to FTS5 as it is (operators, column filters) instead of as plain text.
    public var advanced = false
    /// The matching documents newest, oldest or by title first; nil: the best first.
    public var sort: BrowseQuery.Sort?
    /// The best matching pages given with each document, with their snippets (at least 1);
    /// ``SearchHit/matchingPages`` counts them all. What a results page shows of a document:
    /// its others come on demand (``document`` and a larger count).
    public var pages = 3
    /// Only the document at this path (relative to the library): its matching pages, for a
    /// results page's "more pages".
    public var document: String?
    /// Match every word exactly: no word found through a slip (``Approximate``).
    public var exact = false
    /// Not the documents at these paths: the search of the words found through a slip leaves
    /// out those the search of the words as typed found (so that only the documents it adds
    /// are ranked and given snippets).
    public var excludedPaths: [String] = []

    public init() {}
}

/// One document that matched, with its matching pages, best first.
public struct SearchHit: Codable, Sendable {
    public struct Page: Codable, Sendable {
        /// 1-based page number; 0 when the match is on no one page: the app's OCR text of the
        /// whole document (`source` ocr), or only the title, tags or folder (`source` none;
        /// then this is the only entry, and the snippet shows the match).
        public let number: Int
        /// Text around the match, matched words between `SearchHit.markOpen` and `markClose`.
        public let snippet: String
        /// Higher is better (bm25, sign flipped).
        public let score: Double
        public let source: TextSource

        public init(number: Int, snippet: String, score: Double, source: TextSource) {
            self.number = number
            self.snippet = snippet
            self.score = score
            self.source = source
        }
    }

    public let path: String
    public let title: String
    public let tags: [String]
    public let created: Date?
    public let status: IndexStatus
    /// The best page's score.
    public let score: Double
    /// The best matching pages, best first (``SearchOptions/pages`` of them at most).
    public let pages: [Page]
    /// How many of the document's pages match by their own text, those given and the others;
    /// 0 when only its title, tags or folder match.
    public let matchingPages: Int
    /// The words of the query this document matched only approximately, each with the words
    /// of the document that it matched (``Approximate``); empty when it matched every word as
    /// typed. Such documents come after all those that match exactly.
    public internal(set) var approximate: [Approximation] = []

    /// A word of the query and the words it matched approximately (`Marlowe` ~ `mariowe`).
    public struct Approximation: Codable, Sendable, Equatable {
        /// As typed.
        public let word: String
        /// As the index folds them (lower case, no accents), nearest first.
        public let matches: [String]

        public init(word: String, matches: [String]) {
            self.word = word
            self.matches = matches
        }
    }

    public init(path: String, title: String, tags: [String], created: Date?, status: IndexStatus, score: Double, pages: [Page],
                matchingPages: Int? = nil) {
        self.path = path
        self.title = title
        self.tags = tags
        self.created = created
        self.status = status
        self.score = score
        self.pages = pages
        self.matchingPages = matchingPages ?? pages.filter { $0.number > 0 || $0.source != .none }.count
    }

    /// The markers around matched words in snippets.
    public static let markOpen = "\u{2}", markClose = "\u{3}"
}

/// Why a search could not run.
public enum SearchError: Error, Equatable, CustomStringConvertible {
    case nothingToSearch
    case invalidAdvancedQuery(String)
    case indexNeedsUpdate

    public var description: String {
        switch self {
        case .nothingToSearch:
            "the query has no words to search for."
        case .invalidAdvancedQuery(let detail):
            "the advanced (FTS5) query is not valid: \(detail). Leave out --fts to search for the words as typed."
        case .indexNeedsUpdate:
            "the search index was made by another version of yiana; run `yiana index` to update it."
        }
    }
}

extension SearchIndex {
    /// Documents matching `query`, best first; each with its matching pages, best first.
    /// Titles weigh most, then tags, folder names, and page text.
    /// - Throws: ``SearchError``; a database error only if the index itself is broken.
    public func search(_ query: String, options: SearchOptions = SearchOptions()) throws -> [SearchHit] {
        try searchNow(query, options: options)
    }

    /// ``search(_:options:)``, by a name the async one (``IndexStore``) can call.
    func searchNow(_ query: String, options: SearchOptions) throws -> [SearchHit] {
        guard options.advanced else { return try searchForgiving(query, options: options) }
        do {
            return try pool.read { db in try Self.run(query, own: nil, options: options, db) }
        } catch let error as SQLError where error.isStatementError {
            throw SearchError.invalidAdvancedQuery(error.message ?? "syntax error")
        }
    }

    /// The SQL that narrows hits to the options' tags, folder and dates (joined with the
    /// document table), and its arguments; empty when nothing narrows.
    static func filterClause(_ options: SearchOptions) -> (sql: String, arguments: SQLArguments) {
        var filters: [String] = []
        var arguments: SQLArguments = []
        // Every tag, as one subquery however many there are (one per tag nested past SQLite's
        // expression depth at a thousand); `tag` compares case-insensitively (NOCASE).
        var tags: [String] = []
        for tag in options.tags where !tags.contains(where: { $0.caseInsensitiveCompare(tag) == .orderedSame }) { tags.append(tag) }
        if tags.count == 1 {
            filters.append("d.id IN (SELECT document FROM document_tag WHERE tag = ?)")
        } else if !tags.isEmpty {
            let marks = Array(repeating: "?", count: tags.count).joined(separator: ", ")
            filters.append("d.id IN (SELECT document FROM document_tag WHERE tag IN (\(marks)) GROUP BY document HAVING count(DISTINCT tag) = \(tags.count))")
        }
        arguments.append(contentsOf: tags.map { $0 })
        if let folder = options.folder?.trimmingCharacters(in: CharacterSet(charactersIn: "/")), !folder.isEmpty {
            filters.append("(d.folder = ? OR d.folder LIKE ? ESCAPE '\\')")
            let escaped = folder.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            arguments.append(contentsOf: [folder, escaped + "/%"])
        }
        if let since = options.since {
            filters.append("d.created >= ?")
            arguments.append(contentsOf: [since.timeIntervalSinceReferenceDate])
        }
        if let until = options.until {
            filters.append("d.created < ?")
            arguments.append(contentsOf: [until.timeIntervalSinceReferenceDate])
        }
        if let document = options.document {
            filters.append("d.path = ?")
            arguments.append(contentsOf: [document])
        }
        if !options.excludedPaths.isEmpty {
            filters.append("d.path NOT IN (SELECT value FROM json_each(?))")
            arguments.append(contentsOf: [jsonStrings(options.excludedPaths)])
        }
        return (filters.isEmpty ? "" : "AND " + filters.joined(separator: " AND "), arguments)
    }

    static func run(_ match: String, own: String?, options: SearchOptions, _ db: SQLConnection) throws -> [SearchHit] {
        let (filter, filterArguments) = filterClause(options)
        var arguments: SQLArguments = [match]
        arguments.append(contentsOf: filterArguments)
        let shown = max(1, options.pages)

        let (order, pageRows) = try options.sort.map {
            try ordered(match, by: $0, filter: filter, arguments: arguments, limit: max(1, options.limit), pages: shown, db)
        } ?? best(match, filter: filter, arguments: arguments, limit: max(1, options.limit), pages: shown, db)
        guard !order.isEmpty else { return [] }

        var documents: [Int64: SQLRow] = [:]
        let documentRows = try db.statement(sql: "SELECT id, path, title, tags, created, status FROM document WHERE id IN (SELECT value FROM json_each(?))")
        for row in try documentRows.rows(arguments: [jsonList(order)]) {
            documents[row["id"]] = row
        }

        // Of each document's candidate pages, those whose own text matches (not only the title,
        // tags or folder every page row repeats), best first: the first `shown` are given, with
        // snippets, and all of the document's are counted. A document with none gets one
        // title-only page. An advanced query's own pages are known from their snippets.
        let candidates = order.flatMap { pageRows[$0] ?? [] }.map(\.row)
        // One pass of the own-text match over the index: how many pages of each document match
        // by their own text, and which of the candidates do.
        var ownRows: Set<Int64>? = nil
        var matching: [Int64: Int] = [:]
        if let own {
            var found = Set<Int64>()
            for row in try db.statement(sql: """
                SELECT page.rowid >> \(pageBits) AS document, count(*) AS matching,
                       group_concat(page.rowid) FILTER (WHERE +page.rowid IN (SELECT value FROM json_each(?2))) AS candidates
                FROM page WHERE page MATCH ?1 AND (page.rowid >> \(pageBits)) IN (SELECT value FROM json_each(?3)) GROUP BY 1
                """).rows(arguments: [own, jsonList(candidates), jsonList(order)]) {
                matching[row["document"]] = row["matching"]
                let list: String? = row["candidates"]
                for rowid in (list ?? "").split(separator: ",") { if let rowid = Int64(rowid) { found.insert(rowid) } }
            }
            ownRows = found
        }
        var chosen: [Int64: [(row: Int64, score: Double)]] = [:]
        for id in order {
            let rows = pageRows[id] ?? []
            if let ownRows {
                let mine = rows.filter { ownRows.contains($0.row) }
                chosen[id] = mine.isEmpty ? Array(rows.prefix(1)) : Array(mine.prefix(shown))
            } else {
                chosen[id] = rows
            }
        }
        let snippets = try Self.snippets(of: order.flatMap { chosen[$0] ?? [] }.map(\.row), own: ownRows, match: match, db)
        return order.compactMap { id in
            documents[id].map { hit($0, pages: chosen[id] ?? [], own: ownRows, shown: shown, matching: ownRows == nil ? nil : matching[id] ?? 0, snippets: snippets) }
        }
    }

    /// `values` as a JSON array, for `json_each(?)`: one statement text whatever the list,
    /// so that it is prepared once per connection.
    static func jsonList(_ values: [Int64]) -> String {
        "[" + values.map(String.init).joined(separator: ",") + "]"
    }

    /// The documents whose pages match best, and those pages (rowid, score), best first.
    private static func best(_ match: String, filter: String, arguments: SQLArguments, limit: Int, pages: Int,
                             _ db: SQLConnection) throws -> ([Int64], [Int64: [(row: Int64, score: Double)]]) {
        // The best pages first: a narrow top-k sort (page rowid, document, score), so that
        // neither every hit is grouped nor wide rows are carried through the sort. Their
        // documents follow in order; should the window hold too few, it widens.
        // The document comes from the page's rowid (``SearchIndex/pageRowids(of:)``), not from
        // the `document` column: reading a column of the FTS5 table fetches each matching
        // page's whole stored row, text and all, before the sort.
        let document = "(page.rowid >> \(pageBits))"
        let join = filter.isEmpty ? "" : "JOIN document d ON d.id = \(document)"
        var window = max(limit * 8, 200, pages * 4)
        var order: [Int64] = []
        var pageRows: [Int64: [(row: Int64, score: Double)]] = [:]
        while true {
            var windowArguments = arguments
            windowArguments.append(contentsOf: [window])
            let rows = try db.statement(sql: """
                SELECT page.rowid AS pageRow, \(document) AS document, bm25(page, \(bm25Weights)) AS score
                FROM page \(join) WHERE page MATCH ? \(filter)
                ORDER BY score LIMIT ?
                """).rows(arguments: windowArguments)
            order = []
            pageRows = [:]
            for row in rows {
                let document: Int64 = row["document"]
                if pageRows[document] == nil {
                    guard order.count < limit else { continue }
                    order.append(document)
                }
                pageRows[document, default: []].append((row["pageRow"], -(row["score"] as Double)))
            }
            if order.count == limit || rows.count < window { break }
            window *= 4
        }
        return (order, pageRows)
    }

    /// The matching documents in `sort`'s order (as the library's list orders them), and each
    /// one's matching pages, best first (at most ``pagesPerSortedHit``).
    private static func ordered(_ match: String, by sort: BrowseQuery.Sort, filter: String, arguments: SQLArguments, limit: Int, pages: Int,
                                _ db: SQLConnection) throws -> ([Int64], [Int64: [(row: Int64, score: Double)]]) {
        var listed = arguments
        listed.append(contentsOf: [limit])
        let order = try db.values(Int64.self, sql: """
            SELECT d.id FROM document d WHERE d.id IN (SELECT page.rowid >> \(pageBits) FROM page WHERE page MATCH ?) \(filter)
            ORDER BY \(browseOrder(sort)) LIMIT ?
            """, arguments: listed)
        guard !order.isEmpty else { return ([], [:]) }
        var pageRows: [Int64: [(row: Int64, score: Double)]] = [:]
        let rows = try db.rows(sql: """
            SELECT page.rowid AS pageRow, (page.rowid >> \(pageBits)) AS document, bm25(page, \(bm25Weights)) AS score
            FROM page WHERE page MATCH ? AND (page.rowid >> \(pageBits)) IN (\(order.map(String.init).joined(separator: ","))) ORDER BY score
            """, arguments: [match])
        for row in rows {
            let document: Int64 = row["document"]
            if pageRows[document, default: []].count < max(pagesPerSortedHit, pages * 4) { pageRows[document, default: []].append((row["pageRow"], -(row["score"] as Double))) }
        }
        return (order, pageRows)
    }

    /// The candidate pages of each document when the documents are sorted by date or title
    /// (at least; four times the pages asked for).
    public static let pagesPerSortedHit = 20

    /// Snippets of the chosen pages, by rowid (`rowid`, `number`, `source`, `body`): of its own
    /// text for a page in `own`, else of its best column (the title, tags or folder that
    /// matched); with no `own` known (an advanced query), `body` of its text and `best` of its
    /// best column. `+rowid`: the match is run once and its pages filtered by rowid; a plain
    /// `rowid IN` would run it again for every chosen page, which for a short prefix costs ten
    /// times the search. A prefix (`re*`) can stand for hundreds of words whose lists FTS5
    /// merges again over the whole index even so (10 ms of `re*` in 10,000 documents); so for
    /// a prefix the chosen pages alone are copied into an in-memory FTS5 table of the same
    /// columns and tokenizer, where the match costs next to nothing. A snippet depends only on
    /// its row and the query: it is the same either way.
    private static func snippets(of rowids: [Int64], own: Set<Int64>?, match: String, _ db: SQLConnection) throws -> [Int64: SQLRow] {
        let columns = own == nil
            ? "snippet(page, 1, char(2), char(3), '…', 12) AS body, snippet(page, -1, char(2), char(3), '…', 12) AS best"
            : """
              CASE WHEN +rowid IN (SELECT value FROM json_each(?3)) THEN snippet(page, 1, char(2), char(3), '…', 12)
                   ELSE snippet(page, -1, char(2), char(3), '…', 12) END AS body
              """
        let select = "SELECT rowid, number, source, \(columns) FROM page WHERE page MATCH ?1"
        // ?2 the chosen rows, ?3 the own ones (SQLite counts parameters up to the highest used).
        let arguments: SQLArguments = own.map { [match, jsonList(rowids), jsonList(Array($0))] } ?? [match, jsonList(rowids)]
        let rows: [SQLRow]
        if match.contains("*") {
            rows = try SQLDatabase().write { scratch in
                try scratch.execute(sql: "CREATE VIRTUAL TABLE page USING fts5(\(columnsAndTokenizer))")
                let insert = try scratch.makeStatement(sql: """
                    INSERT INTO page (rowid, title, body, tags, folder, document, number, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """)
                let pages = try db.statement(sql: """
                    SELECT rowid, title, body, tags, folder, document, number, source FROM page WHERE rowid IN (SELECT value FROM json_each(?))
                    """).cursor(arguments: [jsonList(rowids)])
                while let page = try pages.next() {
                    try insert.execute(arguments: page.values)
                }
                return try scratch.rows(sql: select, arguments: own == nil ? [match] : arguments)
            }
        } else {
            rows = try db.statement(sql: select + " AND +rowid IN (SELECT value FROM json_each(?2))").rows(arguments: arguments)
        }
        var byRow: [Int64: SQLRow] = [:]
        for row in rows { byRow[row["rowid"]] = row }
        return byRow
    }

    /// One document's hit: its pages whose own text matches, best first (`shown` at most), or
    /// (when only its title, tags or folder match) one title-only page; `matching`: how many
    /// pages match by their own text (nil: count those found here).
    private static func hit(_ document: SQLRow, pages pageRows: [(row: Int64, score: Double)], own: Set<Int64>?, shown: Int, matching: Int?,
                            snippets: [Int64: SQLRow]) -> SearchHit {
        var pages: [SearchHit.Page] = []
        var titleOnly: SearchHit.Page? = nil
        for (rowid, score) in pageRows {
            guard let row = snippets[rowid] else { continue }
            let body: String = row["body"] ?? ""
            if own.map({ $0.contains(rowid) }) ?? body.contains(SearchHit.markOpen) {
                // The page's own text matches: list it.
                pages.append(SearchHit.Page(number: row["number"], snippet: body, score: score,
                                            source: TextSource(rawValue: row["source"]) ?? .none))
            } else if titleOnly == nil {
                // Only the title, tags or folder (on every page row) match.
                titleOnly = SearchHit.Page(number: 0, snippet: (own == nil ? row["best"] : row["body"]) ?? "", score: score, source: .none)
            }
        }
        let found = pages.count
        if pages.isEmpty, let titleOnly { pages = [titleOnly] }
        let tags = (try? JSONDecoder().decode([String].self, from: Data((document["tags"] as String).utf8))) ?? []
        let created: Double? = document["created"]
        return SearchHit(path: document["path"], title: document["title"], tags: tags,
                         created: created.map { Date(timeIntervalSinceReferenceDate: $0) },
                         status: IndexStatus(rawValue: document["status"]) ?? .failed,
                         score: pageRows.first?.score ?? 0, pages: Array(pages.prefix(shown)), matchingPages: matching ?? found)
    }
}

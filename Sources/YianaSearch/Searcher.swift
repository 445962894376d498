import Foundation
import GRDB

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

    public init() {}
}

/// One document that matched, with its matching pages, best first.
public struct SearchHit: Codable, Sendable {
    public struct Page: Codable, Sendable {
        /// 1-based page number; 0 when only the title, tags or folder matched (then this is
        /// the only entry, and the snippet shows the match).
        public let number: Int
        /// Text around the match, matched words between `SearchHit.markOpen` and `markClose`.
        public let snippet: String
        /// Higher is better (bm25, sign flipped).
        public let score: Double
        public let source: TextSource
    }

    public let path: String
    public let title: String
    public let tags: [String]
    public let created: Date?
    public let status: IndexStatus
    /// The best page's score.
    public let score: Double
    /// Matching pages, best first.
    public let pages: [Page]

    /// The markers around matched words in snippets.
    public static let markOpen = "\u{2}", markClose = "\u{3}"
}

/// Why a search could not run.
public enum SearchError: Error, Equatable, CustomStringConvertible {
    case nothingToSearch
    case invalidAdvancedQuery(String)

    public var description: String {
        switch self {
        case .nothingToSearch:
            "the query has no words to search for."
        case .invalidAdvancedQuery(let detail):
            "the advanced (FTS5) query is not valid: \(detail). Leave out --fts to search for the words as typed."
        }
    }
}

extension SearchIndex {
    /// Documents matching `query`, best first; each with its matching pages, best first.
    /// Titles weigh most, then tags, folder names, and page text.
    /// - Throws: ``SearchError``; a database error only if the index itself is broken.
    public func search(_ query: String, options: SearchOptions = SearchOptions()) throws -> [SearchHit] {
        let match: String
        if options.advanced {
            match = query
        } else {
            guard let expression = SearchQuery.fts5(query) else { throw SearchError.nothingToSearch }
            match = expression
        }
        do {
            return try pool.read { db in try Self.run(match, options: options, db) }
        } catch let error as DatabaseError where options.advanced && error.resultCode == .SQLITE_ERROR {
            throw SearchError.invalidAdvancedQuery(error.message ?? "syntax error")
        }
    }

    private static func run(_ match: String, options: SearchOptions, _ db: Database) throws -> [SearchHit] {
        var filters: [String] = []
        var arguments: StatementArguments = [match]
        for tag in options.tags {
            filters.append("d.id IN (SELECT document FROM document_tag WHERE tag = ?)")
            _ = arguments.append(contentsOf: [tag])
        }
        if let folder = options.folder?.trimmingCharacters(in: CharacterSet(charactersIn: "/")), !folder.isEmpty {
            filters.append("(d.folder = ? OR d.folder LIKE ? ESCAPE '\\')")
            let escaped = folder.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
            _ = arguments.append(contentsOf: [folder, escaped + "/%"])
        }
        if let since = options.since {
            filters.append("d.created >= ?")
            _ = arguments.append(contentsOf: [since.timeIntervalSinceReferenceDate])
        }
        if let until = options.until {
            filters.append("d.created < ?")
            _ = arguments.append(contentsOf: [until.timeIntervalSinceReferenceDate])
        }
        _ = arguments.append(contentsOf: [max(1, options.limit)])
        let filter = filters.isEmpty ? "" : "WHERE " + filters.joined(separator: " AND ")

        // The best documents first, by their best page.
        let documents = try Row.fetchAll(db, sql: """
            WITH hits AS MATERIALIZED (SELECT document, bm25(page, \(bm25Weights)) AS score FROM page WHERE page MATCH ?)
            SELECT d.id, d.path, d.title, d.tags, d.created, d.status, MIN(hits.score) AS best
            FROM hits JOIN document d ON d.id = hits.document
            \(filter)
            GROUP BY d.id ORDER BY best LIMIT ?
            """, arguments: arguments)
        guard !documents.isEmpty else { return [] }

        // Their matching pages, with snippets.
        let ids = documents.map { $0["id"] as Int64 }
        let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ",")
        var pageArguments: StatementArguments = [match]
        _ = pageArguments.append(contentsOf: StatementArguments(ids))
        var pagesByDocument: [Int64: [SearchHit.Page]] = [:]
        var titleOnly: [Int64: SearchHit.Page] = [:]
        let rows = try Row.fetchCursor(db, sql: """
            SELECT document, number, source, bm25(page, \(bm25Weights)) AS score,
                   snippet(page, 1, char(2), char(3), '…', 12) AS body,
                   snippet(page, -1, char(2), char(3), '…', 12) AS best
            FROM page WHERE page MATCH ? AND document IN (\(placeholders)) ORDER BY score
            """, arguments: pageArguments)
        while let row = try rows.next() {
            let document: Int64 = row["document"]
            let body: String = row["body"] ?? ""
            let source = TextSource(rawValue: row["source"]) ?? .none
            let score = -(row["score"] as Double)
            if body.contains(SearchHit.markOpen) {
                // The page's own text matches: list it.
                pagesByDocument[document, default: []].append(SearchHit.Page(number: row["number"], snippet: body, score: score, source: source))
            } else if titleOnly[document] == nil {
                // Only the title, tags or folder (on every page row) match.
                titleOnly[document] = SearchHit.Page(number: 0, snippet: row["best"] ?? "", score: score, source: .none)
            }
        }
        for (document, page) in titleOnly where pagesByDocument[document] == nil {
            pagesByDocument[document] = [page]
        }
        return documents.map { row in
            let id: Int64 = row["id"]
            let tags = (try? JSONDecoder().decode([String].self, from: Data((row["tags"] as String).utf8))) ?? []
            let created: Double? = row["created"]
            return SearchHit(path: row["path"], title: row["title"], tags: tags,
                             created: created.map { Date(timeIntervalSinceReferenceDate: $0) },
                             status: IndexStatus(rawValue: row["status"]) ?? .failed,
                             score: -(row["best"] as Double), pages: pagesByDocument[id] ?? [])
        }
    }
}

import Foundation
import PostgresNIO
import YianaSearch

extension PostgresIndex {
    public func browse(_ query: BrowseQuery) async throws -> BrowsePage {
        // PostgreSQL takes no NUL in text, and no stored tag or folder holds one.
        if query.tags.contains(where: { $0.contains("\u{0}") }) || query.folder?.contains("\u{0}") == true { return BrowsePage(total: 0, documents: []) }
        var options = SearchOptions()
        options.tags = query.tags
        options.folder = query.folder
        var sql = SQL()
        let library = sql.bind(self.library)
        let filter = Self.filter(options, &sql)
        var count = sql
        let counted: [Int64] = try await rows(count.query("SELECT count(*)::int8 FROM yiana_document d WHERE d.library = \(library) \(filter)"), as: Int64.self)
        let total = counted.first ?? 0
        let order = Self.browseOrder(query.sort)
        let limit = sql.bind(Int64(max(0, min(query.limit, 500)))), offset = sql.bind(Int64(max(0, query.offset)))
        let offsetSeconds = Date.timeIntervalBetween1970AndReferenceDate
        let documents = try await rows(sql.query("""
            SELECT d.path, d.folder, d.title, d.tags, d.modified, d.status, d.page_count FROM yiana_document d
            WHERE d.library = \(library) \(filter) ORDER BY \(order) LIMIT \(limit) OFFSET \(offset)
            """), as: (String, String, String, [String], Double?, String, Int32).self).map { row in
            BrowsePage.Document(path: row.0, folder: row.1, title: row.2, tags: row.3, modified: row.4.map { $0 + offsetSeconds },
                                status: IndexStatus(rawValue: row.5) ?? .failed, pageCount: Int(row.6))
        }
        return BrowsePage(total: Int(total), documents: documents)
    }

    /// The ORDER BY of the list (and of a search sorted as it is), over `yiana_document d`.
    static func browseOrder(_ sort: BrowseQuery.Sort) -> String {
        switch sort {
        case .newest: "d.modified DESC NULLS LAST, d.path"
        case .oldest: "d.modified ASC NULLS FIRST, d.path"
        case .title: "lower(d.title), d.path"
        }
    }

    public func outline() async throws -> LibraryOutline {
        var direct: [String: Int] = [:]
        for (folder, count) in try await rows("SELECT folder, count(*)::int8 FROM yiana_document WHERE library = \(library) GROUP BY folder", as: (String, Int64).self) {
            direct[folder] = Int(count)
        }
        var tags: [String: Int] = [:]
        for (tag, count) in try await rows("""
            SELECT min(t), count(DISTINCT d.id)::int8 FROM yiana_document d, unnest(d.tags) t WHERE d.library = \(library) GROUP BY lower(t)
            """, as: (String, Int64).self) {
            tags[tag] = Int(count)
        }
        return LibraryOutline(direct: direct, tags: tags)
    }
}

import Foundation
import YianaSQLite

extension SearchIndex {
    /// Seconds from 1970 to 2001: the index keeps the app's dates (since 2001).
    static let referenceOffset = Date.timeIntervalBetween1970AndReferenceDate

    public func browse(_ query: BrowseQuery) async throws -> BrowsePage {
        var options = SearchOptions()
        options.tags = query.tags
        var (filter, arguments) = Self.filterClause(options)
        if let range = query.folderRange {
            // The folder and those below it as two ranges of the folder's index (a LIKE reads every row).
            filter += " AND (d.folder = ? OR (d.folder >= ? AND d.folder < ?))"
            arguments.append(contentsOf: [range.exact, range.below, range.beyond])
        }
        let order = Self.browseOrder(query.sort)
        return try readNow { db in
            let total = try db.value(Int.self, sql: "SELECT count(*) FROM document d WHERE 1 \(filter)", arguments: arguments) ?? 0
            var page = arguments
            page.append(contentsOf: [max(0, min(query.limit, 500)), max(0, query.offset)])
            let rows = try db.rows(sql: """
                SELECT d.path, d.folder, d.title, d.tags, d.modified, d.status, d.pageCount FROM document d
                WHERE 1 \(filter) ORDER BY \(order) LIMIT ? OFFSET ?
                """, arguments: page)
            let decoder = JSONDecoder()
            return BrowsePage(total: total, documents: rows.map { row in
                let tags = (row[3] as String?).flatMap { try? decoder.decode([String].self, from: Data($0.utf8)) } ?? []
                return BrowsePage.Document(path: row[0], folder: row[1], title: row[2], tags: tags, modified: (row[4] as Double?).map { $0 + Self.referenceOffset },
                                           status: IndexStatus(rawValue: row[5]) ?? .failed, pageCount: row[6])
            })
        }
    }

    /// The ORDER BY of the list (and of a search sorted as it is), over `document d`.
    static func browseOrder(_ sort: BrowseQuery.Sort) -> String {
        switch sort {
        case .newest: "d.modified DESC, d.path"
        case .oldest: "d.modified ASC, d.path"
        case .title: "d.title COLLATE NOCASE, d.path"
        }
    }

    public func outline() async throws -> LibraryOutline {
        try readNow { db in
            var direct: [String: Int] = [:]
            for row in try db.rows(sql: "SELECT folder, count(*) FROM document GROUP BY folder") { direct[row[0]] = row[1] }
            var tags: [String: Int] = [:]
            for row in try db.rows(sql: "SELECT min(tag), count(DISTINCT document) FROM document_tag GROUP BY tag COLLATE NOCASE") { tags[row[0]] = row[1] }
            return LibraryOutline(direct: direct, tags: tags)
        }
    }
}

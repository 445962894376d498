import Foundation
import YianaPeople
import YianaSQLite
import YianaSystem

/// The SQLite file as an ``IndexStore``: each write one transaction, so the index never
/// holds half a document.
extension SearchIndex: IndexStore {
    public var location: String { path }

    /// GRDB's blocking read and write, also from async code. Its async ones hand the connection
    /// back only once their caller resumes; mixed with blocking ones (the search's, the
    /// freshness check's) on Swift's few shared threads, a server under load waited on itself.
    func readNow<T>(_ body: (SQLConnection) throws -> T) throws -> T { try pool.read(body) }
    func writeNow<T>(_ body: (SQLConnection) throws -> T) throws -> T { try pool.write(body) }

    private static let knownColumns = "SELECT id, path, fileSize, fileModified, fileInode, contentKey, status FROM document"

    public func known() async throws -> [String: StoredDocument] {
        try readNow { db in
            var result: [String: StoredDocument] = [:]
            result.reserveCapacity(try db.value(Int.self, sql: "SELECT count(*) FROM document") ?? 0)
            let rows = try db.cursor(sql: Self.knownColumns)
            while let row = try rows.next() { result[row[1]] = Self.stored(row) }
            return result
        }
    }

    public func forEachKnown(_ body: (String, StoredDocument) throws -> Void) async throws {
        try readNow { db in
            // In the order of the path's unique index (BINARY: by bytes), not sorted.
            let rows = try db.cursor(sql: Self.knownColumns + " ORDER BY path")
            while let row = try rows.next() { try body(row[1], Self.stored(row)) }
        }
    }

    public func known(paths: Set<String>) async throws -> [String: StoredDocument] {
        try readNow { db in
            var result: [String: StoredDocument] = [:]
            let statement = try db.statement(sql: Self.knownColumns + " WHERE path = ?")
            for path in paths {
                if let row = try statement.row(arguments: [path]) { result[path] = Self.stored(row) }
            }
            return result
        }
    }

    /// A row of ``knownColumns``, by position: this runs over every document of a whole run.
    private static func stored(_ row: SQLRow) -> StoredDocument {
        StoredDocument(id: row[0], file: FileStamp(size: row[2], modified: row[3], inode: row[4]),
                       contentKey: row[5], status: IndexStatus(rawValue: row[6]) ?? .failed)
    }

    public func indexedContent(known: [String: StoredDocument]) async throws -> Set<String> {
        Set(known.values.filter { $0.status == .ok }.compactMap(\.contentKey))
    }

    public func indexedContent(among keys: Set<String>) async throws -> Set<String> {
        try readNow { db in
            let statement = try db.statement(sql: "SELECT 1 FROM document WHERE contentKey = ? AND status = 'ok' LIMIT 1")
            return try keys.filter { try statement.value(Bool.self, arguments: [$0]) != nil }
        }
    }

    public func clear() async throws {
        try writeNow { db in try Self.clear(db) }
        forgetWords()
    }

    public func write(_ documents: [ExtractedDocument]) async throws -> [ExtractedDocument] {
        guard !documents.isEmpty else { return [] }
        return try writeNow { db in
            var unwritten: [ExtractedDocument] = []
            for document in documents {
                var source: Int64? = nil
                if case .reuse(let key) = document.pages {
                    source = try db.value(Int64.self, sql: "SELECT id FROM document WHERE contentKey = ? AND status = 'ok' LIMIT 1", arguments: [key])
                    guard let found = source, try Self.hasPages(found, db) else {
                        // The document that held these bytes changed meanwhile: extract after all.
                        unwritten.append(document)
                        continue
                    }
                }
                try Self.apply(document, reusing: source, db)
                try addWords(document.words, db)
            }
            return unwritten
        }
    }

    private static func hasPages(_ id: Int64, textOnly: Bool = false, _ db: SQLConnection) throws -> Bool {
        let pages = pageRowids(of: id)
        return try db.value(Int.self, sql: "SELECT 1 FROM page WHERE rowid BETWEEN ? AND ? \(textOnly ? "AND source != 'none'" : "") LIMIT 1",
                                arguments: [pages.lowerBound, pages.upperBound]) != nil
    }

    private static func apply(_ document: ExtractedDocument, reusing source: Int64?, _ db: SQLConnection) throws {
        let tagsJSON = String(decoding: try JSONEncoder().encode(document.tags), as: UTF8.self)
        let existing = try db.value(Int64.self, sql: "SELECT id FROM document WHERE path = ?", arguments: [document.path])
        let counts = document.pageCounts
        let tags = document.tags.joined(separator: " ")
        let folder = document.folder.replacingOccurrences(of: "/", with: " ")
        if let existing, existing == source {
            // Only the metadata changed (same path, same PDF): update it in place.
            try db.execute(sql: """
                UPDATE document SET folder = ?, documentID = ?, title = ?, tags = ?, created = ?, modified = ?,
                    fileSize = ?, fileModified = ?, fileInode = ?, status = ?, reason = ? WHERE id = ?
                """, arguments: [document.folder, document.documentID, document.title, tagsJSON, document.created, document.modified,
                                 document.file.size, document.file.modified, document.file.inode,
                                 document.status.rawValue, document.reason, existing])
            let pages = pageRowids(of: existing)
            try db.execute(sql: "UPDATE page SET title = ?, tags = ?, folder = ? WHERE rowid BETWEEN ? AND ?",
                           arguments: [document.title, tags, folder, pages.lowerBound, pages.upperBound])
            try writeTags(document.tags, of: existing, db)
            return
        }
        let id: Int64
        if let existing {
            id = existing
            if case .keepExisting = document.pages, try hasPages(id, textOnly: true, db) {
                // An evicted document keeps what was indexed of it; only its state changes.
                try db.execute(sql: "UPDATE document SET fileSize = ?, fileModified = ?, fileInode = ?, status = ?, reason = ? WHERE id = ?",
                               arguments: [document.file.size, document.file.modified, document.file.inode,
                                           document.status.rawValue, document.reason, id])
                return
            }
            try db.execute(sql: """
                UPDATE document SET folder = ?, documentID = ?, title = ?, tags = ?, created = ?, modified = ?,
                    fileSize = ?, fileModified = ?, fileInode = ?, contentKey = ?, status = ?, reason = ?,
                    pageCount = ?, textPages = ?, ocrPages = ? WHERE id = ?
                """, arguments: [document.folder, document.documentID, document.title, tagsJSON, document.created, document.modified,
                                 document.file.size, document.file.modified, document.file.inode, document.contentKey,
                                 document.status.rawValue, document.reason, document.pageCount, counts.text, counts.ocr, id])
            try deletePages(of: id, db)
        } else {
            try db.execute(sql: """
                INSERT INTO document (path, folder, documentID, title, tags, created, modified, fileSize, fileModified,
                    fileInode, contentKey, status, reason, pageCount, textPages, ocrPages)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [document.path, document.folder, document.documentID, document.title, tagsJSON,
                                 document.created, document.modified, document.file.size, document.file.modified,
                                 document.file.inode, document.contentKey, document.status.rawValue, document.reason,
                                 document.pageCount, counts.text, counts.ocr])
            id = db.lastInsertedRowID
        }
        try writeTags(document.tags, of: id, replacing: existing != nil, db)
        try writePages(document, id: id, copyingFrom: source, tags: tags, folder: folder, db)
    }

    /// A document's tags; `replacing` the ones it had (a new document has none: no delete).
    private static func writeTags(_ tags: [String], of id: Int64, replacing: Bool = true, _ db: SQLConnection) throws {
        if replacing { try db.execute(sql: "DELETE FROM document_tag WHERE document = ?", arguments: [id]) }
        for tag in Set(tags) {
            try db.execute(sql: "INSERT INTO document_tag (document, tag) VALUES (?, ?)", arguments: [id, tag])
        }
    }

    /// Document `id`'s pages: copied from `source` (the same PDF, indexed already), or the
    /// extracted ones (a title-only row when none has text), at the rowids of its range.
    private static func writePages(_ document: ExtractedDocument, id: Int64, copyingFrom source: Int64?, tags: String, folder: String,
                                   _ db: SQLConnection) throws {
        let rowids = pageRowids(of: id)
        if let source {
            let from = pageRowids(of: source)
            try db.execute(sql: """
                INSERT INTO page (rowid, title, body, tags, folder, document, number, source)
                SELECT ? + (rowid - ?), ?, body, ?, ?, ?, number, source FROM page WHERE rowid BETWEEN ? AND ? AND source != ?
                """, arguments: [rowids.lowerBound, from.lowerBound, document.title, tags, folder, id, from.lowerBound, from.upperBound,
                                 TextSource.addresses.rawValue])
            let copied = try db.row(sql: "SELECT textPages, ocrPages, pageCount FROM document WHERE id = ?", arguments: [source])
            try db.execute(sql: "UPDATE document SET textPages = ?, ocrPages = ?, pageCount = ? WHERE id = ?",
                           arguments: [copied?["textPages"] ?? 0, copied?["ocrPages"] ?? 0, copied?["pageCount"] ?? 0, id])
            return
        }
        var pages = document.textPages
        if pages.isEmpty {
            // Title, tags and folder stay searchable for a document without text.
            pages = [PageText(number: 0, text: "", source: .none)]
        }
        let insert = try db.statement(sql: "INSERT INTO page (rowid, title, body, tags, folder, document, number, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for (offset, page) in pages.prefix(Int(rowids.count) - 1).enumerated() {
            try insert.execute(arguments: [rowids.lowerBound + Int64(offset), document.title, page.text, tags, folder, id, page.number, page.source.rawValue])
        }
    }

    /// Deletes document `id`'s pages: a rowid range, which FTS5 finds without a scan. Its
    /// addresses row goes with them, and is written again after the run (``AddressIndex``).
    private static func deletePages(of id: Int64, _ db: SQLConnection) throws {
        let pages = pageRowids(of: id)
        try db.execute(sql: "DELETE FROM page WHERE rowid BETWEEN ? AND ?", arguments: [pages.lowerBound, pages.upperBound])
        try db.execute(sql: "DELETE FROM document_addresses WHERE document = ?", arguments: [id])
    }

    public func remove(_ paths: [String]) async throws -> [String] {
        try writeNow { db in
            var removed: [String] = []
            for path in paths {
                guard let id = try db.value(Int64.self, sql: "SELECT id FROM document WHERE path = ?", arguments: [path]) else { continue }
                try Self.delete(id, db)
                removed.append(path)
            }
            return removed
        }
    }

    private static func delete(_ id: Int64, _ db: SQLConnection) throws {
        try deletePages(of: id, db)
        try db.execute(sql: "DELETE FROM document_tag WHERE document = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [id])
    }

    private static let statusColumns = "SELECT path, status, reason, pageCount, textPages, ocrPages FROM document"

    public func statuses(onlyProblems: Bool) async throws -> [IndexReport.Document] {
        try readNow { db in
            var documents: [IndexReport.Document] = []
            let filter = onlyProblems ? "WHERE status != '\(IndexStatus.ok.rawValue)'" : ""
            let rows = try db.cursor(sql: "\(Self.statusColumns) \(filter) ORDER BY path")
            while let row = try rows.next() { documents.append(Self.status(row)) }
            return documents
        }
    }

    public func statuses(paths: Set<String>) async throws -> [IndexReport.Document] {
        try readNow { db in
            let statement = try db.statement(sql: Self.statusColumns + " WHERE path = ?")
            return try paths.sorted().compactMap { path in try statement.row(arguments: [path]).map(Self.status) }
        }
    }

    /// A row of ``statusColumns``, by position: this runs over every document of a whole run.
    private static func status(_ row: SQLRow) -> IndexReport.Document {
        IndexReport.Document(path: row[0], status: IndexStatus(rawValue: row[1]) ?? .failed,
                             reason: row[2], pages: row[3], textPages: row[4], ocrPages: row[5])
    }

    public func documentCount() async throws -> Int {
        try readNow { db in try db.value(Int.self, sql: "SELECT count(*) FROM document") ?? 0 }
    }

    public func stamps(inFolder folder: String) async throws -> [String: FileStamp] {
        try readNow { db in
            var rows: [String: FileStamp] = [:]
            let cursor = try db.cursor(sql: "SELECT path, fileSize, fileModified, fileInode FROM document WHERE folder = ?", arguments: [folder])
            while let row = try cursor.next() { rows[row[0]] = FileStamp(size: row[1], modified: row[2], inode: row[3]) }
            return rows
        }
    }

    public func state(_ key: IndexState) async throws -> String? {
        try readNow { db in
            // An index made before there was any state (and searched read-only) has no table.
            guard try db.tableExists("index_state") else { return nil }
            return try db.value(String.self, sql: "SELECT value FROM index_state WHERE key = ?", arguments: [key.rawValue])
        }
    }

    public func setState(_ values: [IndexState: String]) async throws {
        try writeNow { db in
            for (key, value) in values {
                try db.execute(sql: "INSERT OR REPLACE INTO index_state (key, value) VALUES (?, ?)", arguments: [key.rawValue, value])
            }
        }
    }

    public func addressRecords(paths: Set<String>?, named names: Set<String>?) async throws -> [AddressRecord] {
        try readNow { db in
            let select = "SELECT d.id, d.path, d.title, a.fingerprint FROM document d LEFT JOIN document_addresses a ON a.document = d.id"
            func record(_ row: SQLRow) -> AddressRecord { AddressRecord(id: row[0], path: row[1], title: row[2], fingerprint: row[3]) }
            if let paths {
                // By the path's unique index, one lookup per path (a few hundred at most per batch).
                let statement = try db.statement(sql: select + " WHERE d.path = ?")
                return try paths.sorted().flatMap { try statement.rows(arguments: [$0]).map(record) }
            }
            // By a cursor: of a library's documents only the records asked for are held.
            var records: [AddressRecord] = []
            let rows = try db.cursor(sql: select)
            while let row = try rows.next() {
                let found = record(row)
                if names.map(found.matches) ?? true { records.append(found) }
            }
            return records
        }
    }

    public func writeAddresses(_ rows: [AddressRow]) async throws {
        try writeNow { db in
            let insert = try db.statement(sql: """
                INSERT INTO page (rowid, title, body, tags, folder, document, number, source)
                SELECT ?, title, ?, ?, ?, id, 0, ? FROM document WHERE id = ?
                """)
            for row in rows {
                let rowid = Self.pageRowids(of: row.id).upperBound
                try db.execute(sql: "DELETE FROM page WHERE rowid = ?", arguments: [rowid])
                if !row.text.isEmpty, let document = try db.row(sql: "SELECT tags, folder FROM document WHERE id = ?", arguments: [row.id]) {
                    let tags = ((try? JSONDecoder().decode([String].self, from: Data((document[0] as String).utf8))) ?? []).joined(separator: " ")
                    let folder = (document[1] as String).replacingOccurrences(of: "/", with: " ")
                    try insert.execute(arguments: [rowid, row.text, tags, folder, TextSource.addresses.rawValue, row.id])
                    try addWords(Vocabulary.words(of: [row.text]), db)
                }
                try db.execute(sql: "INSERT OR REPLACE INTO document_addresses (document, fingerprint, people) VALUES (?, ?, ?)",
                               arguments: [row.id, row.fingerprint, row.people])
            }
        }
    }

    public func close() async {}

    public func search(_ query: String, options: SearchOptions) async throws -> [SearchHit] {
        try searchNow(query, options: options)
    }
}

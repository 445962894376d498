import Foundation
import PostgresNIO

/// One library's rows in an index on PostgreSQL: its documents and their pages, each replaced
/// in one transaction (a search sees a document's old pages or its new ones, never a mix or
/// none), and searched with PostgreSQL's full-text search. The storage the indexer will use
/// through the search module's interface (issue 34, next step); tested on its own here.
public struct PostgresIndex: Sendable {
    public let database: PostgresDatabase
    /// The library's row (``PostgresSchema``'s `yiana_library`).
    public let library: Int64

    /// A document as the index keeps it (the columns of SQLite's `document` table).
    public struct Document: Sendable {
        public var path: String, folder: String, documentID: String?, title: String, tags: [String]
        public var created: Double?, modified: Double?
        public var fileSize: Int64, fileModified: Int64, fileInode: Int64
        public var contentKey: String?, status: String, reason: String?
        public var pageCount: Int, textPages: Int, ocrPages: Int

        public init(path: String, title: String, tags: [String] = [], status: String = "indexed", fileSize: Int64 = 0, fileModified: Int64 = 0, fileInode: Int64 = 0) {
            self.path = path
            folder = path.split(separator: "/").dropLast().joined(separator: "/")
            self.title = title
            self.tags = tags
            self.status = status
            self.fileSize = fileSize
            self.fileModified = fileModified
            self.fileInode = fileInode
            pageCount = 0
            textPages = 0
            ocrPages = 0
        }
    }

    /// A page's text and where it came from (`pdf`, `ocr`, …); number 0 for the app's OCR text
    /// of the whole document.
    public struct Page: Sendable {
        public let number: Int, source: String, body: String
        public init(number: Int, source: String, body: String) {
            self.number = number
            self.source = source
            self.body = body
        }
    }

    /// One hit: a page of a document, best first.
    public struct Hit: Sendable, Equatable {
        public let path: String, title: String, page: Int, score: Double
    }

    /// The index of the library known by `key` (``YianaLibrary/LibraryIdentity``), its row made
    /// when the database has none; the schema must be this yiana's (``PostgresSchema/migrate(_:)``).
    public static func open(_ database: PostgresDatabase, libraryKey key: String, name: String) async throws(PostgresIndexError) -> PostgresIndex {
        let id = try await database.run(within: 30) { connection in
            let rows = try await connection.query("""
                INSERT INTO yiana_library (key, name) VALUES (\(key), \(name))
                ON CONFLICT (key) DO UPDATE SET name = excluded.name RETURNING id
                """, logger: PostgresDatabase.logger)
            var id: Int64 = 0
            for try await value in rows.decode(Int64.self) { id = value }
            return id
        }
        return PostgresIndex(database: database, library: id)
    }

    /// Folds text as the SQLite index's tokenizer does (`unicode61 remove_diacritics 2`):
    /// compatibility forms, diacritics and case. Done here, not with the `unaccent` extension,
    /// which a shared server's user may not be allowed to install.
    public static func folded(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
    }

    /// Puts `document` and its `pages` in place of what the index had at its path, in one
    /// transaction; several machines doing so at once end with one of their versions, whole.
    public func replace(_ document: Document, pages: [Page]) async throws(PostgresIndexError) {
        let library = self.library
        try await database.run(within: 60) { connection in
            try await connection.query("BEGIN", logger: PostgresDatabase.logger)
            do {
                // The document's row locked first (made if new): concurrent replacers of one
                // document take turns here instead of interleaving their pages.
                let rows = try await connection.query("""
                    INSERT INTO yiana_document (library, path, folder, document_id, title, tags, created, modified, file_size, file_modified,
                                                file_inode, content_key, status, reason, page_count, text_pages, ocr_pages)
                    VALUES (\(library), \(document.path), \(document.folder), \(document.documentID), \(document.title), \(document.tags),
                            \(document.created), \(document.modified), \(document.fileSize), \(document.fileModified), \(document.fileInode),
                            \(document.contentKey), \(document.status), \(document.reason), \(document.pageCount), \(document.textPages), \(document.ocrPages))
                    ON CONFLICT (library, path) DO UPDATE SET folder = excluded.folder, document_id = excluded.document_id, title = excluded.title,
                        tags = excluded.tags, created = excluded.created, modified = excluded.modified, file_size = excluded.file_size,
                        file_modified = excluded.file_modified, file_inode = excluded.file_inode, content_key = excluded.content_key,
                        status = excluded.status, reason = excluded.reason, page_count = excluded.page_count, text_pages = excluded.text_pages,
                        ocr_pages = excluded.ocr_pages
                    RETURNING id
                    """, logger: PostgresDatabase.logger)
                var id: Int64 = 0
                for try await value in rows.decode(Int64.self) { id = value }
                try await connection.query("DELETE FROM yiana_page WHERE document = \(id)", logger: PostgresDatabase.logger)
                let title = Self.folded(document.title), tags = Self.folded(document.tags.joined(separator: " ")), folder = Self.folded(document.folder)
                for page in pages {
                    try await connection.query("""
                        INSERT INTO yiana_page (document, number, source, body, search) VALUES (\(id), \(page.number), \(page.source), \(page.body),
                            setweight(to_tsvector('english', \(title)), 'A') || setweight(to_tsvector('english', \(tags)), 'B')
                            || setweight(to_tsvector('simple', \(folder)), 'C') || setweight(to_tsvector('english', \(Self.folded(page.body))), 'D'))
                        """, logger: PostgresDatabase.logger)
                }
                try await connection.query("COMMIT", logger: PostgresDatabase.logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: PostgresDatabase.logger)
                throw error
            }
        }
    }

    /// Removes the document at `path` and its pages.
    public func remove(path: String) async throws(PostgresIndexError) {
        let library = self.library
        try await database.run(within: 30) { connection in
            try await connection.query("DELETE FROM yiana_document WHERE library = \(library) AND path = \(path)", logger: PostgresDatabase.logger)
        }
    }

    /// The pages matching what a person typed (every word; `"a phrase"`; `inv*` a prefix),
    /// best first, at most `limit`; within `seconds` (a search never hangs on a dead server).
    public func search(_ text: String, limit: Int = 20, within seconds: Double = 10) async throws(PostgresIndexError) -> [Hit] {
        guard let query = Self.tsquery(text) else { return [] }
        let library = self.library
        return try await database.run(within: seconds) { connection in
            let rows = try await connection.query("""
                SELECT d.path, d.title, p.number, ts_rank(p.search, q)::float8 AS score
                FROM yiana_page p JOIN yiana_document d ON d.id = p.document, to_tsquery('english', \(query)) q
                WHERE d.library = \(library) AND p.search @@ q
                ORDER BY score DESC, d.path, p.number LIMIT \(limit)
                """, logger: PostgresDatabase.logger)
            var hits: [Hit] = []
            for try await (path, title, page, score) in rows.decode((String, String, Int, Double).self) {
                hits.append(Hit(path: path, title: title, page: page, score: score))
            }
            return hits
        }
    }

    /// The `to_tsquery` text for what a person typed: each word a quoted lexeme (so no
    /// character of it is an operator), a phrase's words joined by `<->`, a prefix `:*`, all
    /// joined by `&`; nil when nothing in it is searchable.
    public static func tsquery(_ text: String) -> String? {
        var terms: [String] = []
        var phrase: [String]? = nil
        func lexeme(_ word: String) -> String { "'" + word.replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "\\", with: "\\\\") + "'" }
        func words(_ chunk: Substring) -> [String] {
            chunk.split { !$0.isLetter && !$0.isNumber && $0 != "*" }.map(String.init)
        }
        for piece in folded(text).replacingOccurrences(of: "\u{201C}", with: "\"").replacingOccurrences(of: "\u{201D}", with: "\"")
            .split(separator: "\"", omittingEmptySubsequences: false).enumerated() {
            if piece.offset % 2 == 1 {
                phrase = words(piece.element).map { $0.replacingOccurrences(of: "*", with: "") }.filter { !$0.isEmpty }
                if let phrase, !phrase.isEmpty { terms.append("(" + phrase.map(lexeme).joined(separator: " <-> ") + ")") }
                continue
            }
            for word in words(piece.element) {
                let bare = word.replacingOccurrences(of: "*", with: "")
                guard !bare.isEmpty else { continue }
                terms.append(word.hasSuffix("*") ? lexeme(bare) + ":*" : lexeme(bare))
            }
        }
        return terms.isEmpty ? nil : terms.joined(separator: " & ")
    }
}

import Foundation
import PostgresNIO
import YianaSearch

/// Writes one document's rows on a connection inside the caller's transaction, as the SQLite
/// index does (``YianaSearch/SearchIndex``): pages extracted, copied from a document with the
/// same PDF, or kept (an evicted document; a document whose metadata alone changed).
struct PostgresWriter {
    let connection: PostgresConnection
    let library: Int64
    let machine: String

    private func query(_ query: PostgresQuery) async throws {
        try await connection.query(query, logger: PostgresDatabase.logger)
    }

    private func first<each C: PostgresDecodable & Sendable>(_ query: PostgresQuery, as columns: (repeat each C).Type) async throws -> (repeat each C)? {
        for try await row in try await connection.query(query, logger: PostgresDatabase.logger).decode((repeat each C).self) { return row }
        return nil
    }

    /// Writes `document` and what this machine's copy of it is; false when its pages were to be
    /// copied from a document that no longer holds them (the caller extracts it then).
    func apply(_ document: ExtractedDocument) async throws -> Bool {
        guard let id = try await write(document) else { return false }
        try await query("""
            INSERT INTO yiana_seen (document, machine, file_size, file_modified, file_inode)
            VALUES (\(id), \(machine), \(document.file.size), \(document.file.modified), \(document.file.inode))
            ON CONFLICT (document, machine) DO UPDATE SET file_size = excluded.file_size, file_modified = excluded.file_modified,
                file_inode = excluded.file_inode
            """)
        return true
    }

    /// Writes `document`'s rows; its id, or nil when its pages could not be copied.
    private func write(_ document: ExtractedDocument) async throws -> Int64? {
        var source: Int64?
        if case .reuse(let key) = document.pages {
            source = try await first("""
                SELECT d.id FROM yiana_document d WHERE d.library = \(library) AND d.content_key = \(key) AND d.status = 'ok'
                    AND EXISTS (SELECT 1 FROM yiana_page p WHERE p.document = d.id) LIMIT 1
                """, as: Int64.self)
            guard source != nil else { return nil }
        }
        let header = PostgresIndex.Header(title: document.title, tags: document.tags, folder: document.folder)
        // The document's row locked first: concurrent writers of one document take turns here.
        let existing = try await first("""
            SELECT d.id, EXISTS (SELECT 1 FROM yiana_page p WHERE p.document = d.id AND p.source NOT IN ('none', 'addresses'))
            FROM yiana_document d WHERE d.library = \(library) AND d.path = \(document.path) FOR UPDATE
            """, as: (Int64, Bool).self)
        if let existing, existing.0 == source {
            // Only the metadata changed (same path, same PDF): the row and its pages' headers.
            try await updateMetadata(document, id: existing.0)
            try await reweigh(existing.0, from: existing.0, header: header, copying: false)
            return existing.0
        }
        if let existing, existing.1, case .keepExisting = document.pages {
            // An evicted document keeps what was indexed of it; only its state changes.
            try await query("""
                UPDATE yiana_document SET file_size = \(document.file.size), file_modified = \(document.file.modified),
                    file_inode = \(document.file.inode), status = \(document.status.rawValue), reason = \(document.reason.map(PostgresIndex.storable))
                WHERE id = \(existing.0)
                """)
            return existing.0
        }
        let id = try await upsert(document)
        try await query("DELETE FROM yiana_page WHERE document = \(id)")
        try await query("DELETE FROM yiana_document_addresses WHERE document = \(id)")
        if let source {
            try await reweigh(id, from: source, header: header, copying: true)
            try await query("""
                UPDATE yiana_document d SET text_pages = s.text_pages, ocr_pages = s.ocr_pages, page_count = s.page_count
                FROM yiana_document s WHERE d.id = \(id) AND s.id = \(source)
                """)
            return id
        }
        var pages = document.textPages
        if pages.isEmpty { pages = [PageText(number: 0, text: "", source: .none)] }  // title, tags and folder stay searchable
        let numbers = pages.map(\.number), sources = pages.map(\.source.rawValue)
        let bodies = pages.map { PostgresIndex.storable($0.text) }, words = pages.map { Vocabulary.searchable($0.text) }
        try await query("""
            INSERT INTO yiana_page (library, document, number, source, body, search)
            SELECT \(library), \(id), t.number, t.source, t.body,
                   setweight(to_tsvector('yiana_english', \(header.title)), 'A') || setweight(to_tsvector('yiana_english', \(header.tags)), 'B')
                   || setweight(to_tsvector('yiana_english', \(header.folder)), 'C') || to_tsvector('yiana_english', t.words)
            FROM unnest(\(numbers)::int8[], \(sources)::text[], \(bodies)::text[], \(words)::text[]) AS t(number, source, body, words)
            """)
        return id
    }

    /// The pages of `source` (this document's own, or another's with the same PDF) under this
    /// document's header: their own words are the vector's weight-D part (`ts_filter`).
    private func reweigh(_ id: Int64, from source: Int64, header: PostgresIndex.Header, copying: Bool) async throws {
        let vector: PostgresQuery = copying
            ? """
              INSERT INTO yiana_page (library, document, number, source, body, search)
              SELECT \(library), \(id), number, source, body,
                     setweight(to_tsvector('yiana_english', \(header.title)), 'A') || setweight(to_tsvector('yiana_english', \(header.tags)), 'B')
                     || setweight(to_tsvector('yiana_english', \(header.folder)), 'C') || ts_filter(search, '{d}')
              FROM yiana_page WHERE document = \(source) AND source <> 'addresses'
              """
            : """
              UPDATE yiana_page SET search = setweight(to_tsvector('yiana_english', \(header.title)), 'A')
                  || setweight(to_tsvector('yiana_english', \(header.tags)), 'B') || setweight(to_tsvector('yiana_english', \(header.folder)), 'C')
                  || ts_filter(search, '{d}')
              WHERE document = \(id)
              """
        try await query(vector)
    }

    private func updateMetadata(_ document: ExtractedDocument, id: Int64) async throws {
        try await query("""
            UPDATE yiana_document SET folder = \(document.folder), document_id = \(document.documentID), title = \(PostgresIndex.storable(document.title)),
                tags = \(document.tags.map(PostgresIndex.storable)), created = \(document.created), modified = \(document.modified),
                file_size = \(document.file.size), file_modified = \(document.file.modified), file_inode = \(document.file.inode),
                status = \(document.status.rawValue), reason = \(document.reason.map(PostgresIndex.storable))
            WHERE id = \(id)
            """)
    }

    /// The document's row, made or replaced whole; its id.
    private func upsert(_ document: ExtractedDocument) async throws -> Int64 {
        let counts = document.pageCounts
        let id = try await first("""
            INSERT INTO yiana_document (library, path, folder, document_id, title, tags, created, modified, file_size, file_modified,
                                        file_inode, content_key, status, reason, page_count, text_pages, ocr_pages)
            VALUES (\(library), \(document.path), \(document.folder), \(document.documentID), \(PostgresIndex.storable(document.title)),
                    \(document.tags.map(PostgresIndex.storable)), \(document.created), \(document.modified), \(document.file.size),
                    \(document.file.modified), \(document.file.inode), \(document.contentKey), \(document.status.rawValue),
                    \(document.reason.map(PostgresIndex.storable)), \(document.pageCount), \(counts.text), \(counts.ocr))
            ON CONFLICT (library, path) DO UPDATE SET folder = excluded.folder, document_id = excluded.document_id, title = excluded.title,
                tags = excluded.tags, created = excluded.created, modified = excluded.modified, file_size = excluded.file_size,
                file_modified = excluded.file_modified, file_inode = excluded.file_inode, content_key = excluded.content_key,
                status = excluded.status, reason = excluded.reason, page_count = excluded.page_count, text_pages = excluded.text_pages,
                ocr_pages = excluded.ocr_pages
            RETURNING id
            """, as: Int64.self)
        guard let id else { throw WriteError(description: "the row of \(document.path) was not written") }
        return id
    }

    /// Document `id`'s people row (its header and `text`; none when empty) and the fingerprint
    /// of the address files it was made from.
    func writeAddresses(id: Int64, text: String, people: String, fingerprint: String) async throws {
        try await query("DELETE FROM yiana_page WHERE document = \(id) AND source = 'addresses'")
        if !text.isEmpty, let row = try await first("SELECT title, tags, folder, library FROM yiana_document WHERE id = \(id)",
                                                    as: (String, [String], String, Int64).self) {
            let header = PostgresIndex.Header(title: row.0, tags: row.1, folder: row.2)
            try await query("""
                INSERT INTO yiana_page (library, document, number, source, body, search)
                VALUES (\(row.3), \(id), 0, 'addresses', \(PostgresIndex.storable(text)),
                        setweight(to_tsvector('yiana_english', \(header.title)), 'A') || setweight(to_tsvector('yiana_english', \(header.tags)), 'B')
                        || setweight(to_tsvector('yiana_english', \(header.folder)), 'C') || to_tsvector('yiana_english', \(Vocabulary.searchable(text))))
                """)
        }
        try await query("""
            INSERT INTO yiana_document_addresses (document, machine, fingerprint, people) VALUES (\(id), \(machine), \(fingerprint), \(people))
            ON CONFLICT (document, machine) DO UPDATE SET fingerprint = excluded.fingerprint, people = excluded.people
            """)
    }
}

struct WriteError: Error, CustomStringConvertible {
    let description: String
}

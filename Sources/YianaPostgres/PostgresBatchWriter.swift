import Foundation
import PostgresNIO
import YianaSearch

/// Writes a batch of newly extracted documents in five statements, whatever their number (each
/// table's rows sent as arrays and unnested by the server), inside the caller's transaction:
/// the round trips of a statement per row per document were most of a fresh index's time.
/// The same rows as ``PostgresWriter`` writes for each, in path order (the order every machine
/// locks them in).
struct PostgresBatchWriter {
    let connection: PostgresConnection
    let library: Int64
    let machine: String

    /// The separator of a document's tags in one array element (no tag holds it: a control character).
    static let tagSeparator = "\u{1F}"

    func write(_ documents: [ExtractedDocument]) async throws {
        guard !documents.isEmpty else { return }
        let ids = try await upsertDocuments(documents)
        let idList = documents.map { ids[Array($0.path.utf8)] ?? 0 }
        try await connection.query("DELETE FROM yiana_page WHERE document = ANY(\(idList))", logger: PostgresDatabase.logger)
        try await connection.query("DELETE FROM yiana_document_addresses WHERE document = ANY(\(idList))", logger: PostgresDatabase.logger)
        try await insertPages(documents, ids: idList)
        try await connection.query("""
            INSERT INTO yiana_seen (document, machine, file_size, file_modified, file_inode)
            SELECT t.document, \(machine), t.size, t.modified, t.inode
            FROM unnest(\(idList)::int8[], \(documents.map(\.file.size))::int8[], \(documents.map(\.file.modified))::int8[],
                        \(documents.map(\.file.inode))::int8[]) AS t(document, size, modified, inode)
            ON CONFLICT (document, machine) DO UPDATE SET file_size = excluded.file_size, file_modified = excluded.file_modified,
                file_inode = excluded.file_inode
            """, logger: PostgresDatabase.logger)
    }

    /// The documents' rows, made or replaced whole; their ids by path, as bytes (as the table
    /// keys them: two names that differ only in their Unicode normalization are two rows, which
    /// String keys, equal by canonical equivalence, would give one id).
    private func upsertDocuments(_ documents: [ExtractedDocument]) async throws -> [[UInt8]: Int64] {
        let counts = documents.map(\.pageCounts)
        let rows = try await connection.query("""
            INSERT INTO yiana_document (library, path, folder, document_id, title, tags, created, modified, file_size, file_modified,
                                        file_inode, content_key, status, reason, page_count, text_pages, ocr_pages)
            SELECT \(library), t.path, t.folder, NULLIF(t.document_id, ''), t.title,
                   CASE WHEN t.tags = '' THEN '{}'::text[] ELSE string_to_array(t.tags, \(Self.tagSeparator)) END,
                   NULLIF(t.created, 'NaN'), NULLIF(t.modified, 'NaN'), t.size, t.modified_ns, t.inode, NULLIF(t.content_key, ''),
                   t.status, NULLIF(t.reason, ''), t.page_count, t.text_pages, t.ocr_pages
            FROM unnest(\(documents.map(\.path))::text[], \(documents.map(\.folder))::text[], \(documents.map { $0.documentID ?? "" })::text[],
                        \(documents.map { PostgresIndex.storable($0.title) })::text[],
                        \(documents.map { $0.tags.map(PostgresIndex.storable).joined(separator: Self.tagSeparator) })::text[],
                        \(documents.map { $0.created ?? .nan })::float8[], \(documents.map { $0.modified ?? .nan })::float8[],
                        \(documents.map(\.file.size))::int8[], \(documents.map(\.file.modified))::int8[], \(documents.map(\.file.inode))::int8[],
                        \(documents.map { $0.contentKey ?? "" })::text[], \(documents.map(\.status.rawValue))::text[],
                        \(documents.map { PostgresIndex.storable($0.reason ?? "") })::text[], \(documents.map(\.pageCount))::int8[],
                        \(counts.map(\.text))::int8[], \(counts.map(\.ocr))::int8[])
                 AS t(path, folder, document_id, title, tags, created, modified, size, modified_ns, inode, content_key, status, reason,
                      page_count, text_pages, ocr_pages)
            ON CONFLICT (library, path) DO UPDATE SET folder = excluded.folder, document_id = excluded.document_id, title = excluded.title,
                tags = excluded.tags, created = excluded.created, modified = excluded.modified, file_size = excluded.file_size,
                file_modified = excluded.file_modified, file_inode = excluded.file_inode, content_key = excluded.content_key,
                status = excluded.status, reason = excluded.reason, page_count = excluded.page_count, text_pages = excluded.text_pages,
                ocr_pages = excluded.ocr_pages
            RETURNING id, path
            """, logger: PostgresDatabase.logger)
        var ids: [[UInt8]: Int64] = [:]
        for try await (id, path) in rows.decode((Int64, String).self) { ids[Array(path.utf8)] = id }
        return ids
    }

    /// Every document's pages (a title-only row for one without text), each with its
    /// document's header words weighted above its own.
    private func insertPages(_ documents: [ExtractedDocument], ids: [Int64]) async throws {
        var document: [Int64] = [], number: [Int] = [], source: [String] = [], body: [String] = [], words: [String] = []
        var title: [String] = [], tags: [String] = [], folder: [String] = []
        for (id, extracted) in zip(ids, documents) {
            let header = PostgresIndex.Header(title: extracted.title, tags: extracted.tags, folder: extracted.folder)
            var pages = extracted.textPages
            if pages.isEmpty { pages = [PageText(number: 0, text: "", source: .none)] }  // title, tags and folder stay searchable
            for page in pages {
                document.append(id)
                number.append(page.number)
                source.append(page.source.rawValue)
                body.append(PostgresIndex.storable(page.text))
                words.append(Vocabulary.searchable(page.text))
                title.append(header.title)
                tags.append(header.tags)
                folder.append(header.folder)
            }
        }
        try await connection.query("""
            INSERT INTO yiana_page (library, document, number, source, body, search)
            SELECT \(library), t.document, t.number, t.source, t.body,
                   setweight(to_tsvector('yiana_english', t.title), 'A') || setweight(to_tsvector('yiana_english', t.tags), 'B')
                   || setweight(to_tsvector('yiana_english', t.folder), 'C') || to_tsvector('yiana_english', t.words)
            FROM unnest(\(document)::int8[], \(number)::int8[], \(source)::text[], \(body)::text[], \(words)::text[], \(title)::text[],
                        \(tags)::text[], \(folder)::text[]) AS t(document, number, source, body, words, title, tags, folder)
            """, logger: PostgresDatabase.logger)
    }
}

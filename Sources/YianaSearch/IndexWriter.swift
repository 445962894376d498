import Foundation
import GRDB
import YianaLibrary

/// The one writer of the index: applies extracted documents in transactions.
struct IndexWriter {
    let pool: DatabasePool

    /// Writes `documents` in one transaction: each document's row and pages are replaced
    /// together, so the index never holds half a document.
    func commit(_ documents: [ExtractedDocument], extractor: DocumentExtractor, report: inout IndexReport) throws {
        guard !documents.isEmpty else { return }
        var extracted = 0, reused = 0
        try pool.write { db in
            for var document in documents {
                if case .reuse(let key) = document.pages {
                    if let source = try Int64.fetchOne(db, sql: "SELECT id FROM document WHERE contentKey = ? AND status = 'ok' LIMIT 1", arguments: [key]),
                       try Self.copyPagesAllowed(db, from: source) {
                        try apply(document, reusing: source, db)
                        reused += 1
                        report.reusedPaths.insert(document.path)
                        continue
                    }
                    // The document that held these bytes changed meanwhile: extract after all.
                    document = DocumentExtractor(library: extractor.library, indexedContent: [])
                        .extractAgain(document)
                }
                try apply(document, reusing: nil, db)
                if case .extracted = document.pages { extracted += 1 }
            }
        }
        report.extracted += extracted
        report.reused += reused
    }

    private static func copyPagesAllowed(_ db: Database, from source: Int64) throws -> Bool {
        let pages = SearchIndex.pageRowids(of: source)
        return try Int.fetchOne(db, sql: "SELECT 1 FROM page WHERE rowid BETWEEN ? AND ? LIMIT 1", arguments: [pages.lowerBound, pages.upperBound]) != nil
    }

    private func apply(_ document: ExtractedDocument, reusing source: Int64?, _ db: Database) throws {
        let tagsJSON = String(decoding: try JSONEncoder().encode(document.tags), as: UTF8.self)
        let existing = try Int64.fetchOne(db, sql: "SELECT id FROM document WHERE path = ?", arguments: [document.path])
        var keptPages = false
        if case .keepExisting = document.pages, let existing {
            let pages = SearchIndex.pageRowids(of: existing)
            keptPages = try Int.fetchOne(db, sql: "SELECT 1 FROM page WHERE rowid BETWEEN ? AND ? AND source != 'none' LIMIT 1",
                                         arguments: [pages.lowerBound, pages.upperBound]) != nil
        }
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
            let pages = SearchIndex.pageRowids(of: existing)
            try db.execute(sql: "UPDATE page SET title = ?, tags = ?, folder = ? WHERE rowid BETWEEN ? AND ?",
                           arguments: [document.title, tags, folder, pages.lowerBound, pages.upperBound])
            try db.execute(sql: "DELETE FROM document_tag WHERE document = ?", arguments: [existing])
            for tag in Set(document.tags) {
                try db.execute(sql: "INSERT INTO document_tag (document, tag) VALUES (?, ?)", arguments: [existing, tag])
            }
            return
        }
        let id: Int64
        if let existing {
            id = existing
            if keptPages {
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
            try Self.deletePages(of: id, db)
            try db.execute(sql: "DELETE FROM document_tag WHERE document = ?", arguments: [id])
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
        for tag in Set(document.tags) {
            try db.execute(sql: "INSERT INTO document_tag (document, tag) VALUES (?, ?)", arguments: [id, tag])
        }
        try Self.writePages(document, id: id, copyingFrom: source, tags: tags, folder: folder, db)
    }

    /// Document `id`'s pages: copied from `source` (the same PDF, indexed already), or the
    /// extracted ones (a title-only row when none has text), at the rowids of its range.
    private static func writePages(_ document: ExtractedDocument, id: Int64, copyingFrom source: Int64?, tags: String, folder: String,
                                   _ db: Database) throws {
        let rowids = SearchIndex.pageRowids(of: id)
        if let source {
            let from = SearchIndex.pageRowids(of: source)
            try db.execute(sql: """
                INSERT INTO page (rowid, title, body, tags, folder, document, number, source)
                SELECT ? + (rowid - ?), ?, body, ?, ?, ?, number, source FROM page WHERE rowid BETWEEN ? AND ? AND source != ?
                """, arguments: [rowids.lowerBound, from.lowerBound, document.title, tags, folder, id, from.lowerBound, from.upperBound,
                                 TextSource.addresses.rawValue])
            let copied = try Row.fetchOne(db, sql: "SELECT textPages, ocrPages, pageCount FROM document WHERE id = ?", arguments: [source])
            try db.execute(sql: "UPDATE document SET textPages = ?, ocrPages = ?, pageCount = ? WHERE id = ?",
                           arguments: [copied?["textPages"] ?? 0, copied?["ocrPages"] ?? 0, copied?["pageCount"] ?? 0, id])
            return
        }
        var pages: [PageText] = []
        if case .extracted(let extracted) = document.pages { pages = extracted.filter { $0.source != .none } }
        if pages.isEmpty {
            // Title, tags and folder stay searchable for a document without text.
            pages = [PageText(number: 0, text: "", source: .none)]
        }
        let insert = try db.cachedStatement(sql: "INSERT INTO page (rowid, title, body, tags, folder, document, number, source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for (offset, page) in pages.prefix(Int(rowids.count)).enumerated() {
            try insert.execute(arguments: [rowids.lowerBound + Int64(offset), document.title, page.text, tags, folder, id, page.number, page.source.rawValue])
        }
    }

    /// Deletes document `id`'s pages: a rowid range, which FTS5 finds without a scan. Its
    /// addresses row goes with them, and is written again after the run (``AddressIndex``).
    private static func deletePages(of id: Int64, _ db: Database) throws {
        let pages = SearchIndex.pageRowids(of: id)
        try db.execute(sql: "DELETE FROM page WHERE rowid BETWEEN ? AND ?", arguments: [pages.lowerBound, pages.upperBound])
        try db.execute(sql: "DELETE FROM document_addresses WHERE document = ?", arguments: [id])
    }

    /// Removes every document whose path is not in `paths`; returns how many.
    func removeAll(except paths: Set<String>) throws -> Int {
        try pool.write { db in
            let stale = try Row.fetchAll(db, sql: "SELECT id, path FROM document").filter { !paths.contains($0["path"]) }
            for row in stale { try Self.delete(row["id"], db) }
            return stale.count
        }
    }

    /// Removes the entries of `paths` (documents that are gone); returns how many there were.
    func remove(_ paths: [String]) throws -> Int {
        try pool.write { db in
            var removed = 0
            for path in paths {
                guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM document WHERE path = ?", arguments: [path]) else { continue }
                try Self.delete(id, db)
                removed += 1
            }
            return removed
        }
    }

    private static func delete(_ id: Int64, _ db: Database) throws {
        try deletePages(of: id, db)
        try db.execute(sql: "DELETE FROM document_tag WHERE document = ?", arguments: [id])
        try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [id])
    }
}

extension ExtractedDocument {
    var pageCounts: (text: Int, ocr: Int) {
        guard case .extracted(let pages) = pages else { return (0, 0) }
        return (pages.filter { $0.source == .pdf }.count, pages.filter { $0.source == .ocr }.count)
    }
}

extension DocumentExtractor {
    /// Extracts a document again from its file, without reusing any indexed pages.
    func extractAgain(_ document: ExtractedDocument) -> ExtractedDocument {
        let url = library.root.appendingPathComponent(document.path)
        return extract(LibraryItem(kind: .document, url: url, documentURL: url), file: document.file)
    }
}

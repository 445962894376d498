import Foundation
import GRDB
import YianaArchive
import YianaLibrary
import YianaSystem

/// The people in the app's address files, searchable with their document: for each document,
/// one row of the page table (source ``TextSource/addresses``, at the last rowid of its range)
/// holding the names, addresses and postcodes the app shows for it (``AddressBook``), so that
/// `yiana search Smith` finds the letters about Mrs Smith even where the scan misspells her.
/// A document's address files are found by its title (the app's key) or its file name, and
/// read again only when one of them, or which ones there are, changed.
///
/// A run looks at every document's address files when the `.addresses` folder itself
/// changed (a file added, removed or renamed into place, as the app and Syncthing, unison,
/// Dropbox and Nextcloud write: through a temporary name), and at least once an hour;
/// otherwise only at the documents the run wrote. So a file rewritten in place under its
/// own name (older rclone) is seen within the hour, or at once with `yiana index --full`,
/// and a run that changed nothing does not `stat` thousands of address files.
struct AddressIndex {
    let library: Library
    let pool: DatabasePool

    /// The rowid of document `id`'s addresses row.
    static func rowid(of id: Int64) -> Int64 { SearchIndex.pageRowids(of: id).upperBound }

    /// Brings the addresses rows up to date with `scan`'s address files: every document's
    /// when the `.addresses` folder changed since the last run, else those of `changed` (the
    /// paths of the documents this run wrote).
    /// - Returns: how many documents' rows were written or removed.
    func update(_ scan: LibraryScan, changed: [String]) throws -> Int {
        let folderStamp = FileStamp(path: library.root.appendingPathComponent(CompanionFile.addressesFolder).path)
            .map { "\($0.modified) \($0.inode)" } ?? "-"
        let (lastStamp, lastFull) = try pool.read { db in
            (try String.fetchOne(db, sql: "SELECT value FROM index_state WHERE key = ?", arguments: [Self.folderKey]),
             try String.fetchOne(db, sql: "SELECT value FROM index_state WHERE key = ?", arguments: [Self.checkedKey]).flatMap(Double.init))
        }
        let now = Date().timeIntervalSince1970
        let everyDocument = lastStamp != folderStamp || now - (lastFull ?? 0) >= Self.fullCheckEvery
        guard everyDocument || !changed.isEmpty else { return 0 }
        let written = try update(scan, only: everyDocument ? nil : Set(changed))
        try pool.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO index_state (key, value) VALUES (?, ?)", arguments: [Self.folderKey, folderStamp])
            if everyDocument {
                try db.execute(sql: "INSERT OR REPLACE INTO index_state (key, value) VALUES (?, ?)", arguments: [Self.checkedKey, String(now)])
            }
        }
        return written
    }

    /// The `.addresses` folder's time and inode at the last run.
    static let folderKey = "addresses-folder"
    /// When every document's address files were last looked at (seconds since 1970).
    static let checkedKey = "addresses-checked"
    /// Seconds between looks at every document's address files when the folder did not change.
    static let fullCheckEvery = 3600.0

    private func update(_ scan: LibraryScan, only paths: Set<String>?) throws -> Int {
        var files: [String: (extraction: String?, corrections: String?)] = [:]
        for file in scan.companions where !file.isTemp && !file.isConflictCopy {
            guard let key = file.key else { continue }
            switch file.kind {
            case .addressExtraction: files[key, default: (nil, nil)].extraction = file.path
            case .addressCorrections: files[key, default: (nil, nil)].corrections = file.path
            default: continue
            }
        }
        let documents = try pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT d.id, d.path, d.title, d.folder, d.tags, a.fingerprint FROM document d
                LEFT JOIN document_addresses a ON a.document = d.id
                """)
        }
        var changed: [(id: Int64, fingerprint: String, row: Row, paths: (extraction: String?, corrections: String?))] = []
        for row in documents where paths?.contains(row["path"] as String) ?? true {
            let stem = ((row["path"] as String) as NSString).lastPathComponent.replacingOccurrences(of: ".\(Library.documentExtension)", with: "")
            let paths = files[row["title"] as String] ?? files[stem] ?? (nil, nil)
            let fingerprint: String = [paths.extraction, paths.corrections].map { path -> String in
                guard let path, let stamp = FileStamp(path: self.library.root.appendingPathComponent(path).path) else { return "-" }
                return "\(path)|\(stamp.size)|\(stamp.modified)|\(stamp.inode)"
            }.joined(separator: "\n")
            let stored: String? = row["fingerprint"]
            let hasFiles = paths.extraction != nil || paths.corrections != nil
            if stored.map({ $0 != fingerprint }) ?? hasFiles {
                let id: Int64 = row["id"]
                changed.append((id, fingerprint, row, paths))
            }
        }
        guard !changed.isEmpty else { return 0 }
        let root = library.root
        func read(_ path: String?) -> JSONValue? {
            path.flatMap { try? CompanionContent.json(at: root.appendingPathComponent($0)).get() }
        }
        try pool.write { db in
            let insert = try db.cachedStatement(sql: "INSERT INTO page (rowid, title, body, tags, folder, document, number, source) VALUES (?, ?, ?, ?, ?, ?, 0, ?)")
            for document in changed {
                try db.execute(sql: "DELETE FROM page WHERE rowid = ?", arguments: [Self.rowid(of: document.id)])
                let text = AddressBook(extraction: read(document.paths.extraction), corrections: read(document.paths.corrections)).text
                if !text.isEmpty {
                    let tags = ((try? JSONDecoder().decode([String].self, from: Data((document.row["tags"] as String).utf8))) ?? []).joined(separator: " ")
                    let folder = (document.row["folder"] as String).replacingOccurrences(of: "/", with: " ")
                    try insert.execute(arguments: [Self.rowid(of: document.id), document.row["title"], text, tags, folder, document.id, TextSource.addresses.rawValue])
                }
                try db.execute(sql: "INSERT OR REPLACE INTO document_addresses (document, fingerprint) VALUES (?, ?)",
                               arguments: [document.id, document.fingerprint])
            }
        }
        return changed.count
    }
}

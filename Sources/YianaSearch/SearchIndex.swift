import Foundation
import GRDB

/// The search index: an SQLite database (WAL) with an FTS5 table of pages and a table of
/// documents for status and change detection. It can always be rebuilt from the documents.
///
/// It lives outside the library by default (``defaultLocation(for:)``): an SQLite file
/// inside a folder that a sync service copies around gets corrupted.
public final class SearchIndex: Sendable {
    let pool: DatabasePool
    /// The database file.
    public let path: String

    /// Column weights for bm25, in the FTS table's column order: title, body, tags, folder,
    /// then the three UNINDEXED columns (which still take a place in bm25's arguments).
    static let bm25Weights = "10.0, 1.0, 5.0, 2.0, 0.0, 0.0, 0.0"

    /// Opens (creating if needed) the index at `path` and brings its schema up to date.
    /// - Throws: a GRDB `DatabaseError`, or a file-system error for the folder.
    public init(path: String) throws {
        self.path = path
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        try Self.migrator.migrate(pool)
    }

    /// Opens an existing index to search it: read-only, and without touching its schema.
    /// - Throws: ``SearchError/indexNeedsUpdate`` when its schema is not this version's,
    ///   or a GRDB `DatabaseError`.
    public init(readingAt path: String) throws {
        self.path = path
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(10)
        pool = try DatabasePool(path: path, configuration: configuration)
        guard try pool.read({ try Self.migrator.hasCompletedMigrations($0) }) else {
            throw SearchError.indexNeedsUpdate
        }
    }

    /// `~/.cache/yiana-tools/index-<hash of the library path>.sqlite` (or under
    /// `$XDG_CACHE_HOME`): one index per library, outside every synced folder.
    public static func defaultLocation(for libraryRoot: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
        let key = Checksum64.hex(libraryRoot.standardizedFileURL.path)
        let name = libraryRoot.lastPathComponent.filter { $0.isLetter || $0.isNumber }.prefix(32)
        return URL(fileURLWithPath: cache).appendingPathComponent("yiana-tools/index-\(name)-\(key).sqlite").path
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE document (
                    id INTEGER PRIMARY KEY,
                    path TEXT NOT NULL UNIQUE,          -- relative to the library
                    folder TEXT NOT NULL,               -- '' at the root
                    documentID TEXT,                    -- metadata id
                    title TEXT NOT NULL,
                    tags TEXT NOT NULL,                 -- JSON array
                    created REAL,                       -- seconds since 2001
                    modified REAL,
                    fileSize INTEGER NOT NULL,
                    fileModified INTEGER NOT NULL,      -- nanoseconds since 1970
                    fileInode INTEGER NOT NULL,
                    contentKey TEXT,                    -- identifies the PDF's bytes
                    status TEXT NOT NULL,
                    reason TEXT,
                    pageCount INTEGER NOT NULL DEFAULT 0,
                    textPages INTEGER NOT NULL DEFAULT 0,
                    ocrPages INTEGER NOT NULL DEFAULT 0
                );
                CREATE INDEX document_contentKey ON document(contentKey);
                CREATE INDEX document_folder ON document(folder);
                CREATE TABLE document_tag (
                    document INTEGER NOT NULL REFERENCES document(id) ON DELETE CASCADE,
                    tag TEXT NOT NULL COLLATE NOCASE
                );
                CREATE INDEX document_tag_tag ON document_tag(tag, document);
                CREATE VIRTUAL TABLE page USING fts5(
                    title, body, tags, folder,
                    document UNINDEXED, number UNINDEXED, source UNINDEXED,
                    tokenize = 'porter unicode61 remove_diacritics 2'
                );
                """)
        }
        return migrator
    }
}

/// A short stable hash for file names (FNV-1a, 64 bit); not for security.
enum Checksum64 {
    static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return String(hash, radix: 16)
    }
}

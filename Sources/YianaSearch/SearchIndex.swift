import Foundation
import YianaSystem
import YianaSQLite
import Synchronization

/// The search index: an SQLite database (WAL) with an FTS5 table of pages and a table of
/// documents for status and change detection. It can always be rebuilt from the documents.
///
/// It lives outside the library by default (``defaultLocation(for:)``): an SQLite file
/// inside a folder that a sync service copies around gets corrupted.
public final class SearchIndex: Sendable {
    let pool: SQLDatabase
    /// The words this process added to the vocabulary (``addWords(_:_:)``).
    let vocabularySeen = Mutex<Added>(Added())
    /// The database file.
    public let path: String
    /// The new words merged into the vocabulary's large table at a time (``addWords(_:_:)``).
    let mergeEvery: Int
    /// The vocabulary in memory, for a process that searches many times.
    public let residentVocabulary = ResidentVocabulary()

    /// Column weights for bm25, in the FTS table's column order: title, body, tags, folder,
    /// then the three UNINDEXED columns (which still take a place in bm25's arguments).
    static let bm25Weights = "10.0, 1.0, 5.0, 2.0, 0.0, 0.0, 0.0"

    /// Opens (creating if needed) the index at `path` and brings its schema up to date.
    /// - Throws: an `SQLError`, or a file-system error for the folder.
    public convenience init(path: String) throws {
        try self.init(path: path, mergeEvery: 20_000)
    }

    init(path: String, mergeEvery: Int) throws {
        self.path = path
        self.mergeEvery = mergeEvery
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        pool = try SQLDatabase(path: path, options: SQLDatabase.Options(concurrentReads: true))
        let applied = try pool.read { db in try Self.migrations.applied(db) }
        try Self.migrations.apply(to: pool)
        // Carrying the pages into a new table left the old one's pages free inside the file,
        // as much again as the index: give them back. Only space is at stake (SQLite reuses
        // free pages anyway), so a vacuum that fails, for want of room for its copy, say,
        // does not stop the run.
        if !applied.isEmpty, !applied.contains(Self.twoLetterPrefixes) {
            try? pool.vacuum()
        }
    }

    /// Opens an existing index to search it: read-only, and without touching its schema.
    /// - Throws: ``SearchError/indexNeedsUpdate`` when its schema is not this version's,
    ///   or an `SQLError`.
    public init(readingAt path: String) throws {
        self.path = path
        mergeEvery = 20_000
        pool = try SQLDatabase(path: path, options: SQLDatabase.Options(readOnly: true, concurrentReads: true))
        // An index the next `yiana index` only speeds up (``optimizations``) is searched as
        // it is: its results are the same.
        guard try pool.read({ db in
            try Self.migrations.completed(db).isSuperset(of: Self.migrationsSearchNeeds)
        }) else {
            throw SearchError.indexNeedsUpdate
        }
    }

    /// `~/.cache/yiana-tools/index-<hash of the library path>.sqlite` (or under
    /// `$XDG_CACHE_HOME`): one index per library, outside every synced folder.
    public static func defaultLocation(for libraryRoot: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
        let key = StableHash.hex(libraryRoot.standardizedFileURL.path)
        let name = libraryRoot.lastPathComponent.filter { $0.isLetter || $0.isNumber }.prefix(32)
        return URL(fileURLWithPath: cache).appendingPathComponent("yiana-tools/index-\(name)-\(key).sqlite").path
    }

    static var migrations: SQLMigrations {
        var migrations = SQLMigrations()
        migrations.add("v1") { db in
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
        migrations.add("v2: pages by rowid range") { db in
            // v1 found a document's pages by its UNINDEXED `document` column, which FTS5 can
            // only scan: every replace or removal read the whole table. Now a document's
            // pages have the rowids of its range (``pageRowids(of:)``), which FTS5 looks up
            // directly. The pages are carried over as they are.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE page_v2 USING fts5(\(columnsAndTokenizer));
                INSERT INTO page_v2 (rowid, title, body, tags, folder, document, number, source)
                    SELECT (document << \(pageBits)) + (row_number() OVER (PARTITION BY document ORDER BY rowid) - 1),
                           title, body, tags, folder, document, number, source
                    FROM page;
                DROP TABLE page;
                ALTER TABLE page_v2 RENAME TO page;
                """)
        }
        migrations.add(twoLetterPrefixes) { db in
            // A prefix query (`re*`) made FTS5 merge the position lists of every word it stands
            // for before ranking a page: 31 ms for `re*` in 10,000 documents. With the
            // two-letter prefixes indexed as words of their own it reads one list (15 ms), for
            // about 3% more time to index and a fifth more file. The pages are carried over.
            try db.execute(sql: """
                CREATE VIRTUAL TABLE page_v3 USING fts5(\(pageColumns));
                INSERT INTO page_v3 (rowid, title, body, tags, folder, document, number, source)
                    SELECT rowid, title, body, tags, folder, document, number, source FROM page;
                DROP TABLE page;
                ALTER TABLE page_v3 RENAME TO page;
                """)
        }
        migrations.add(addresses) { db in
            // Which address files each document's addresses row (``AddressIndex``) was made from.
            try db.execute(sql: """
                CREATE TABLE document_addresses (
                    document INTEGER PRIMARY KEY REFERENCES document(id) ON DELETE CASCADE,
                    fingerprint TEXT NOT NULL           -- the address files' paths, sizes, times and inodes
                );
                CREATE TABLE index_state (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL
                );
                """)
        }
        migrations.add(tagsByDocument) { db in
            // A document's tags were found by scanning every tag (the table is indexed by tag, for
            // the filter): each changed or removed document cost a scan of them all.
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS document_tag_document ON document_tag(document)")
        }
        migrations.add(browsing) { db in
            // The start page lists the newest (or A to Z) first, a page at a time.
            try db.execute(sql: """
                CREATE INDEX IF NOT EXISTS document_modified ON document(modified);
                CREATE INDEX IF NOT EXISTS document_title ON document(title COLLATE NOCASE);
                CREATE INDEX IF NOT EXISTS document_folder_modified ON document(folder, modified);
                """)
        }
        migrations.add(vocabulary) { db in
            // The words the index holds, for matching words typed with a slip (``Approximate``).
            try makeVocabulary(db)
        }
        migrations.add(vocabularyVersion) { db in
            // Which words the vocabulary holds, in one number, for a copy kept in memory.
            try db.execute(sql: versionTable)
        }
        migrations.add(people) { db in
            // What the register of people keeps of each document's address files (issue 77).
            // Every document's files are read again by the next run (an empty fingerprint
            // matches none, and the run looks at every document when it knows no folder
            // time), so that the people of the files read before are there too.
            try db.execute(sql: """
                ALTER TABLE document_addresses ADD COLUMN people TEXT;
                UPDATE document_addresses SET fingerprint = '';
                DELETE FROM index_state WHERE key = 'addresses-folder';
                """)
        }
        migrations.add(odsPractices) { db in
            // NHS England's GP practices, as `yiana people ods-import` read them (issue 77).
            try db.execute(sql: "CREATE TABLE ods_practice (code TEXT PRIMARY KEY, json TEXT NOT NULL)")
        }
        return migrations
    }

    /// The migration that keeps the people of the address files for the register (``AddressRow/people``).
    static let people = "v9: people"

    /// The migration that keeps NHS England's GP practices for the register (``ODSPractice``).
    static let odsPractices = "v10: ODS practices"

    /// The migration that adds the vocabulary (``Approximate``).
    static let vocabulary = "v7: vocabulary"

    /// The migration that adds the vocabulary's version (``ResidentVocabulary``).
    static let vocabularyVersion = "v8: vocabulary version"

    /// The migration that indexes the documents by date and title, for listing them.
    static let browsing = "v6: browsing"

    /// The migration that indexes the tags by document.
    static let tagsByDocument = "v5: tags by document"

    /// The migration that adds the two-letter prefix index (``pageColumns``).
    static let twoLetterPrefixes = "v3: two-letter prefixes"
    /// The migration that adds the people of the app's address files (``AddressIndex``).
    static let addresses = "v4: the people in the app's address files"

    /// The migrations whose absence only makes searching slower or finds less: an index
    /// without them is searched as it is, and the next `yiana index` applies them.
    static let optimizations: Set<String> = [twoLetterPrefixes, addresses, tagsByDocument, browsing, vocabulary, vocabularyVersion, people, odsPractices]

    /// What an index must have been brought to before it can be searched at all.
    static var migrationsSearchNeeds: Set<String> {
        Set(migrations.names).subtracting(optimizations)
    }

    /// The FTS5 table of pages: its columns and tokenizer (what a match and a snippet depend
    /// on), and the two-letter prefixes indexed for prefix queries (``pageColumns``).
    static let columnsAndTokenizer = """
        title, body, tags, folder, document UNINDEXED, number UNINDEXED, source UNINDEXED,
        tokenize = 'porter unicode61 remove_diacritics 2'
        """
    static let pageColumns = columnsAndTokenizer + ", prefix = '2'"

    /// A document's pages have the rowids `id << pageBits` onward, one per page in order:
    /// up to a million pages per document, and a range FTS5 finds without a scan.
    static let pageBits: Int64 = 20

    /// The rowids of document `id`'s pages.
    static func pageRowids(of id: Int64) -> ClosedRange<Int64> {
        (id << pageBits)...((id << pageBits) | ((1 << pageBits) - 1))
    }

    /// Empties the index (for `index --full`): dropping and recreating the page table is
    /// instant, where deleting its rows one by one costs as much as writing them.
    static func clear(_ db: SQLConnection) throws {
        try db.execute(sql: """
            DELETE FROM document_tag;
            DELETE FROM document_addresses;
            DELETE FROM index_state;
            DELETE FROM document;
            DELETE FROM word;
            DELETE FROM word_new;
            DELETE FROM word_letter;
            UPDATE word_version SET version = version + 1;
            DROP TABLE page;
            CREATE VIRTUAL TABLE page USING fts5(\(pageColumns));
            """)
    }
}



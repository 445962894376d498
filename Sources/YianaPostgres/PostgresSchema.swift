import Foundation
import PostgresNIO

/// The index's tables on PostgreSQL, made and brought up to date by `yiana index` (and the
/// commands that keep an index current): versioned migrations run in one transaction under an
/// advisory lock, so that two machines starting at once neither fight nor run one twice. A
/// reader checks the version only, and refuses a schema newer than it knows.
///
/// The rows of every library share the tables, each under its library's id (``library``): a
/// library is known by the id kept in its own synced folder, so two machines with copies of
/// one library share its rows and two libraries never mix. The tables mirror the SQLite index:
/// a document row per file (its content key, status, counts, tags), one row per page and
/// source with a `tsvector` (title weight A, tags B, folder C, text D) under a GIN index, and
/// what each machine's copy of the file was when that machine last indexed it (`yiana_seen`:
/// sizes, times and inodes differ from machine to machine, so each tells its own changes and
/// none redoes what another did).
public enum PostgresSchema {
    /// The newest version this yiana knows.
    public static let version = 5

    static let migrations: [(version: Int, statements: [String])] = [
        (1, [
            // English stemming as SQLite's porter tokenizer does it, and like it without stop
            // words: `the` and `a` are words a person may search for (PostgreSQL's own `english`
            // drops them); every word the page text is split into is one of these token types.
            "CREATE TEXT SEARCH DICTIONARY yiana_english_stem (TEMPLATE = snowball, Language = english)",
            "CREATE TEXT SEARCH CONFIGURATION yiana_english (COPY = pg_catalog.english)",
            """
            ALTER TEXT SEARCH CONFIGURATION yiana_english
                ALTER MAPPING FOR asciiword, word, asciihword, hword, hword_asciipart, hword_part WITH yiana_english_stem
            """,
            """
            CREATE TABLE yiana_library (
                id bigserial PRIMARY KEY,
                key text NOT NULL UNIQUE,              -- the id in the library's .yiana/library-id
                name text NOT NULL                     -- its folder's name, for people
            )
            """,
            """
            CREATE TABLE yiana_state (
                library bigint NOT NULL REFERENCES yiana_library(id) ON DELETE CASCADE,
                key text NOT NULL,                     -- as in SQLite's index_state: folder times, last run, …
                value text NOT NULL,
                PRIMARY KEY (library, key)
            )
            """,
            """
            CREATE TABLE yiana_document (
                id bigserial PRIMARY KEY,
                library bigint NOT NULL REFERENCES yiana_library(id) ON DELETE CASCADE,
                path text NOT NULL,                    -- relative to the library
                folder text NOT NULL,                  -- '' at the root
                document_id text,                      -- metadata id
                title text NOT NULL,
                tags text[] NOT NULL DEFAULT '{}',
                created double precision,              -- seconds since 2001, as the app writes them
                modified double precision,
                file_size bigint NOT NULL,
                file_modified bigint NOT NULL,         -- nanoseconds since 1970
                file_inode bigint NOT NULL,
                content_key text,
                status text NOT NULL,
                reason text,
                page_count integer NOT NULL DEFAULT 0,
                text_pages integer NOT NULL DEFAULT 0,
                ocr_pages integer NOT NULL DEFAULT 0,
                UNIQUE (library, path)
            )
            """,
            "CREATE INDEX yiana_document_content_key ON yiana_document (library, content_key)",
            "CREATE INDEX yiana_document_folder ON yiana_document (library, folder)",
            "CREATE INDEX yiana_document_tags ON yiana_document USING gin (tags)",
            """
            CREATE TABLE yiana_page (
                document bigint NOT NULL REFERENCES yiana_document(id) ON DELETE CASCADE,
                number integer NOT NULL,               -- 1-based; 0 for the app's OCR text of the whole document
                source text NOT NULL,                  -- where the text came from (pdf, ocr, …)
                body text NOT NULL,
                search tsvector NOT NULL,
                PRIMARY KEY (document, number, source)
            )
            """,
            "CREATE INDEX yiana_page_search ON yiana_page USING gin (search)",
            """
            CREATE TABLE yiana_seen (
                document bigint NOT NULL REFERENCES yiana_document(id) ON DELETE CASCADE,
                machine text NOT NULL,                 -- one machine's copy of the library (IndexLocation.machine)
                file_size bigint NOT NULL,             -- the file there when that machine last indexed it
                file_modified bigint NOT NULL,
                file_inode bigint NOT NULL,
                PRIMARY KEY (document, machine)
            )
            """,
            """
            CREATE TABLE yiana_document_addresses (
                document bigint NOT NULL REFERENCES yiana_document(id) ON DELETE CASCADE,
                machine text NOT NULL,                 -- the fingerprint holds that machine's files' stamps
                fingerprint text NOT NULL,
                PRIMARY KEY (document, machine)
            )
            """,
        ]),
        (2, [
            // Each page's library beside its document's (a document never changes library), so
            // that a search reads one library's pages without joining every document to them:
            // a third of a two-word search's time at 100,000 documents.
            "ALTER TABLE yiana_page ADD COLUMN library bigint",
            "UPDATE yiana_page p SET library = d.library FROM yiana_document d WHERE d.id = p.document",
            "ALTER TABLE yiana_page ALTER COLUMN library SET NOT NULL",
        ]),
        (3, [
            // The start page lists a library's newest (or A to Z) first, a page at a time.
            "CREATE INDEX IF NOT EXISTS yiana_document_modified ON yiana_document (library, modified)",
            "CREATE INDEX IF NOT EXISTS yiana_document_title ON yiana_document (library, lower(title))",
        ]),
        (4, [
            // What the register of people keeps of each document's address files (issue 77), as
            // in SQLite; every machine reads its files again at its next run.
            "ALTER TABLE yiana_document_addresses ADD COLUMN people text",
            "UPDATE yiana_document_addresses SET fingerprint = ''",
            "DELETE FROM yiana_state WHERE key LIKE 'addresses-folder %'",
        ]),
        (5, [
            // NHS England's GP practices, as `yiana people ods-import` read them, per library.
            """
            CREATE TABLE yiana_ods_practice (
                library bigint NOT NULL REFERENCES yiana_library(id) ON DELETE CASCADE,
                code text NOT NULL,
                json text NOT NULL,
                PRIMARY KEY (library, code)
            )
            """,
        ]),
    ]

    /// Brings the schema up to `version` (`target`: an older one, for the tests of the
    /// migrations), from whatever version it is at (none: a new database). Safe to run from
    /// several machines at once.
    /// - Returns: the versions before and after.
    /// - Throws: ``PostgresIndexError`` `.schemaTooNew` for a schema a newer yiana made.
    @discardableResult
    public static func migrate(_ database: PostgresDatabase, upTo target: Int = version) async throws(PostgresIndexError) -> (from: Int, to: Int) {
        let location = database.location
        return try await database.run(within: 120) { connection in
            try await connection.query("BEGIN", logger: PostgresDatabase.logger)
            do {
                // One migrator at a time, whichever machine: the others wait here, then find it done.
                try await connection.query("SELECT pg_advisory_xact_lock(7133924561)", logger: PostgresDatabase.logger)
                try await connection.query("CREATE TABLE IF NOT EXISTS yiana_schema (version integer NOT NULL)", logger: PostgresDatabase.logger)
                let found = try await currentVersion(connection)
                guard found <= version else { throw PostgresIndexError(.schemaTooNew(found: found, known: version), location: location) }
                for migration in migrations where migration.version > found && migration.version <= target {
                    for statement in migration.statements {
                        try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresDatabase.logger)
                    }
                    try await connection.query("INSERT INTO yiana_schema (version) VALUES (\(migration.version))", logger: PostgresDatabase.logger)
                }
                if target == version {
                    try await tune(connection)
                    try await makeVocabulary(connection)
                }
                try await connection.query("COMMIT", logger: PostgresDatabase.logger)
                return (found, max(found, target))
            } catch {
                await PostgresDatabase.rollback(connection, after: error)
                throw error
            }
        }
    }

    /// How the pages are stored, which no reader depends on: set without a version of its own,
    /// so that a machine still running an older yiana goes on using the index (a newer schema
    /// version would lock it out until updated).
    ///
    /// A page's word list is kept in its row (rows of up to 8 KB), not in the TOAST table:
    /// ranking reads the list of every page that matches, and fetching each from there was two
    /// thirds of a search for common words in long documents (a ranked `for the` in 16,000
    /// pages: 65-72 ms -> 23 ms). Its text goes out of the row first. Rows written before keep
    /// their lists out of line until rewritten: in batches, after the migration (``upkeep(_:documents:)``).
    static func tune(_ connection: PostgresConnection) async throws {
        var tuned = false
        for try await value in try await connection.query(
            "SELECT coalesce('toast_tuple_target=8160' = ANY(reloptions), false) FROM pg_class WHERE oid = 'yiana_page'::regclass",
            logger: PostgresDatabase.logger).decode(Bool.self) {
            tuned = value
        }
        guard !tuned else { return }
        try await execute(["ALTER TABLE yiana_page SET (toast_tuple_target = 8160)", "ALTER TABLE yiana_page ALTER COLUMN search SET STORAGE MAIN"],
                          thenSchedule: "inline-search", connection)
    }

    /// Runs `statements`, then schedules upkeep task `task` (``steps(of:_:_:)``) from the first
    /// document on, when there are pages.
    static func execute(_ statements: [String], thenSchedule task: String, _ connection: PostgresConnection) async throws {
        for statement in statements + ["CREATE TABLE IF NOT EXISTS yiana_upkeep (task text PRIMARY KEY, after bigint NOT NULL)"] {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: PostgresDatabase.logger)
        }
        try await connection.query("INSERT INTO yiana_upkeep (task, after) SELECT \(task), 0 WHERE EXISTS (SELECT 1 FROM yiana_page) ON CONFLICT DO NOTHING",
                                   logger: PostgresDatabase.logger)
    }

    /// Work a migration left to do in small steps, each its own transaction (so that no
    /// transaction holds a large library's pages for minutes, and work stopped half-way goes on
    /// where it stopped): the word lists of pages written before ``tune(_:)`` rewritten into their
    /// rows, `documents` documents' pages at a time. One machine at a time does it (the others
    /// skip it); nothing when there is nothing left.
    /// - Returns: the pages rewritten.
    @discardableResult
    public static func upkeep(_ database: PostgresDatabase, documents: Int = 200) async throws(PostgresIndexError) -> Int {
        try await steps(of: "inline-search", database) { connection, after in
            var last: Int64?
            for try await value in try await connection.query(
                "SELECT max(id) FROM (SELECT id FROM yiana_document WHERE id > \(after) ORDER BY id LIMIT \(Int64(documents))) b",
                logger: PostgresDatabase.logger).decode(Int64?.self) {
                last = value
            }
            guard let last else { return nil }
            // A new value (concatenated), so stored by the table's present rules.
            var pages = 0
            for try await count in try await connection.query("""
                WITH rewritten AS (UPDATE yiana_page SET search = search || ''::tsvector WHERE document > \(after) AND document <= \(last) RETURNING 1)
                SELECT count(*) FROM rewritten
                """, logger: PostgresDatabase.logger).decode(Int.self) {
                pages = count
            }
            return (last, pages)
        }
    }

    /// Runs upkeep task `task` (a row of `yiana_upkeep`: the last document id done) a step at a
    /// time, each step its own transaction, until `step` (given the last id done) finds nothing
    /// left and returns nil; one machine at a time (the others skip it).
    /// - Returns: what the steps counted.
    static func steps(of task: String, _ database: PostgresDatabase,
                      _ step: @escaping @Sendable (PostgresConnection, Int64) async throws -> (last: Int64, count: Int)?) async throws(PostgresIndexError) -> Int {
        var counted = 0
        while true {
            let done = try await database.transaction(within: 120) { connection -> Int? in
                var after: Int64?
                for try await value in try await connection.query(
                    "SELECT after FROM yiana_upkeep WHERE task = \(task) FOR UPDATE SKIP LOCKED", logger: PostgresDatabase.logger).decode(Int64.self) {
                    after = value
                }
                guard let after else { return nil }
                guard let (last, count) = try await step(connection, after) else {
                    try await connection.query("DELETE FROM yiana_upkeep WHERE task = \(task)", logger: PostgresDatabase.logger)
                    return nil
                }
                try await connection.query("UPDATE yiana_upkeep SET after = \(last) WHERE task = \(task)", logger: PostgresDatabase.logger)
                return count
            }
            guard let done else { return counted }
            counted += done
        }
    }

    /// The schema's version (0 when the database holds no index yet), checked against this
    /// yiana's: for the commands that only read.
    /// - Throws: ``PostgresIndexError`` `.schemaTooNew`.
    public static func check(_ database: PostgresDatabase, within seconds: Double = 10) async throws(PostgresIndexError) -> Int {
        let location = database.location
        return try await database.run(within: seconds) { connection in
            let exists = try await connection.query("SELECT to_regclass('yiana_schema') IS NOT NULL", logger: PostgresDatabase.logger)
            var present = false
            for try await value in exists.decode(Bool.self) { present = value }
            guard present else { return 0 }
            let found = try await currentVersion(connection)
            guard found <= version else { throw PostgresIndexError(.schemaTooNew(found: found, known: version), location: location) }
            return found
        }
    }

    static func currentVersion(_ connection: PostgresConnection) async throws -> Int {
        var found = 0
        let rows = try await connection.query("SELECT coalesce(max(version), 0) FROM yiana_schema", logger: PostgresDatabase.logger)
        for try await value in rows.decode(Int.self) { found = value }
        return found
    }
}

import Foundation
internal import GRDB

/// The toolkit's one way to SQLite: a database file (or one in memory), its connections,
/// transactions and schema migrations. Every module that keeps a database (the search index,
/// the keeper's catalog) reaches SQLite through this module alone; the SQLite library and
/// GRDB, on which it is built, are seen by no other.
public final class SQLDatabase: Sendable {
    /// How a database is opened.
    public struct Options: Sendable {
        /// Opened read-only: no write, no schema change, no file made.
        public var readOnly = false
        /// How long a statement waits for another process's lock before failing, in seconds.
        public var busyTimeout: Double = 10
        /// Readers beside the writer (write-ahead log, one connection per reader): for a
        /// database searched while it is written. Otherwise one connection, used in turn.
        public var concurrentReads = false
        /// SQL run on every connection as it opens (`PRAGMA`s).
        public var onOpen: String? = nil

        public init(readOnly: Bool = false, busyTimeout: Double = 10, concurrentReads: Bool = false, onOpen: String? = nil) {
            self.readOnly = readOnly
            self.busyTimeout = busyTimeout
            self.concurrentReads = concurrentReads
            self.onOpen = onOpen
        }
    }

    let writer: any DatabaseWriter

    /// Opens (or makes, unless read-only) the database at `path`.
    /// - Throws: ``SQLError`` when it cannot be opened.
    public init(path: String, options: Options = Options()) throws {
        var configuration = Configuration()
        configuration.readonly = options.readOnly
        configuration.busyMode = .timeout(options.busyTimeout)
        if let sql = options.onOpen {
            configuration.prepareDatabase { db in try db.execute(sql: sql) }
        }
        writer = try translated {
            options.concurrentReads ? try DatabasePool(path: path, configuration: configuration) as any DatabaseWriter
                : try DatabaseQueue(path: path, configuration: configuration)
        }
    }

    /// A new, empty database in memory, gone with this object.
    public init() {
        // An in-memory database cannot fail to open.
        writer = try! DatabaseQueue()
    }

    /// Runs `body` on a connection that reads the database as of one moment.
    public func read<T>(_ body: (SQLConnection) throws -> T) throws -> T {
        try translated { try writer.read { db in try body(SQLConnection(base: db)) } }
    }

    /// ``read(_:)`` without blocking the caller's thread.
    public func read<T: Sendable>(_ body: @escaping @Sendable (SQLConnection) throws -> T) async throws -> T {
        do {
            return try await writer.read { db in try body(SQLConnection(base: db)) }
        } catch let error as DatabaseError {
            throw SQLError(error)
        }
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws.
    public func write<T>(_ body: (SQLConnection) throws -> T) throws -> T {
        try translated { try writer.write { db in try body(SQLConnection(base: db)) } }
    }

    /// Runs `body` with the writer's connection outside any transaction: for work that opens
    /// its own (``SQLConnection/immediateTransaction(_:)``) or that cannot run in one
    /// (a checkpoint).
    public func writeWithoutTransaction<T>(_ body: (SQLConnection) throws -> T) throws -> T {
        try translated { try writer.writeWithoutTransaction { db in try body(SQLConnection(base: db)) } }
    }

    /// Rebuilds the file without its free pages (`VACUUM`).
    public func vacuum() throws {
        try translated { try writer.vacuum() }
    }
}

/// A database's schema as a list of named steps, each applied once, in order, and recorded
/// in the database (GRDB's `grdb_migrations` table, which every index made so far holds).
public struct SQLMigrations: Sendable {
    private var migrator = DatabaseMigrator()
    /// The steps' names, in order.
    public private(set) var names: [String] = []

    public init() {}

    /// Adds the step `name`, run once in its own transaction.
    public mutating func add(_ name: String, _ body: @escaping @Sendable (SQLConnection) throws -> Void) {
        migrator.registerMigration(name) { db in try body(SQLConnection(base: db)) }
        names.append(name)
    }

    /// Applies the steps not yet applied to `database`, up to and including `last` (all of them when nil).
    public func apply(to database: SQLDatabase, upTo last: String? = nil) throws {
        try translated {
            if let last { try migrator.migrate(database.writer, upTo: last) } else { try migrator.migrate(database.writer) }
        }
    }

    /// The steps recorded as applied in the database, this list's or not.
    public func applied(_ connection: SQLConnection) throws -> Set<String> {
        try translated { try migrator.appliedIdentifiers(connection.base) }
    }

    /// The steps of this list recorded as applied.
    public func completed(_ connection: SQLConnection) throws -> Set<String> {
        try translated { Set(try migrator.completedMigrations(connection.base)) }
    }
}

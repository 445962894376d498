import Foundation
import Synchronization
import Testing
import YianaSQLite
import YianaTestSupport

/// The one way to SQLite: what the index and the keeper's catalog rely on, at its boundary.
@Suite("SQLite: the toolkit's one way to it")
struct SQLDatabaseTests {
    /// Every kind of value goes in as an argument and comes back as SQLite converts it: NULL
    /// as nil, an integer as a real when asked, text and blobs as they were.
    @Test func valuesGoInAndComeBackAsSQLiteConvertsThem() throws {
        let database = SQLDatabase()
        let row = try database.write { db -> SQLRow? in
            try db.execute(sql: "CREATE TABLE t(i INTEGER, r REAL, s TEXT, b BLOB, n, flag INTEGER)")
            try db.execute(sql: "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                           arguments: [Int64(1) << 40, 2.5, "é\tx", Data([0, 255, 7]), nil, true])
            return try db.row(sql: "SELECT i, r, s, b, n, flag, i AS again FROM t")
        }
        let found = try #require(row)
        #expect(found[0] as Int64 == 1 << 40)
        #expect(found[0] as Double == Double(1 << 40))
        #expect(found[1] as Double == 2.5)
        #expect(found[2] as String == "é\tx")
        #expect(found[3] as Data == Data([0, 255, 7]))
        #expect((found[4] as Int64?) == nil)
        #expect((found[4] as String?) == nil)
        #expect(found[5] as Bool)
        #expect(found["again"] as Int == 1 << 40)
        #expect((found["no such column"] as Int?) == nil)
        // Text is read as a C string, to its first NUL: why the index's text loses every NUL
        // before it is written (TextNormalizer).
        #expect(try database.read { db in try db.value(String.self, sql: "SELECT ?", arguments: ["a\u{0}b"]) } == "a")
        #expect(found.values.map { $0?.sqlStorage } == [.integer(1 << 40), .real(2.5), .text("é\tx"), .blob(Data([0, 255, 7])), .null, .integer(1), .integer(1 << 40)])
    }

    /// A statement compiled once answers every use with its own arguments; a cursor gives the
    /// rows in order, one at a time; `values` leaves NULLs out.
    @Test func statementsCursorsAndValues() throws {
        let database = SQLDatabase()
        try database.write { db in
            try db.execute(sql: "CREATE TABLE t(k INTEGER PRIMARY KEY, v TEXT)")
            let insert = try db.statement(sql: "INSERT INTO t(k, v) VALUES (?, ?)")
            for k in 1...5 { try insert.execute(arguments: [k, k == 3 ? nil : "v\(k)"]) }
            #expect(db.changes == 1)
            #expect(db.lastInsertedRowID == 5)
        }
        try database.read { db in
            let lookup = try db.statement(sql: "SELECT v FROM t WHERE k = ?")
            #expect(try lookup.value(String.self, arguments: [2]) == "v2")
            #expect(try lookup.value(String.self, arguments: [3]) == nil)
            #expect(try lookup.value(String.self, arguments: [9]) == nil)
            #expect(try db.values(String.self, sql: "SELECT v FROM t ORDER BY k") == ["v1", "v2", "v4", "v5"])
            let cursor = try db.cursor(sql: "SELECT k FROM t WHERE k > ? ORDER BY k DESC", arguments: [2])
            var seen: [Int] = []
            while let row = try cursor.next() { seen.append(row[0]) }
            #expect(seen == [5, 4, 3])
            #expect(try db.tableExists("t"))
            #expect(try !db.tableExists("u"))
        }
    }

    /// A transaction that throws leaves nothing behind; one that returns is kept.
    @Test func aTransactionIsWholeOrNothing() throws {
        struct Stop: Error {}
        let database = SQLDatabase()
        try database.write { db in try db.execute(sql: "CREATE TABLE t(v INTEGER)") }
        #expect(throws: Stop.self) {
            try database.write { db in
                try db.execute(sql: "INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(throws: Stop.self) {
            try database.writeWithoutTransaction { db in
                try db.immediateTransaction {
                    try db.execute(sql: "INSERT INTO t VALUES (2)")
                    throw Stop()
                }
            }
        }
        try database.writeWithoutTransaction { db in try db.immediateTransaction { try db.execute(sql: "INSERT INTO t VALUES (3)") } }
        #expect(try database.read { db in try db.values(Int.self, sql: "SELECT v FROM t") } == [3])
    }

    /// SQLite's errors arrive as `SQLError`, with the result code that tells them apart: a
    /// statement refused, and a file that is not a database.
    @Test func errorsSayWhatSQLiteRefused() throws {
        let database = SQLDatabase()
        let refused = try #require(throws: SQLError.self) { try database.read { db in try db.execute(sql: "SELECT * FROM nowhere") } }
        #expect(refused.isStatementError)
        #expect(!refused.isDamage)
        #expect(refused.description.hasPrefix("SQLite error 1: no such table: nowhere"))
        #expect(refused.description.contains("SELECT * FROM nowhere"))

        let folder = try TemporaryFolder()
        let path = folder.path("garbage.sqlite")
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        let damaged = try #require(throws: SQLError.self) {
            let file = try SQLDatabase(path: path)
            return try file.read { db in try db.tableExists("t") }
        }
        #expect(damaged.isDamage)
    }

    /// The schema's steps are applied once each, in order, up to the one asked for, and the
    /// database records which: a second run applies nothing; readers beside the writer see
    /// what was committed.
    @Test func migrationsAreAppliedOnceInOrder() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("m.sqlite")
        let runs = Counter()
        var migrations = SQLMigrations()
        for step in ["one", "two", "three"] {
            migrations.add(step) { db in
                runs.add()
                try db.execute(sql: "CREATE TABLE \(step)(v)")
            }
        }
        #expect(migrations.names == ["one", "two", "three"])
        let database = try SQLDatabase(path: path, options: SQLDatabase.Options(concurrentReads: true))
        try migrations.apply(to: database, upTo: "two")
        #expect(try database.read { db in try migrations.completed(db) } == ["one", "two"])
        try migrations.apply(to: database)
        try migrations.apply(to: database)
        #expect(runs.value == 3)
        #expect(try database.read { db in try migrations.applied(db) } == ["one", "two", "three"])

        let reader = try SQLDatabase(path: path, options: SQLDatabase.Options(readOnly: true, concurrentReads: true))
        #expect(try reader.read { db in try db.tableExists("three") })
        #expect(throws: SQLError.self) { try reader.write { db in try db.execute(sql: "CREATE TABLE four(v)") } }
    }
}

/// A count shared with the migrations' closures.
private final class Counter: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

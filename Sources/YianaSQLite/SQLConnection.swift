import Foundation
internal import GRDB

/// A connection to a database, lent for the length of one ``SQLDatabase/read(_:)`` or
/// ``SQLDatabase/write(_:)``: never kept past it.
public struct SQLConnection {
    let base: Database

    /// Runs `sql` (one statement or several, separated by `;`).
    public func execute(sql: String, arguments: SQLArguments = []) throws {
        try translated { try base.execute(sql: sql, arguments: arguments.statementArguments) }
    }

    /// `sql` compiled once for this connection and kept: for a statement run many times.
    public func statement(sql: String) throws -> SQLStatement {
        try translated { SQLStatement(base: try base.cachedStatement(sql: sql)) }
    }

    /// `sql` compiled for this use alone.
    public func makeStatement(sql: String) throws -> SQLStatement {
        try translated { SQLStatement(base: try base.makeStatement(sql: sql)) }
    }

    /// Every row of `sql`.
    public func rows(sql: String, arguments: SQLArguments = []) throws -> [SQLRow] {
        try makeStatement(sql: sql).rows(arguments: arguments)
    }

    /// The first row of `sql`, if any.
    public func row(sql: String, arguments: SQLArguments = []) throws -> SQLRow? {
        try makeStatement(sql: sql).row(arguments: arguments)
    }

    /// The rows of `sql`, one step at a time (none held beside the one read).
    public func cursor(sql: String, arguments: SQLArguments = []) throws -> SQLCursor {
        try makeStatement(sql: sql).cursor(arguments: arguments)
    }

    /// The first column of the first row of `sql`; nil when there is none or it is NULL.
    @inlinable
    public func value<Value: SQLValue>(_ type: Value.Type, sql: String, arguments: SQLArguments = []) throws -> Value? {
        try makeStatement(sql: sql).value(type, arguments: arguments)
    }

    /// The first column of every row of `sql` (NULLs left out).
    @inlinable
    public func values<Value: SQLValue>(_ type: Value.Type, sql: String, arguments: SQLArguments = []) throws -> [Value] {
        try makeStatement(sql: sql).values(type, arguments: arguments)
    }

    /// The rows the last statement inserted, changed or deleted.
    public var changes: Int { base.changesCount }

    /// The rowid of the last row inserted.
    public var lastInsertedRowID: Int64 { base.lastInsertedRowID }

    /// True when the database has a table (or view) named `name`.
    public func tableExists(_ name: String) throws -> Bool {
        try translated { try base.tableExists(name) }
    }

    /// Runs `body` in one transaction that takes the write lock at once (`BEGIN IMMEDIATE`):
    /// committed when it returns, rolled back when it throws. For a connection of
    /// ``SQLDatabase/writeWithoutTransaction(_:)``.
    public func immediateTransaction(_ body: () throws -> Void) throws {
        try translated {
            try base.inTransaction(.immediate) {
                try body()
                return .commit
            }
        }
    }

    /// Folds the write-ahead log into the file and cuts the log to nothing
    /// (`wal_checkpoint(TRUNCATE)`).
    public func checkpointTruncating() throws {
        try translated { _ = try base.checkpoint(.truncate) }
    }
}

/// A compiled statement, run with arguments.
public struct SQLStatement {
    let base: Statement

    public func execute(arguments: SQLArguments = []) throws {
        try translated { try base.execute(arguments: arguments.statementArguments) }
    }

    public func rows(arguments: SQLArguments = []) throws -> [SQLRow] {
        try translated { try Row.fetchAll(base, arguments: arguments.statementArguments).map { SQLRow(base: $0) } }
    }

    public func row(arguments: SQLArguments = []) throws -> SQLRow? {
        try translated { try Row.fetchOne(base, arguments: arguments.statementArguments).map { SQLRow(base: $0) } }
    }

    public func cursor(arguments: SQLArguments = []) throws -> SQLCursor {
        try translated { SQLCursor(base: try Row.fetchCursor(base, arguments: arguments.statementArguments)) }
    }

    /// The first column of the first row; nil when there is none or it is NULL.
    @inlinable
    public func value<Value: SQLValue>(_ type: Value.Type, arguments: SQLArguments = []) throws -> Value? {
        try row(arguments: arguments).flatMap { Value.column($0, 0) }
    }

    /// The first column of every row (NULLs left out).
    @inlinable
    public func values<Value: SQLValue>(_ type: Value.Type, arguments: SQLArguments = []) throws -> [Value] {
        let rows = try cursor(arguments: arguments)
        var values: [Value] = []
        while let row = try rows.next() { if let value = Value.column(row, 0) { values.append(value) } }
        return values
    }
}

/// The rows of a statement, a step at a time. Each row is the cursor's own until the next
/// step (``SQLStatement/rows(arguments:)`` keeps them all).
public struct SQLCursor {
    let base: RowCursor

    public func next() throws -> SQLRow? {
        try translated { try base.next().map { SQLRow(base: $0) } }
    }
}

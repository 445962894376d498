import Foundation
internal import GRDB

/// A value SQLite stores: what a statement takes as an argument and what a row's column is
/// read as. The conformances are this module's own (integers, reals, text, blobs, booleans),
/// each read by its column's own fast path.
public protocol SQLValue: Sendable {
    /// The value of column `index` of `row`, converted as SQLite converts it; nil for NULL.
    static func column(_ row: SQLRow, _ index: Int) -> Self?
    /// The value as an argument of a statement.
    var sqlStorage: SQLStorage { get }
}

/// A value as SQLite holds it.
public enum SQLStorage: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let value): value.databaseValue
        case .real(let value): value.databaseValue
        case .text(let value): value.databaseValue
        case .blob(let value): value.databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let value): self = .integer(value)
        case .double(let value): self = .real(value)
        case .string(let value): self = .text(value)
        case .blob(let value): self = .blob(value)
        }
    }
}

extension SQLStorage: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> SQLStorage? { SQLStorage(row.base[index] as DatabaseValue) }
    public var sqlStorage: SQLStorage { self }
}

/// The arguments of a statement, `?1`, `?2`… in order: `[path, size, nil]`.
public typealias SQLArguments = [(any SQLValue)?]

extension [(any SQLValue)?] {
    var statementArguments: StatementArguments {
        StatementArguments(map { $0?.sqlStorage.databaseValue ?? .null })
    }
}

/// One row of a result. A row a cursor gives is that cursor's until its next step: read what
/// is needed from it before asking for the next (``SQLCursor``).
public struct SQLRow {
    let base: Row

    // Inlinable, so that each caller reads its column by the conformance's own method: an
    // unspecialized generic subscript looks up `Optional<Value>`'s metadata at every read
    // (a tenth of a microsecond a column, a listing's rows by the hundred).

    /// Column `index`, or nil when it is NULL.
    @inlinable
    public subscript<Value: SQLValue>(_ index: Int) -> Value? { Value.column(self, index) }

    /// Column `index`, which the schema says is never NULL.
    @inlinable
    public subscript<Value: SQLValue>(_ index: Int) -> Value {
        guard let value = Value.column(self, index) else { preconditionFailure("column \(index) is NULL, where the schema has none") }
        return value
    }

    /// The column named `name` (as SQLite matches names, regardless of case), or nil when it
    /// is NULL or there is no such column.
    public subscript<Value: SQLValue>(_ name: String) -> Value? { index(of: name).flatMap { Value.column(self, $0) } }

    /// The column named `name`, which the schema says is never NULL.
    public subscript<Value: SQLValue>(_ name: String) -> Value {
        guard let value = index(of: name).flatMap({ Value.column(self, $0) }) else {
            preconditionFailure("column \(name) is NULL or missing, where the schema has it")
        }
        return value
    }

    private func index(of name: String) -> Int? {
        base.columnNames.enumerated().first { $0.element.caseInsensitiveCompare(name) == .orderedSame }?.offset
    }

    /// Every column's value, in order: the arguments to write the row elsewhere.
    public var values: SQLArguments { base.databaseValues.map { SQLStorage($0) } }
}

extension Int64: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> Int64? { row.base[index] }
    public var sqlStorage: SQLStorage { .integer(self) }
}

extension Int: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> Int? { row.base[index] }
    public var sqlStorage: SQLStorage { .integer(Int64(self)) }
}

extension Double: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> Double? { row.base[index] }
    public var sqlStorage: SQLStorage { .real(self) }
}

extension Bool: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> Bool? { row.base[index] }
    public var sqlStorage: SQLStorage { .integer(self ? 1 : 0) }
}

/// Read as SQLite gives text to C, up to its first NUL: text that may hold one loses it first.
extension String: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> String? { row.base[index] }
    public var sqlStorage: SQLStorage { .text(self) }
}

extension Data: SQLValue {
    public static func column(_ row: SQLRow, _ index: Int) -> Data? { row.base[index] }
    public var sqlStorage: SQLStorage { .blob(self) }
}

/// What SQLite refused, with its result code: a statement's error, a file that is not a
/// database or is damaged, a lock held too long.
public struct SQLError: Error, CustomStringConvertible, Sendable {
    /// SQLite's extended result code (<https://www.sqlite.org/rescode.html>).
    public let code: Int32
    /// SQLite's message.
    public let message: String?
    /// The statement refused, when there was one.
    public let sql: String?

    /// SQLite's primary result code.
    public var primaryCode: Int32 { code & 0xFF }
    /// The file is damaged, or is not a database (`SQLITE_CORRUPT`, `SQLITE_NOTADB`).
    public var isDamage: Bool { primaryCode == 11 || primaryCode == 26 }
    /// The statement itself was refused (`SQLITE_ERROR`: its syntax, a table or column it names).
    public var isStatementError: Bool { primaryCode == 1 }

    public var description: String {
        var text = "SQLite error \(primaryCode)"
        if let message { text += ": \(message)" }
        if let sql { text += " - while executing `\(sql.trimmingCharacters(in: .whitespacesAndNewlines))`" }
        return text
    }

    init(_ error: DatabaseError) {
        code = error.extendedResultCode.rawValue
        message = error.message
        sql = error.sql
    }
}

/// Runs `body`, its SQLite errors given as ``SQLError``.
@inline(__always)
func translated<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as DatabaseError {
        throw SQLError(error)
    }
}

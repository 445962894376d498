import PostgresNIO

/// The statements of a search whose text is the same for every search of their kind (no
/// filter, which most searches have: the best pages, and the documents with their counts and
/// snippets), prepared once on each connection and from then on only bound and run: no text
/// parsed and analysed again per search. Their texts are the ones ``PostgresIndex`` builds,
/// made once here with stand-in values (values are always bound, never in a text).
enum FixedStatements {
    static let texts: [String] = {
        var texts: [String] = []
        for (query, advanced) in [("a b", false), ("\"a b\"", false), ("a b", true), ("\"a b\"", true)] {
            guard let parsed = PostgresIndex.Parsed(query, advanced: advanced) else { continue }
            var pages = parsed.sql
            let library = pages.bind(Int64(0))
            var details = parsed.sql
            for text in [PostgresIndex.window(parsed, filter: "", library: library, window: 200, &pages).sql,
                         PostgresIndex.details(parsed, order: [], owning: [], plain: [], chosen: [], &details).sql] where !texts.contains(text) {
                texts.append(text)
            }
        }
        precondition(texts.count <= 8, "a fixed statement without a slot (Slot0 ... Slot7)")
        return texts
    }()

    /// The rows of `query` run on `connection`: as a prepared statement when its text is one of
    /// ``texts``, else as any statement.
    static func rows<each C: PostgresDecodable & Sendable>(_ query: PostgresQuery, as columns: (repeat each C).Type,
                                                            on connection: PostgresConnection) async throws -> [(repeat each C)] {
        let decode: @Sendable (PostgresRow) throws -> (repeat each C) = { try $0.decode(columns) }
        // One type per text: postgres-nio keeps a prepared statement by its type's name.
        switch texts.firstIndex(of: query.sql) {
        case 0: return try await run(Fixed<Slot0, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 1: return try await run(Fixed<Slot1, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 2: return try await run(Fixed<Slot2, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 3: return try await run(Fixed<Slot3, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 4: return try await run(Fixed<Slot4, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 5: return try await run(Fixed<Slot5, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 6: return try await run(Fixed<Slot6, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        case 7: return try await run(Fixed<Slot7, (repeat each C)>(bindings: query.binds, decode: decode), on: connection)
        default:
            var result: [(repeat each C)] = []
            for try await row in try await connection.query(query, logger: PostgresDatabase.logger).decode(columns) {
                result.append(row)
            }
            return result
        }
    }

    private static func run<S: FixedSlot, Row>(_ statement: Fixed<S, Row>, on connection: PostgresConnection) async throws -> [Row] {
        var result: [Row] = []
        for try await row in try await connection.execute(statement, logger: PostgresDatabase.logger) {
            result.append(row)
        }
        return result
    }
}

protocol FixedSlot { static var index: Int { get } }
enum Slot0: FixedSlot { static let index = 0 }
enum Slot1: FixedSlot { static let index = 1 }
enum Slot2: FixedSlot { static let index = 2 }
enum Slot3: FixedSlot { static let index = 3 }
enum Slot4: FixedSlot { static let index = 4 }
enum Slot5: FixedSlot { static let index = 5 }
enum Slot6: FixedSlot { static let index = 6 }
enum Slot7: FixedSlot { static let index = 7 }

/// Statement ``FixedStatements/texts``[`Slot.index`] with its values and how to read its rows.
struct Fixed<Slot: FixedSlot, Row>: PostgresPreparedStatement {
    static var name: String { "yiana_search_\(Slot.index)" }
    static var sql: String { FixedStatements.texts[Slot.index] }
    let bindings: PostgresBindings
    let decode: @Sendable (PostgresRow) throws -> Row
    func makeBindings() throws -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) throws -> Row { try decode(row) }
}

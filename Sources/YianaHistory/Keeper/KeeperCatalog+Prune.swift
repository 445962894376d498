import Foundation
import YianaFolder
import YianaSQLite

/// What a prune asks of the catalog: cursors and small answers, so that a prune never holds
/// a year's history in memory. Each throws when the catalog cannot be read: a prune that
/// cannot see everything drops nothing.
extension KeeperCatalog {
    /// A kept state as a prune weighs it: its id (its place among the journal's state lines,
    /// from 1), path, bytes and when it was seen.
    struct Weight: Sendable {
        let id: Int64
        let path: String
        let sha256: String
        let seen: Date
    }

    private static let keptStates = "SELECT s.id, s.path, s.sha, s.seen FROM state s JOIN object o ON o.sha = s.sha"

    private static func weight(_ row: SQLRow) -> Weight {
        Weight(id: row[0], path: row[1], sha256: row[2], seen: date(row[3]))
    }

    /// The kept states (their bytes in the store) path by path, newest first within a path
    /// (of states seen at once, the first in the journal first), with what the path is now
    /// and whether its last document's bytes or id are held by a path now.
    func forEachKeptPath(_ body: (_ path: String, _ newestFirst: [Weight], _ record: PathRecord?, _ lastHeld: Bool) throws -> Void) throws {
        try queue.read { db in
            let record = try db.statement(sql: Self.pathQuery + " WHERE p.path = ?")
            let held = try db.statement(sql: """
                SELECT EXISTS (SELECT 1 FROM path WHERE kind = 0 AND sha = ?1) OR EXISTS (SELECT 1 FROM path WHERE kind = 0 AND docid = ?2)
                """)
            func finish(_ path: String, _ states: [Weight]) throws {
                let found = try record.row(arguments: [path]).flatMap(Self.pathRecord)
                let last = found?.lastDocument
                let lastHeld = try last.map { try held.value(Bool.self, arguments: [$0.sha256, $0.documentID]) ?? false } ?? false
                try body(path, states, found, lastHeld)
            }
            let rows = try db.cursor(sql: Self.keptStates + " ORDER BY s.path, s.seen DESC, s.id")
            var path: String?, states: [Weight] = []
            while let row = try rows.next() {
                let state = Self.weight(row)
                if state.path != path {
                    if let path { try finish(path, states) }
                    path = state.path
                    states.removeAll(keepingCapacity: true)
                }
                states.append(state)
            }
            if let path { try finish(path, states) }
        }
    }

    /// The kept states, oldest first (of states seen at once, the first in the journal
    /// first), until `body` returns false.
    func forEachKeptState(_ body: (Weight) throws -> Bool) throws {
        try queue.read { db in
            let rows = try db.cursor(sql: Self.keptStates + " ORDER BY s.seen, s.id")
            while let row = try rows.next() { guard try body(Self.weight(row)) else { return } }
        }
    }

    /// The bytes of the kept states, each once.
    func forEachKeptObject(_ body: (_ sha: String, _ identity: String?) throws -> Void) throws {
        try queue.read { db in
            let rows = try db.cursor(sql: "SELECT DISTINCT s.sha, o.identity FROM state s JOIN object o ON o.sha = s.sha")
            while let row = try rows.next() { try body(row[0], row[1]) }
        }
    }

    func keptStateCount() throws -> Int {
        try queue.read { db in try db.value(Int.self, sql: "SELECT count(*) FROM state s JOIN object o ON o.sha = s.sha") ?? 0 }
    }

    /// Objects no state names.
    func unnamedObjects() throws -> [String] {
        try queue.read { db in try db.values(String.self, sql: "SELECT sha FROM object WHERE sha NOT IN (SELECT sha FROM state)") }
    }

    /// The states whose bytes are not kept (dropped before).
    func unkeptStateIDs() throws -> Set<Int64> {
        try queue.read { db in Set(try db.values(Int64.self, sql: "SELECT id FROM state WHERE sha NOT IN (SELECT sha FROM object)")) }
    }

    /// The states of `ids`: one pass over the states (they are stored by path, not by id).
    func states(ids: Set<Int64>) throws -> [Int64: KeptState] {
        guard !ids.isEmpty else { return [:] }
        return try queue.read { db in
            var found: [Int64: KeptState] = [:]
            let rows = try db.cursor(sql: "SELECT \(Self.stateColumns) FROM state s")
            while let row = try rows.next() {
                let id: Int64 = row[0]
                if ids.contains(id), let state = Self.state(row) { found[id] = state }
            }
            return found
        }
    }

    /// How the bytes `sha256` are kept, when they are.
    func keptObject(_ sha256: String) throws -> Object? {
        try queue.read { db in
            try db.statement(sql: "SELECT modified, how FROM object WHERE sha = ?").row(arguments: [sha256]).flatMap { row in
                KeeperMode(rawValue: row[1]).map { Object(modified: row[0], how: $0) }
            }
        }
    }

    /// The ids of the states at `path`.
    func stateIDs(path: String) throws -> [Int64] {
        try queue.read { db in try db.statement(sql: "SELECT id FROM state WHERE path = ?").values(Int64.self, arguments: [path]) }
    }
}

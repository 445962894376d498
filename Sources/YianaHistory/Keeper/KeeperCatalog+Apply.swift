import Foundation
import YianaFolder
import YianaSQLite
import YianaSystem

extension KeeperCatalog {
    /// Milliseconds since 1970, as the journal writes times.
    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    /// A path's kind in the `path` table.
    enum Kind: Int64 {
        case document = 0, notDocument = 1, gone = 2
    }

    /// Applies journal events to the catalog inside one transaction: what each path is, each
    /// state, each object, and the counts kept up as they come (the kept states and documents;
    /// counted again once bytes are dropped or come back).
    struct Applier {
        let db: SQLConnection
        var position: Position
        private var recount = false

        init(_ db: SQLConnection, _ position: Position) throws {
            self.db = db
            self.position = position
        }

        private func run(_ sql: String, _ arguments: SQLArguments) throws {
            try db.statement(sql: sql).execute(arguments: arguments)
        }

        mutating func apply(_ event: KeeperEvent) throws {
            switch event {
            case .state(let state):
                if let placed = state.placed {
                    // Bytes dropped once are back: what is kept is counted again.
                    if try db.statement(sql: "SELECT 1 FROM dropped WHERE sha = ?").value(Bool.self, arguments: [state.sha256]) != nil {
                        recount = true
                    }
                    try run("INSERT OR REPLACE INTO object(sha, modified, how) VALUES (?, ?, ?)", [state.sha256, placed.modified, placed.how.rawValue])
                }
                position.states += 1
                let id = position.states, seen = KeeperCatalog.ms(state.seenAt)
                try run("""
                    INSERT INTO state(id, sha, size, inode, modified, path, seen, docid, title, reason, how, placedModified)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """, [id, state.sha256, Int64(state.size), state.stamp.inode, state.stamp.modified, state.path, seen, state.documentID,
                          state.title, state.reason, state.placed?.how.rawValue, state.placed?.modified])
                // Bytes kept that are not a document (what a restore replaced) are listed, never current.
                guard let documentID = state.documentID else { return }
                if try db.statement(sql: "SELECT 1 FROM object WHERE sha = ?").value(Bool.self, arguments: [state.sha256]) != nil {
                    position.keptStates += 1
                    try run("INSERT OR IGNORE INTO keptdoc(docid) VALUES (?)", [documentID])
                    position.keptDocuments += Int64(db.changes)
                }
                try run("""
                    INSERT INTO path(path, kind, sha, docid, size, inode, modified, at, goneLastSeen, lastSeen, lastDocument)
                    VALUES (?1, 0, ?2, ?3, ?4, ?5, ?6, NULL, NULL, ?7, ?8)
                    ON CONFLICT(path) DO UPDATE SET kind = 0, sha = ?2, docid = ?3, size = ?4, inode = ?5, modified = ?6, at = NULL,
                        goneLastSeen = NULL, lastSeen = max(coalesce(lastSeen, ?7), ?7), lastDocument = ?8
                    """, [state.path, state.sha256, documentID, state.stamp.size, state.stamp.inode, state.stamp.modified, seen, id])
            case .notDocument(let at, let stamp, let path):
                // The same bad bytes seen again: bad since they were first seen.
                try run("""
                    INSERT INTO path(path, kind, sha, docid, size, inode, modified, at, goneLastSeen, lastSeen, lastDocument)
                    VALUES (?1, 1, NULL, NULL, ?2, ?3, ?4, ?5, NULL, ?5, NULL)
                    ON CONFLICT(path) DO UPDATE SET kind = 1, sha = NULL, docid = NULL, size = ?2, inode = ?3, modified = ?4,
                        at = CASE WHEN kind = 1 AND size IS ?2 AND inode IS ?3 AND modified IS ?4 THEN at ELSE ?5 END,
                        goneLastSeen = NULL, lastSeen = max(coalesce(lastSeen, ?5), ?5)
                    """, [path, stamp.size, stamp.inode, stamp.modified, KeeperCatalog.ms(at)])
            case .gone(let at, let lastSeen, let path):
                try run("""
                    INSERT INTO path(path, kind, at, goneLastSeen) VALUES (?1, 2, ?2, ?3)
                    ON CONFLICT(path) DO UPDATE SET kind = 2, sha = NULL, docid = NULL, size = NULL, inode = NULL, modified = NULL,
                        at = ?2, goneLastSeen = ?3 WHERE kind != 2
                    """, [path, KeeperCatalog.ms(at), KeeperCatalog.ms(lastSeen)])
            case .dropped(_, let sha256, _):
                try run("DELETE FROM object WHERE sha = ?", [sha256])
                try run("INSERT OR IGNORE INTO dropped(sha) VALUES (?)", [sha256])
                recount = true
            }
        }

        /// Counts the kept states and documents again once bytes were dropped (or came back).
        mutating func settle() throws {
            guard recount else { return }
            recount = false
            let kept = "FROM state s WHERE s.docid IS NOT NULL AND EXISTS (SELECT 1 FROM object o WHERE o.sha = s.sha)"
            position.keptStates = try db.value(Int64.self, sql: "SELECT count(*) " + kept) ?? 0
            try db.execute(sql: "DELETE FROM keptdoc; INSERT OR IGNORE INTO keptdoc(docid) SELECT s.docid " + kept)
            position.keptDocuments = try db.value(Int64.self, sql: "SELECT count(*) FROM keptdoc") ?? 0
        }
    }
}

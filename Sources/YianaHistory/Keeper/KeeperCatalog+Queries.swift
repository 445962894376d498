import Foundation
import YianaFolder
import YianaSQLite
import YianaSystem

/// What the keeper's looks, listings, counts and alarm ask of the catalog: each a query of
/// what it is about (a path, a document's states, the paths gone), answered by an index. A
/// catalog that cannot be read answers "nothing known", never a crash; the next refresh
/// rebuilds it.
extension KeeperCatalog {
    /// What the catalog knows of one path.
    struct PathRecord: Sendable, Equatable {
        let path: String
        let state: KeeperPathState
        /// The last time it was seen holding something (a document or not).
        let lastSeen: Date?
        /// The newest document state seen there.
        let lastDocument: KeptState?
    }

    static let stateColumns = "s.id, s.sha, s.size, s.inode, s.modified, s.path, s.seen, s.docid, s.title, s.reason, s.how, s.placedModified"

    /// A state from ``stateColumns`` starting at column `at`.
    static func state(_ row: SQLRow, at i: Int = 0) -> KeptState? {
        guard let sha: String = row[i + 1] else { return nil }
        let size: Int64 = row[i + 2], modified: Int64 = row[i + 4]
        var placed: KeptState.Placement?
        if let how = (row[i + 10] as String?).flatMap(KeeperMode.init(rawValue:)) {
            placed = KeptState.Placement(how: how, modified: row[i + 11] ?? modified)
        }
        return KeptState(sha256: sha, size: UInt64(max(0, size)), stamp: FileStamp(size: size, modified: modified, inode: row[i + 3]),
                         path: row[i + 5], seenAt: date(row[i + 6]), documentID: row[i + 7], title: row[i + 8], reason: row[i + 9], placed: placed)
    }

    static let pathQuery = """
        SELECT p.path, p.kind, p.size, p.inode, p.modified, p.at, p.goneLastSeen, p.lastSeen, \(stateColumns)
        FROM path p LEFT JOIN state s ON s.path = p.path AND s.id = p.lastDocument
        """

    static func pathRecord(_ row: SQLRow) -> PathRecord? {
        let lastDocument = state(row, at: 8)
        let state: KeeperPathState
        switch Kind(rawValue: row[1]) {
        case .document?:
            guard let lastDocument else { return nil }
            state = .document(lastDocument)
        case .notDocument?:
            state = .notDocument(FileStamp(size: row[2], modified: row[4], inode: row[3]), at: date(row[5]))
        case .gone?:
            state = .gone(at: date(row[5]), lastSeen: date(row[6]))
        case nil:
            return nil
        }
        return PathRecord(path: row[0], state: state, lastSeen: (row[7] as Int64?).map(date), lastDocument: lastDocument)
    }

    func read<T>(_ fallback: T, _ body: (SQLConnection) throws -> T) -> T {
        (try? queue.read(body)) ?? fallback
    }

    /// What the catalog knows of `path`.
    func record(of path: String) -> PathRecord? {
        records(of: [path])[path]
    }

    /// What the catalog knows of each of `paths` (those it knows): one query a path, or, for
    /// most of the paths it holds (a backup's whole library), one pass over them all (a tenth
    /// of the time).
    func records(of paths: some Collection<String>) -> [String: PathRecord] {
        read([:]) { db in
            var found: [String: PathRecord] = [:]
            // How many paths it holds, from the counts the triggers keep (no count of rows).
            if paths.count > 1000, let held = try db.value(Int.self, sql: "SELECT sum(n) FROM kinds"), paths.count * 2 > held {
                let wanted = Set(paths)
                let rows = try db.statement(sql: Self.pathQuery).cursor(arguments: [])
                while let row = try rows.next() {
                    let path: String = row[0]
                    if wanted.contains(path), let record = Self.pathRecord(row) { found[path] = record }
                }
                return found
            }
            let statement = try db.statement(sql: Self.pathQuery + " WHERE p.path = ?")
            for path in paths {
                if let record = try statement.row(arguments: [path]).flatMap(Self.pathRecord) { found[path] = record }
            }
            return found
        }
    }

    /// The paths gone or holding bytes that are not a document (lost since `since`, when given).
    func absent(since: Date? = nil) -> [PathRecord] {
        read([]) { db in
            try db.rows(sql: Self.pathQuery + " WHERE p.kind != 0 AND p.at >= ?", arguments: [since.map(Self.ms) ?? Int64.min])
                .compactMap(Self.pathRecord)
        }
    }

    /// The documents lost since `since` (gone and held by no path now, by their bytes or their
    /// id; or overwritten by bytes that are not a document): how many, and the first `first`
    /// of them by time, then path. Counted by SQLite: a pass after thousands of deletions
    /// within the alarm's hour holds none of their records (a soak's watcher at 100,000
    /// documents had held 18,000, about 20 MB, at every pass).
    func losses(since: Date, first: Int) -> (count: Int, earliest: [(path: String, at: Date)]) {
        read((0, [])) { db in
            // One scan: the count is taken over every row before the limit.
            let rows = try db.statement(sql: """
                SELECT p.path, p.at, count(*) OVER () FROM \(Self.lastDocumentStates)
                WHERE p.kind != 0 AND p.at >= ?1 AND (p.kind = 1 OR NOT \(Self.heldNow("s")))
                ORDER BY p.at, p.path LIMIT ?2
                """).rows(arguments: [Self.ms(since), first])
            return (rows.first.map { $0[2] } ?? 0, rows.map { (path: $0[0], at: Self.date($0[1])) })
        }
    }

    /// Each path (`p`) with the state (`s`) of the last document seen there.
    static let lastDocumentStates = "path p JOIN state s ON s.path = p.path AND s.id = p.lastDocument"

    /// SQL true when a path holds a document now with the bytes or the id of the state
    /// `state` (a table's alias): its document is there, or was moved or renamed.
    static func heldNow(_ state: String) -> String {
        "(EXISTS (SELECT 1 FROM path q WHERE q.kind = 0 AND q.sha = \(state).sha) OR EXISTS (SELECT 1 FROM path q WHERE q.kind = 0 AND q.docid = \(state).docid))"
    }

    /// Every path that held something (a document or not) at the last look.
    func holdingPaths() -> [String] {
        read([]) { db in try db.values(String.self, sql: "SELECT path FROM path WHERE kind != 2") }
    }

    /// The paths holding something in `folder` (relative, "" for the library's own) and in
    /// every folder below it, with the file each was last seen as. One read of a range of the
    /// paths' index.
    /// - Throws: when the catalog cannot be read (never an empty answer for a folder that
    ///   holds documents).
    func holdingStamps(below folder: String) throws -> [String: FileStamp] {
        let select = "SELECT path, size, inode, modified FROM path WHERE kind != 2"
        return try queue.read { db in
            // '0' is the byte after '/': every path that starts with the folder's.
            let rows = folder.isEmpty ? try db.cursor(sql: select)
                : try db.cursor(sql: select + " AND path >= ? AND path < ?", arguments: [folder + "/", folder + "0"])
            var found: [String: FileStamp] = [:]
            while let row = try rows.next() { found[row[0]] = FileStamp(size: row[1], modified: row[3], inode: row[2]) }
            return found
        }
    }

    /// The names holding something in `folder` itself (relative, "" for the library's own),
    /// with the file each was last seen as: what a listing of the folder compares with. The
    /// paths' index is read in order, and each folder below is passed over in one seek, so
    /// that the library's own folder costs its own names, not every path below it.
    /// - Throws: as ``holdingStamps(below:)``.
    func holdingStamps(namedIn folder: String) throws -> [String: FileStamp] {
        let prefix = folder.isEmpty ? "" : folder + "/"
        // The name: the path less the folder's (SQLite's substr counts characters, from 1).
        let start = prefix.unicodeScalars.count + 1
        return try queue.read { db in
            let statement = try db.statement(sql: """
                SELECT substr(path, ?2), size, inode, modified FROM path
                WHERE path >= ?1\(folder.isEmpty ? "" : " AND path < ?3") AND kind != 2 ORDER BY path
                """)
            var found: [String: FileStamp] = [:], from = prefix
            reading: while true {
                let rows = try statement.cursor(arguments: folder.isEmpty ? [from, start] : [from, start, folder + "0"])
                while let row = try rows.next() {
                    let name: String = row[0]
                    // In a folder below: all of it passed over ('0' is the byte after '/').
                    if let slash = name.utf8.firstIndex(of: UInt8(ascii: "/")) {
                        from = prefix + name[..<slash] + "0"
                        continue reading
                    }
                    found[name] = FileStamp(size: row[1], modified: row[3], inode: row[2])
                }
                return found
            }
        }
    }

    /// How many paths hold something now (a document or not).
    var holdingCount: Int {
        read(0) { db in try db.value(Int.self, sql: "SELECT sum(n) FROM kinds WHERE kind != 2") ?? 0 }
    }

    /// How many paths hold a document now.
    var holding: Int {
        read(0) { db in try db.value(Int.self, sql: "SELECT n FROM kinds WHERE kind = 0") ?? 0 }
    }

    /// The file each of `paths` was last seen as (a document or not), to tell what changed:
    /// one read for a whole look.
    func stamps(of paths: some Sequence<String>) -> [String: FileStamp] {
        read([:]) { db in
            let statement = try db.statement(sql: "SELECT size, inode, modified FROM path WHERE path = ? AND kind != 2")
            var found: [String: FileStamp] = [:]
            for path in paths {
                if let row = try statement.row(arguments: [path]) { found[path] = FileStamp(size: row[0], modified: row[2], inode: row[1]) }
            }
            return found
        }
    }

    /// The newest document state seen at `path`.
    func lastDocumentState(of path: String) -> KeptState? {
        record(of: path)?.lastDocument
    }

    /// How the bytes `sha256` are kept, when they are.
    func object(_ sha256: String) -> Object? {
        (try? keptObject(sha256)) ?? nil
    }

    /// Every object's bytes named by the catalog.
    func objectHashes() -> [String] {
        read([]) { db in try db.values(String.self, sql: "SELECT sha FROM object") }
    }

    /// True when `path` held something (a document or other bytes) at the last look.
    func holdsSomething(at path: String) -> Bool {
        switch record(of: path)?.state {
        case .document?, .notDocument?: true
        case .gone?, nil: false
        }
    }

    /// The paths holding a document now whose bytes or id are `state`'s.
    func holders(of state: KeptState) -> [String] {
        read([]) { db in
            try db.statement(sql: """
                SELECT path FROM path WHERE kind = 0 AND sha = ?1 UNION SELECT path FROM path WHERE kind = 0 AND docid = ?2
                """).values(String.self, arguments: [state.sha256, state.documentID])
        }
    }

    /// True when the last document state seen at `path` is held by a path now, by its bytes
    /// or its id (it was moved or renamed).
    func heldElsewhere(lastStateOf path: String) -> Bool {
        guard let state = lastDocumentState(of: path) else { return false }
        return held(state)
    }

    func held(_ state: KeptState) -> Bool {
        read(false) { db in
            try db.statement(sql: "SELECT \(Self.heldNow("s")) FROM (SELECT ?1 AS sha, ?2 AS docid) s")
                .value(Bool.self, arguments: [state.sha256, state.documentID]) ?? false
        }
    }

    /// True when `path` is gone because its document left it for another (a move or a
    /// rename, by a command of this machine's or by sync): its id was first seen at another
    /// path no earlier than it was last seen at this one. A document moved, then deleted, is
    /// lost once, at its last path; a copy made while the original was still there does not
    /// hide the original.
    func movedAway(_ path: String) -> Bool {
        guard let record = record(of: path) else { return false }
        return movedAway(record)
    }

    func movedAway(_ record: PathRecord) -> Bool {
        guard case .gone(_, let lastSeen) = record.state, let id = record.lastDocument?.documentID else { return false }
        return read(false) { db in
            try db.statement(sql: """
                SELECT 1 FROM state WHERE docid = ?1 AND path != ?2 GROUP BY path HAVING min(seen) >= ?3 LIMIT 1
                """).value(Bool.self, arguments: [id, record.path, Self.ms(lastSeen)]) != nil
        }
    }

    /// The kept states and the documents they are of, and the documents lost (gone, not moved
    /// and not held elsewhere, or overwritten) of which a state is kept.
    func counts() -> (states: Int, documents: Int, lost: Int) {
        let position = (try? queue.read(Self.position)) ?? Position()
        let lost = read(0) { db in
            try db.value(Int.self, sql: """
                SELECT count(*) FROM \(Self.lastDocumentStates)
                WHERE p.kind != 0 AND EXISTS (SELECT 1 FROM object o WHERE o.sha = s.sha) AND (p.kind = 1 OR (
                    NOT \(Self.heldNow("s"))
                    AND NOT EXISTS (SELECT 1 FROM state t WHERE t.docid = s.docid AND t.path != p.path GROUP BY t.path HAVING min(t.seen) >= p.goneLastSeen)))
                """) ?? 0
        }
        return (Int(position.keptStates), Int(position.keptDocuments), lost)
    }

    /// Every object kept (for a prune).
    func allObjects() -> [String: Object] {
        read([:]) { db in
            var objects: [String: Object] = [:]
            let rows = try db.cursor(sql: "SELECT sha, modified, how FROM object")
            while let row = try rows.next() {
                if let how = KeeperMode(rawValue: row[2]) { objects[row[0]] = Object(modified: row[1], how: how) }
            }
            return objects
        }
    }

    /// Every state, in the journal's order (for a prune).
    func allStates() -> [KeptState] {
        read([]) { db in
            // By a cursor: no row of a year's states is held beside the states themselves.
            var states: [KeptState] = []
            let rows = try db.cursor(sql: "SELECT \(Self.stateColumns) FROM state s ORDER BY s.id")
            while let row = try rows.next() { if let state = Self.state(row) { states.append(state) } }
            return states
        }
    }
}

extension KeeperCatalog {
    /// Everything the catalog answers, to compare it with the whole journal replayed.
    struct Contents: Equatable {
        var states: [KeptState]
        var objects: [String: Object]
        var paths: [String: PathRecord]
        var holding: Int
        var counts: [Int]
    }

    func contents() -> Contents {
        let paths = Set(holdingPaths()).union(absent().map(\.path))
        let counts = counts()
        return Contents(states: allStates(), objects: allObjects(), paths: records(of: paths), holding: holding,
                        counts: [counts.states, counts.documents, counts.lost])
    }
}

extension Keeper {
    /// What is wrong with the catalog beside the journal, for the crash harness: anything it
    /// answers that the whole journal, replayed in memory, does not.
    public func catalogProblems() -> [String] {
        let file = catalog().contents()
        let whole = KeeperCatalog(journal: journal, inMemory: true)
        try? whole.refresh()
        let replayed = whole.contents()
        var problems: [String] = []
        if file.states != replayed.states { problems.append("catalog: \(file.states.count) states, the journal \(replayed.states.count) (or others)") }
        if file.objects != replayed.objects { problems.append("catalog: \(file.objects.count) objects, the journal \(replayed.objects.count) (or others)") }
        for path in Set(file.paths.keys).union(replayed.paths.keys).sorted() where file.paths[path] != replayed.paths[path] {
            problems.append("catalog: \(path) is not what the journal says")
        }
        if file.counts != replayed.counts || file.holding != replayed.holding { problems.append("catalog: counts \(file.counts), the journal \(replayed.counts)") }
        // The kept count of the paths holding a document against the paths counted.
        let documents = file.paths.values.count { if case .document = $0.state { true } else { false } }
        if file.holding != documents { problems.append("catalog: \(file.holding) paths counted holding a document, \(documents) listed") }
        return problems
    }
}

import Foundation
import YianaFolder
import YianaSQLite
import Synchronization
import YianaSystem

/// How the keeper holds a state's bytes.
public enum KeeperMode: String, Codable, Sendable {
    /// A second name of the document's own file (a hard link): no bytes copied. Every writer
    /// the toolkit knows replaces a document by renaming a new file over it, so the linked
    /// file keeps the old bytes.
    case link
    /// A copy sharing the document's data blocks (`FICLONE`, Btrfs and XFS): no bytes copied,
    /// and a write in place to the document leaves it as it was.
    case reflink
    /// A copy of the bytes.
    case copy
}

/// A state of a document this machine saw: its bytes (by SHA-256), where and when.
public struct KeptState: Sendable, Equatable {
    public let sha256: String
    public let size: UInt64
    /// The document's file when it was seen (inode, size, modification time).
    public let stamp: FileStamp
    /// Where it was, relative to the library.
    public let path: String
    public let seenAt: Date
    public let documentID: String?
    public let title: String?
    /// "seen here", or why else it was kept ("replaced by restoring version …").
    public let reason: String
    /// How this state's bytes were put in the store, when it was this state that put them
    /// there (a later state of the same bytes reuses them): and the modification time they
    /// took there (a link's is the document's).
    var placed: Placement? = nil

    struct Placement: Sendable, Equatable {
        let how: KeeperMode
        let modified: Int64
    }

    /// False for bytes kept that are not a document (they have no metadata id).
    public var isDocument: Bool { documentID != nil }
}

/// What a path of the library was when the keeper last looked.
enum KeeperPathState: Sendable, Equatable {
    /// A document, with these bytes.
    case document(KeptState)
    /// Bytes that are not a document (garbage, zero length, truncated), since `at`.
    case notDocument(FileStamp, at: Date)
    /// Nothing, since `at`; last seen at `lastSeen`.
    case gone(at: Date, lastSeen: Date)
}

/// The keeper's journal replayed into SQLite (`catalog.sqlite` beside it): every object, every
/// state seen, and what each path was at the last look, so that what a look, a listing or a
/// count asks costs what it asks about, never a read of the whole history, and no process
/// holds the history in memory.
///
/// The journal stays the truth; the catalog is a checkpoint of it. It records the journal it
/// was built from (device, inode), the bytes read (all complete lines) and the last line read,
/// and each refresh reads only the lines appended since, applied in one transaction with the
/// new offset: a crash leaves it as of one offset or the next, never between. It is trusted
/// only while the journal is that same file, no shorter, and still holds that last line where
/// it was read; anything else (a prune's rewrite, a journal copied over this one, a truncation,
/// a catalog of another format, one SQLite cannot read) rebuilds it from the whole journal.
/// Where no catalog can be written beside the journal, it is built in memory.
final class KeeperCatalog: Sendable {
    struct Object: Sendable, Equatable {
        let modified: Int64
        let how: KeeperMode
    }

    let journal: KeeperJournal
    let queue: SQLDatabase
    /// True when the catalog is a file beside the journal (not built in memory).
    let onDisk: Bool
    /// False for one built in memory because there was no folder for its file (yet).
    let settled: Bool
    var folder: String { journal.url.deletingLastPathComponent().path }
    /// How many times this catalog was built from the whole journal (for the tests).
    private let rebuilds = Atomic(0)
    /// Objects of this catalog's store hashed to check them, in this process (for the tests).
    let hashed = Atomic(0)
    var wholeReads: Int { rebuilds.load(ordering: .relaxed) }

    static let changedInPlace = "changed in place"
    /// The catalog's own format: another is rebuilt. 4: a path's states stored together (a
    /// document's whole history read from a page or two, however many rounds of edits lie
    /// between its states), and each object's verified identity beside it.
    static let format = 4
    static let fileName = "catalog.sqlite"

    /// One per journal per process, opened once.
    private static let open = Mutex<[String: KeeperCatalog]>([:])
    /// Per journal, how many catalogs were made in memory for want of a folder (for the tests).
    private static let unsettled = Mutex<[String: Int]>([:])
    static func madeInMemory(for journal: KeeperJournal) -> Int { unsettled.withLock { $0[journal.url.path] ?? 0 } }

    /// Forgets the catalog of `journal` (one read from a folder about to be removed).
    static func close(_ journal: KeeperJournal) {
        _ = open.withLock { $0.removeValue(forKey: journal.url.path) }
    }

    /// The catalog of `journal`, brought up to date.
    static func of(_ journal: KeeperJournal) -> KeeperCatalog {
        let catalog = open.withLock { open in
            // One in memory for want of a folder is opened again as a file once there is one.
            if let catalog = open[journal.url.path], catalog.settled || FileKind.at(catalog.folder) != .folder { return catalog }
            let catalog = KeeperCatalog(journal: journal)
            open[journal.url.path] = catalog
            if !catalog.settled { unsettled.withLock { $0[journal.url.path, default: 0] += 1 } }
            return catalog
        }
        do {
            try catalog.refresh()
            return catalog
        } catch {
            // A catalog file that cannot be brought up to date (unwritable, damaged, locked
            // too long) is never answered from: this process builds one in memory instead,
            // and a damaged file is removed, to be rebuilt by the next process.
            if catalog.onDisk, (error as? SQLError)?.isDamage == true {
                for suffix in ["", "-wal", "-shm"] { Sys.removeIfPresent(catalog.folder + "/" + fileName + suffix) }
            }
            let memory = KeeperCatalog(journal: journal, inMemory: true)
            try? memory.refresh()
            open.withLock { $0[journal.url.path] = memory }
            return memory
        }
    }

    /// Opens (or makes) the catalog file beside `journal`; in memory when there is no folder
    /// to hold it, it cannot be written, or it is `inMemory`.
    init(journal: KeeperJournal, inMemory: Bool = false) {
        self.journal = journal
        let path = journal.url.deletingLastPathComponent().appendingPathComponent(Self.fileName).path
        settled = inMemory || FileKind.at(journal.url.deletingLastPathComponent().path) == .folder
        if !inMemory, settled, let queue = Self.openFile(path) {
            self.queue = queue
            onDisk = true
        } else {
            self.queue = SQLDatabase()
            try? Self.makeSchema(queue)
            onDisk = false
        }
    }

    /// The catalog file at `path` with its schema, remade once when it cannot be read or is of
    /// another format; nil when it cannot be made.
    private static func openFile(_ path: String) -> SQLDatabase? {
        // The write-ahead log cut back to 4 MB once checkpointed: a first look's or a
        // rebuild's one large transaction leaves no log of its size behind.
        let options = SQLDatabase.Options(
            onOpen: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -4000; PRAGMA journal_size_limit = \(largeLog)")
        for attempt in 0..<2 {
            if attempt == 1 { for suffix in ["", "-wal", "-shm", "-journal"] { Sys.removeIfPresent(path + suffix) } }
            // Made first, private as the journal is (SQLite's own files take its mode).
            if FileKind.at(path) == .missing, let fd = try? Sys.open(path, [.writeOnly, .create], mode: 0o600) { Sys.close(fd) }
            guard let queue = try? SQLDatabase(path: path, options: options) else { continue }
            do {
                let format = try queue.read { db in
                    try db.tableExists("meta") ? try db.value(Int.self, sql: "SELECT value FROM meta WHERE key = 'format'") : nil
                }
                if format == Self.format { return queue }
                if format == nil, try queue.read({ db in try db.tableExists("meta") }) == false {
                    try makeSchema(queue)
                    return queue
                }
            } catch {}
        }
        return nil
    }

    /// Idempotent: two processes making the file at once both find it made.
    private static func makeSchema(_ queue: SQLDatabase) throws {
        try queue.writeWithoutTransaction { db in try db.immediateTransaction {
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value) WITHOUT ROWID;
                -- Clustered by path: a path's states share a page or two, where in the journal's
                -- order each round of edits to the library put them pages apart.
                CREATE TABLE IF NOT EXISTS state(id INTEGER NOT NULL, sha TEXT NOT NULL, size INTEGER NOT NULL, inode INTEGER NOT NULL,
                    modified INTEGER NOT NULL, path TEXT NOT NULL, seen INTEGER NOT NULL, docid TEXT, title TEXT, reason TEXT NOT NULL,
                    how TEXT, placedModified INTEGER, PRIMARY KEY(path, id)) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS state_docid ON state(docid, path, seen) WHERE docid IS NOT NULL;
                -- identity: the object's file when last found to hash to its name (inode, size,
                -- times, links; not the journal's, a catalog rebuilt starts without it).
                CREATE TABLE IF NOT EXISTS object(sha TEXT PRIMARY KEY, modified INTEGER NOT NULL, how TEXT NOT NULL, identity TEXT) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS dropped(sha TEXT PRIMARY KEY) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS path(path TEXT PRIMARY KEY, kind INTEGER NOT NULL, sha TEXT, docid TEXT, size INTEGER, inode INTEGER,
                    modified INTEGER, at INTEGER, goneLastSeen INTEGER, lastSeen INTEGER, lastDocument INTEGER) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS path_sha ON path(sha) WHERE kind = 0;
                CREATE INDEX IF NOT EXISTS path_docid ON path(docid) WHERE kind = 0;
                CREATE INDEX IF NOT EXISTS path_absent ON path(kind, at) WHERE kind != 0;
                CREATE TABLE IF NOT EXISTS keptdoc(docid TEXT PRIMARY KEY) WITHOUT ROWID;
                -- How many paths are of each kind, kept by the triggers as the rows change: the
                -- counts a look asks for, read in O(1) rather than counted over every path.
                CREATE TABLE IF NOT EXISTS kinds(kind INTEGER PRIMARY KEY, n INTEGER NOT NULL);
                INSERT OR IGNORE INTO kinds(kind, n) VALUES (0, 0), (1, 0), (2, 0);
                CREATE TRIGGER IF NOT EXISTS path_in AFTER INSERT ON path BEGIN UPDATE kinds SET n = n + 1 WHERE kind = NEW.kind; END;
                CREATE TRIGGER IF NOT EXISTS path_out AFTER DELETE ON path BEGIN UPDATE kinds SET n = n - 1 WHERE kind = OLD.kind; END;
                CREATE TRIGGER IF NOT EXISTS path_kind AFTER UPDATE OF kind ON path WHEN OLD.kind != NEW.kind BEGIN
                    UPDATE kinds SET n = n - 1 WHERE kind = OLD.kind; UPDATE kinds SET n = n + 1 WHERE kind = NEW.kind;
                END;
                """)
            try db.execute(sql: "INSERT OR IGNORE INTO meta(key, value) VALUES ('format', ?)", arguments: [format])
        } }
    }

    // MARK: Keeping up with the journal

    /// Where the catalog's reading of the journal stopped.
    struct Position: Equatable {
        var device: Int64 = 0
        var inode: Int64 = 0
        /// The bytes read, all complete lines.
        var offset: Int64 = 0
        /// The last line read whole (up to ``tailLength`` bytes): a journal copied over this one
        /// in place that ends alike (the same document seen again) still differs there, in the
        /// time each line begins with.
        var tail: [UInt8] = []
        /// States applied (each state's id is its place among the journal's state lines).
        var states: Int64 = 0
        var keptStates: Int64 = 0
        var keptDocuments: Int64 = 0
    }

    static let tailLength = 4096

    static func position(_ db: SQLConnection) throws -> Position {
        var position = Position()
        for row in try db.rows(sql: "SELECT key, value FROM meta") {
            let key: String = row[0]
            switch key {
            case "device": position.device = row[1]
            case "inode": position.inode = row[1]
            case "offset": position.offset = row[1]
            case "tail": position.tail = Array((row[1] as Data?) ?? Data())
            case "states": position.states = row[1]
            case "keptStates": position.keptStates = row[1]
            case "keptDocuments": position.keptDocuments = row[1]
            default: break
            }
        }
        return position
    }

    private static func save(_ position: Position, _ db: SQLConnection) throws {
        let values: [(String, any SQLValue)] = [
            ("device", position.device), ("inode", position.inode), ("offset", position.offset), ("tail", Data(position.tail)),
            ("states", position.states), ("keptStates", position.keptStates), ("keptDocuments", position.keptDocuments),
        ]
        let statement = try db.statement(sql: "INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)")
        for (key, value) in values { try statement.execute(arguments: [key, value]) }
    }

    /// Reads what was appended to the journal since the last refresh (or, when the journal is
    /// not the one read, all of it), in one transaction with the new position.
    /// - Throws: the database's error when it cannot be read or written (``of(_:)`` then
    ///   answers from a catalog built in memory).
    func refresh() throws {
        let path = journal.url.path
        let fd = try? Sys.open(path, [.readOnly])
        defer { if let fd { Sys.close(fd) } }
        let found = fd.flatMap { try? Sys.fstat($0, path: path) }
        func current(_ position: Position) -> Bool? {
            guard let fd, let found else { return position.offset == 0 && position.states == 0 && position.inode == 0 }
            guard position.device == Int64(found.st_dev), position.inode == Int64(found.st_ino), found.size >= position.offset,
                  (try? Sys.pread(fd, count: position.tail.count, at: UInt64(position.offset) - UInt64(position.tail.count), path: path)) == position.tail
            else { return false }
            return found.size == position.offset ? true : nil
        }
        // Nothing appended: no write, no lock.
        if let position = try? queue.read(Self.position), current(position) == true { return }
        try queue.writeWithoutTransaction { db in
            var applied: Int64 = 0
            try db.immediateTransaction {
                var position = try Self.position(db)
                switch current(position) {
                case true?:
                    return  // another process caught up meanwhile
                case false?:
                    try Self.clear(db)
                    rebuilds.add(1, ordering: .relaxed)
                    position = Position(device: found.map { Int64($0.st_dev) } ?? 0, inode: found.map { Int64($0.st_ino) } ?? 0)
                case nil:
                    break
                }
                if let fd, let found, found.size > position.offset {
                    var applier = try Applier(db, position)
                    try JournalLines.read(fd, path: path, from: UInt64(position.offset), to: UInt64(found.size)) { line in
                        if let event = KeeperEvent(line: line) { try applier.apply(event) }
                    } ended: { read, tail in
                        applier.position.offset += Int64(read)
                        if !tail.isEmpty { applier.position.tail = tail }
                    }
                    try applier.settle()
                    applied = applier.position.offset - position.offset
                    position = applier.position
                }
                try Self.save(position, db)
            }
            // A large catch-up (a first look, a rebuild, a round of edits to every document)
            // folded into the file at once, and its log cut back: it would otherwise stay on
            // disk at the size of that transaction, and every process that next opened the
            // catalog alone would read it all again to recover it (a 23 MB log after ten
            // rounds of edits to 1,000 documents). Told by the log's size: a catch-up's log is
            // about ten times the journal bytes it applied.
            if applied > 0, let log = FileStamp(path: folder + "/" + Self.fileName + "-wal"), log.size > Self.largeLog {
                try? db.checkpointTruncating()
            }
        }
    }

    /// The write-ahead log's size past which a catch-up is checkpointed at once (the catalog's
    /// `journal_size_limit`).
    static let largeLog: Int64 = 4 << 20

    private static func clear(_ db: SQLConnection) throws {
        try db.execute(sql: "DELETE FROM state; DELETE FROM object; DELETE FROM dropped; DELETE FROM path; DELETE FROM keptdoc; DELETE FROM meta WHERE key != 'format'")
    }
}

/// The complete lines of a journal's bytes, read a piece at a time (a year's journal is never
/// in memory whole).
enum JournalLines {
    static let chunk = 1 << 22

    /// Calls `line` with each complete line of bytes `from..<to`, then `ended` with the bytes
    /// those lines take and the last one's last ``KeeperCatalog/tailLength`` bytes (empty when
    /// there was no complete line). A line still being written is left for the next read.
    static func read(_ fd: Int32, path: String, from: UInt64, to: UInt64, line: (Substring) throws -> Void,
                     ended: (UInt64, [UInt8]) -> Void) throws {
        var offset = from, carried: [UInt8] = [], read: UInt64 = 0, lastLine: [UInt8] = []
        while offset < to {
            let bytes = try Sys.pread(fd, count: Int(min(UInt64(chunk), to - offset)), at: offset, path: path)
            guard !bytes.isEmpty else { break }
            offset += UInt64(bytes.count)
            carried += bytes
            guard let end = carried.lastIndex(of: UInt8(ascii: "\n")) else { continue }
            let complete = carried[...end]
            for piece in complete.split(separator: 0x0A, omittingEmptySubsequences: true) {
                try line(Substring(decoding: piece, as: UTF8.self))
            }
            let start = complete.dropLast().lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? complete.startIndex
            lastLine = Array(complete[start...].suffix(KeeperCatalog.tailLength))
            read += UInt64(complete.count)
            carried = Array(carried[(end + 1)...])
        }
        ended(read, lastLine)
    }
}

import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// One line of the keeper's journal: what this machine saw of a library, in the order seen.
///
/// The journal is read on every indexing run and every watcher pass, so it is tab-separated
/// text read without a JSON decoder (10,000 lines in milliseconds); a path or title with a
/// tab, a line break or a backslash is escaped.
enum KeeperEvent: Sendable, Equatable {
    /// The document at `path` was seen holding the bytes `sha256`, as the file `stamp`; with
    /// ``KeptState/placed``, this is the state that put those bytes in the store.
    case state(KeptState)
    /// The file at `path` was seen holding bytes that are not a document.
    case notDocument(at: Date, stamp: FileStamp, path: String)
    /// Nothing was at `path` any more; `lastSeen` is when a look last found it there.
    case gone(at: Date, lastSeen: Date, path: String)
    /// The bytes `sha256` were dropped from the store (pruned, or found changed in place).
    case dropped(at: Date, sha256: String, why: String)

    var line: String {
        switch self {
        case .state(let state):
            // Kept short: a line per state of every document (a link: "l"; a clone or copy, with
            // its own modification time: "r…", "c…"); "seen here", the usual reason, is empty.
            let placed = state.placed.map { $0.how == .link ? "l" : ($0.how == .reflink ? "r" : "c") + String($0.modified) } ?? ""
            return ["S", Self.time(state.seenAt), state.sha256, String(state.size), String(state.stamp.inode), String(state.stamp.modified),
                    TabSeparated.escape(state.documentID ?? ""), TabSeparated.escape(state.title ?? ""), state.reason == Keeper.seenHere ? "" : TabSeparated.escape(state.reason),
                    TabSeparated.escape(state.path), placed]
                .joined(separator: "\t")
        case .notDocument(let at, let stamp, let path):
            return ["B", Self.time(at), String(stamp.size), String(stamp.inode), String(stamp.modified), TabSeparated.escape(path)].joined(separator: "\t")
        case .gone(let at, let lastSeen, let path):
            return ["G", Self.time(at), Self.time(lastSeen), TabSeparated.escape(path)].joined(separator: "\t")
        case .dropped(let at, let sha256, let why):
            return ["D", Self.time(at), sha256, TabSeparated.escape(why)].joined(separator: "\t")
        }
    }

    init?(line: Substring) {
        // Split by bytes: splitting by characters would segment every line into graphemes.
        let f = line.utf8.split(separator: 0x09, omittingEmptySubsequences: false).map { Substring($0) }
        guard let kind = f.first, f.count >= 2, let at = Self.date(f[1]) else { return nil }
        switch kind {
        case "S":
            guard f.count == 11, f[2].utf8.count == 64, let size = UInt64(f[3]), let inode = Int64(f[4]), let modified = Int64(f[5]) else { return nil }
            let id = TabSeparated.unescape(f[6]), title = TabSeparated.unescape(f[7]), reason = TabSeparated.unescape(f[8])
            var placed: KeptState.Placement?
            if let how = f[10].first {
                let own = Int64(f[10].dropFirst())
                switch how {
                case "l": placed = KeptState.Placement(how: .link, modified: modified)
                case "r": placed = own.map { KeptState.Placement(how: .reflink, modified: $0) }
                case "c": placed = own.map { KeptState.Placement(how: .copy, modified: $0) }
                default: return nil
                }
                guard placed != nil else { return nil }
            }
            self = .state(KeptState(sha256: String(f[2]), size: size, stamp: FileStamp(size: Int64(size), modified: modified, inode: inode),
                                    path: TabSeparated.unescape(f[9]), seenAt: at, documentID: id.isEmpty ? nil : id,
                                    title: title.isEmpty ? nil : title, reason: reason.isEmpty ? Keeper.seenHere : reason, placed: placed))
        case "B":
            guard f.count == 6, let size = Int64(f[2]), let inode = Int64(f[3]), let modified = Int64(f[4]) else { return nil }
            self = .notDocument(at: at, stamp: FileStamp(size: size, modified: modified, inode: inode), path: TabSeparated.unescape(f[5]))
        case "G":
            guard f.count == 4, let lastSeen = Self.date(f[2]) else { return nil }
            self = .gone(at: at, lastSeen: lastSeen, path: TabSeparated.unescape(f[3]))
        case "D":
            guard f.count == 4 else { return nil }
            self = .dropped(at: at, sha256: String(f[2]), why: TabSeparated.unescape(f[3]))
        default:
            return nil
        }
    }

    /// Milliseconds since 1970.
    private static func time(_ date: Date) -> String { String(Int64((date.timeIntervalSince1970 * 1000).rounded())) }
    private static func date(_ text: Substring) -> Date? { Int64(text).map { Date(timeIntervalSince1970: Double($0) / 1000) } }
}

/// The keeper's journal file (`journal.tsv` in its folder): appended to under a lock, each
/// batch `fsync`ed after the objects it names are in place, so a crash leaves at most an
/// object nobody lists, never a listed state without its bytes; a last line torn by a crash
/// is skipped when read and ended before the next append.
///
/// Its first line names its format (`# yiana keeper journal 1`): a journal of a later format
/// is read for what this version understands, and never written to (its lines could be
/// undone by a rewrite of an older format).
struct KeeperJournal: Sendable {
    let url: URL

    static let format = 1
    static let header = "# yiana keeper journal \(format)"

    func read() -> [KeeperEvent] {
        var events: [KeeperEvent] = []
        try? forEachEvent { events.append($0) }
        return events
    }

    /// Calls `body` with each event of the journal's complete lines, in order, a piece of the
    /// file at a time; nothing when there is no journal.
    func forEachEvent(_ body: (KeeperEvent) throws -> Void) throws {
        guard let fd = try? Sys.open(url.path, [.readOnly]) else { return }
        defer { Sys.close(fd) }
        let size = try Sys.fstat(fd, path: url.path).size
        try JournalLines.read(fd, path: url.path, from: 0, to: UInt64(max(0, size))) { line in
            if let event = KeeperEvent(line: line) { try body(event) }
        } ended: { _, _ in }
    }

    /// Appends `events`, with one `fsync`.
    /// - Throws: ``VersionStoreError/unwritable(_:_:)`` naming the journal.
    func append(_ events: [KeeperEvent]) throws {
        guard !events.isEmpty else { return }
        try withLock { try appendLocked(events) }
    }

    func appendLocked(_ events: [KeeperEvent]) throws {
        var text = events.map(\.line).joined(separator: "\n") + "\n"
        var newer: Int?
        do throws(SystemError) {
            try Sys.closeAfter(try Sys.open(url.path, [.readWrite, .append, .create], mode: 0o600)) { fd throws(SystemError) in
                let end = try Sys.fstat(fd, path: url.path).size
                if end == 0 {
                    text = Self.header + "\n" + text
                } else if let format = Self.format(of: try Sys.pread(fd, count: 64, at: 0, path: url.path)), format > Self.format {
                    newer = format
                    return
                } else if try Sys.pread(fd, count: 1, at: end - 1, path: url.path) != [UInt8(ascii: "\n")] {
                    text = "\n" + text
                }
                try Sys.writeAll(fd, Array(text.utf8), path: url.path)
                try Sys.fsync(fd, path: url.path)
            }
        } catch {
            throw VersionStoreError.unwritable(url.path, error.code.description)
        }
        if let newer { throw Self.newerFormat(url, newer) }
    }

    /// The format a journal's first bytes name, if they name one.
    static func format(of head: [UInt8]) -> Int? {
        let line = String(decoding: head.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
        guard line.hasPrefix("# yiana keeper journal ") else { return nil }
        return Int(line.dropFirst("# yiana keeper journal ".count))
    }

    static func newerFormat(_ url: URL, _ format: Int) -> VersionStoreError {
        .unwritable(url.path, "it is in format \(format), made by a newer yiana; this one writes format \(Self.format) (update yiana)")
    }

    /// Replaces the whole journal with `events` (after a prune), crash-safely; call holding
    /// ``withLock(_:)``.
    /// Throws when the journal is of a later format than this version writes.
    func checkWritable() throws {
        // Its first line only: not the whole journal read to learn its format.
        let head = (try? Sys.closeAfter(try Sys.open(url.path, [.readOnly])) { fd throws(SystemError) in try Sys.pread(fd, count: 64, at: 0, path: url.path) }) ?? []
        if let format = Self.format(of: head), format > Self.format {
            throw Self.newerFormat(url, format)
        }
    }

    func rewriteLocked(_ events: [KeeperEvent]) throws {
        try rewriteLocked { emit in for event in events { try emit(event) } }
    }

    /// Replaces the journal by the events `produce` hands over, written as they come (a
    /// megabyte at a time, never the whole journal in memory) to a temporary file that takes
    /// the journal's name once it is on disk.
    func rewriteLocked(_ produce: (_ emit: (KeeperEvent) throws -> Void) throws -> Void) throws {
        try checkWritable()
        do {
            let temp = try TemporaryFile(beside: url.path, mode: 0o600)
            var buffer = Array((Self.header + "\n").utf8)
            try produce { event in
                buffer += (event.line + "\n").utf8
                if buffer.count >= 1 << 20 {
                    try temp.write(buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            try temp.write(buffer)
            try temp.sync()
            _ = try temp.place(at: url.path, .replacing)
        } catch let error as SystemError {
            throw VersionStoreError.unwritable(url.path, error.code.description)
        }
    }

    /// Runs `body` holding the journal's exclusive lock.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        let lock = try DocumentLock(document: url.path, mode: .exclusive, timeout: CoordinatedDocument.defaultLockTimeout)
        defer { lock.release() }
        return try body()
    }
}

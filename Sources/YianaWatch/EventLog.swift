import Foundation
import YianaLibrary
import YianaSystem

/// One line of the watcher's event log.
public struct WatchEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// The watcher started (detail: folders watched) or stopped (detail: why).
        case started, stopped
        /// A full scan: at start, on the interval, or after the kernel's queue overflowed.
        case rescan
        /// A document was indexed (detail: extracted, reused, or its status).
        case indexed
        /// A document left the index (deleted, or moved out of the library).
        case removed
        /// A document was recognised by OCR (detail: the status).
        case ocr
        /// The people of a document were written to its address file (`--extract`).
        case extracted
        /// A problem seen for the first time: damaged, conflict, not downloaded, a temporary file.
        case problem
        /// A problem that was reported is gone.
        case cleared
        /// Something the watcher did on its own (`--resolve identical`).
        case action
        /// A pass failed (detail: why); the watcher goes on.
        case error
    }

    public let time: Date
    public let kind: Kind
    public let path: String?
    public let code: String?
    public let detail: String?

    public init(time: Date = Date(), kind: Kind, path: String? = nil, code: String? = nil, detail: String? = nil) {
        self.time = time
        self.kind = kind
        self.path = path
        self.code = code
        self.detail = detail
    }
}

/// The watcher's event log: JSON lines in this machine's state for the library (never in the
/// synced folder), `watch-events.jsonl`, each line appended whole (`O_APPEND`). At
/// ``limit`` bytes it moves to `watch-events.1.jsonl` (the one before is dropped), so the log
/// stays bounded however long the watcher runs.
public final class EventLog: @unchecked Sendable {
    // @unchecked: `fd` and `size` are touched only under `lock`.
    public let url: URL
    public let limit: Int
    private let lock = NSLock()
    private var fd: Int32 = -1
    private var size = 0
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .internetTime
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    public init(library: Library, limit: Int = 8 << 20) {
        url = LocalState(library: library).folder.appendingPathComponent("watch-events.jsonl")
        self.limit = limit
    }

    deinit {
        if fd >= 0 { Sys.close(fd) }
    }

    /// Appends `event`; a log that cannot be written is not an error of the watcher's (the
    /// event is still returned to the caller, who prints it with --json).
    public func append(_ event: WatchEvent) {
        guard var line = try? encoder.encode(event) else { return }
        line.append(0x0A)
        lock.lock()
        defer { lock.unlock() }
        if fd < 0 || size >= limit { reopen(rotating: fd >= 0) }
        guard fd >= 0 else { return }
        if (try? Sys.writeAll(fd, line, path: url.path)) != nil { size += line.count }
    }

    private func reopen(rotating: Bool) {
        if fd >= 0 { Sys.close(fd) }
        fd = -1
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if rotating {
            try? Sys.rename(url.path, url.deletingPathExtension().path + ".1.jsonl")
        }
        guard let opened = try? Sys.open(url.path, [.writeOnly, .create, .append], mode: 0o600) else { return }
        fd = opened
        size = Int((try? Sys.fstat(opened, path: url.path))?.size ?? 0)
    }

    /// The events logged from `from` until `to`, in the rotated file and the current one,
    /// oldest first.
    public func events(from: Date, to: Date) -> [WatchEvent] {
        (Self.read(url.deletingPathExtension().appendingPathExtension("1.jsonl")) + Self.read(url))
            .filter { $0.time >= from && $0.time < to }
    }

    /// The events logged so far (the current file only), oldest first.
    public static func read(_ url: URL) -> [WatchEvent] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .internetTime
        return data.split(separator: 0x0A).compactMap { try? decoder.decode(WatchEvent.self, from: Data($0)) }
    }
}

/// The watcher's health, for `yiana status`: kept in this machine's state
/// (`watch-health.json`), rewritten after each pass and every minute while idle.
public struct WatchHealth: Codable, Sendable, Equatable {
    public var pid: Int32
    public var started: Date
    /// The last time the watcher wrote this (a heartbeat).
    public var heartbeat: Date
    public var lastEvent: Date?
    public var lastPass: Date?
    public var passes = 0
    /// Paths changed and not yet handled.
    public var queued = 0
    public var foldersWatched = 0
    public var lastError: String?
    public var lastErrorAt: Date?
    /// Set when the watcher stopped cleanly.
    public var stopped: Date?

    public static func file(for library: Library) -> StateFile<WatchHealth> {
        LocalState(library: library).stateFile("watch-health.json")
    }

    /// Running: not stopped, and its process is alive.
    public var isRunning: Bool { stopped == nil && Sys.signal(pid, 0) }
}

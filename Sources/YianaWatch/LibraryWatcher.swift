import Foundation
import YianaArchive
import YianaLibrary
import YianaNotify
import YianaOCR
import YianaPostgres
import YianaSearch
import YianaSync
import YianaSystem

/// How `yiana watch` works.
public struct WatchOptions: Sendable {
    /// The search index kept current: a file, or a database on a PostgreSQL server.
    public var index: IndexLocation
    /// Documents extracted (and pages recognised) at once.
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Seconds a file must have been left alone before it is acted on (``Arrival``): a sync
    /// program writing it in place, or through its temporary names, is given that long.
    public var settle = Arrival.defaultWindow
    /// Seconds without a new event before changes are handled, so that a burst of events for
    /// one file (or a thousand files) becomes one pass.
    public var quiet = 0.5
    /// The longest changes wait while events keep coming.
    public var maxDelay = 2.0
    /// Seconds between full scans: the safety net for changes inotify cannot see (a network
    /// file system, a folder over the watch limit).
    public var rescanEvery = 600.0
    /// Recognise new documents that need it (`yiana ocr`'s options).
    public var ocr: OCROptions?
    /// Collapse copies identical to their document (kept in the version store).
    public var resolveIdentical = false
    /// Append the letters in `.letters/inject/` to their documents (``Injector``).
    public var inject = false
    /// Write the people of new and changed documents to their address files (``ExtractionRun``).
    public var extract = false
    /// Tells the library's person of incidents (`--notify`).
    public var notifier: Notifier?
    /// Tells a monitor off this box that the watcher lives (`--heartbeat`).
    public var heartbeat: Heartbeat?
    /// When the notifier sends the digest (`--digest`); nil: never.
    public var digest: DigestSchedule?

    public init(index: IndexLocation) {
        self.index = index
    }
}

/// `yiana watch` on one library: inotify over the library's folders (not the toolkit's, the
/// app's or a sync program's), a pass of the same incremental work as `yiana index` once
/// events have been quiet for a moment, and a full scan at start, on an interval and when the
/// kernel's queue overflows. Each pass keeps the index current, recognises new scans (with
/// OCR), and reports problems the first time they are seen: damaged documents, conflict
/// copies, evicted placeholders, leftover temporary files, and the app's companion files
/// that sync conflict-copied or that the app cannot decode. Every event goes to the library's
/// event log (``EventLog``) and to `emit`; the watcher's health to ``WatchHealth``.
public final class LibraryWatcher {
    public let library: Library
    public let options: WatchOptions
    public let log: EventLog
    let emit: (WatchEvent) -> Void
    let healthFile: StateFile<WatchHealth>
    var health: WatchHealth
    /// Problems reported and still present: key (`code path`) → what was said.
    var reported: [String: String] = [:]
    /// The documents in the index whose status is not ok, as the passes found them: a pass
    /// told what changed reads only those documents' statuses.
    var notable: [String: IndexReport.Document] = [:]
    /// The keeper's mass-loss alarm as the last pass found it.
    var alarm: MassLossAlarm?
    /// Documents whose OCR backs off, and when to try them again.
    var ocrRetry: [String: Date] = [:]
    /// The app's companion files as last checked: read again only when a file changed.
    var companionChecks: [String: (identity: FileIdentity, problems: [VerifyProblem])] = [:]
    let index: any IndexStore
    let waitQueue = DispatchQueue(label: "yiana.watch.wait")
    /// Documents' facts for conflict detection, read again only when a file changed.
    let factsCache = FactsCache()
    /// The library's walk, each folder listed again only when inotify named something in it.
    let scanCache: LibraryScanCache
    /// What the next pass must walk whole, what came after the last scan not being known: at
    /// start and after a failed pass. (The periodic rescan and an overflowed queue list every
    /// folder again instead: the pass then costs what changed, not the library.)
    var walkWhole = true
    /// Documents the keeper could not record as they are, and those the index run wrote as still
    /// arriving or failed: the next pass looks at them again whatever inotify says.
    var unsettled: Set<String> = []

    /// Held while this watcher lives: one watcher per library on this machine.
    private let lock: DocumentLock

    /// - Throws: ``WatchError/alreadyWatched`` when another watcher of this machine has the
    ///   library; when the index cannot be opened.
    public init(library: Library, options: WatchOptions, emit: @escaping (WatchEvent) -> Void = { _ in }) async throws {
        self.library = library
        self.options = options
        self.emit = emit
        healthFile = WatchHealth.file(for: library)
        do {
            // A lock of this machine's (not a file in the library): the kernel drops it when the process dies.
            lock = try DocumentLock(document: library.root.path + "/.yiana-watch", mode: .exclusive, timeout: 0)
        } catch let error as ArchiveError {
            guard case .lockTimeout = error.kind else { throw error }
            throw WatchError.alreadyWatched(library.root.path, pid: healthFile.load()?.pid)
        }
        log = EventLog(library: library)
        scanCache = LibraryScanCache(library: library)
        health = WatchHealth(pid: ProcessInfo.processInfo.processIdentifier, started: Date(), heartbeat: Date())
        index = try await options.index.openForWriting(library)
    }

    /// Logs and emits one event.
    func record(_ kind: WatchEvent.Kind, path: String? = nil, code: String? = nil, detail: String? = nil) {
        let event = WatchEvent(kind: kind, path: path, code: code, detail: detail)
        log.append(event)
        emit(event)
        if kind == .error {
            health.lastError = detail
            health.lastErrorAt = event.time
        }
    }

    func writeHealth() {
        health.heartbeat = Date()
        _ = try? healthFile.update(initial: health) { $0 = health }
    }

    /// A folder never watched: the toolkit's, the app's OCR results and the sync programs' own
    /// (and any other hidden one), as the library scanner skips them; the app's companion
    /// folders at the root (`.addresses`, `.letters`) are watched.
    static func skipFolder(_ path: String, root: String) -> Bool {
        guard path != root, path.hasPrefix(root + "/") else { return false }
        let parts = path.dropFirst(root.count + 1).split(separator: "/").map(String.init)
        return parts.enumerated().contains { index, part in
            !(index == 0 && CompanionFile.folders.contains(part)) && LibraryScanner.foreign(part, isFolder: true) != nil
        }
    }

    /// Watches until `stop` is asked for (`wake` becomes readable then): the first pass at
    /// once, then a pass after each quiet spell of events, a full scan every `rescanEvery`.
    /// - Throws: when inotify cannot start; a failed pass is logged and the watcher goes on.
    public func run(wake: Int32, shouldStop: () -> Bool) async throws {
        let root = library.root.path
        let inotify = try Inotify(skip: { Self.skipFolder($0, root: root) })
        inotify.watchTree(root)
        health.foldersWatched = inotify.count
        record(.started, detail: "\(inotify.count) folders watched" + unwatchedNote(inotify))
        var dirty = Set<String>()
        var everyFolder = false  // events may have been missed: every folder listed again
        var firstDirty: Date?
        var due: Date? = Date()
        var nextRescan = Date().addingTimeInterval(options.rescanEvery)
        var lastBeat = Date.distantPast
        while !shouldStop() {
            let deadline = [due, nextRescan, lastBeat.addingTimeInterval(60), options.heartbeat?.nextDue, options.notifier?.nextDue].compactMap { $0 }.min()!
            let timeout = max(0, deadline.timeIntervalSinceNow)
            // The wait blocks a thread of its own queue, never one of Swift's few shared ones.
            let ready = await withCheckedContinuation { continuation in
                waitQueue.async { continuation.resume(returning: inotify.wait(timeout: timeout, wake: wake)) }
            }
            if ready {
                let batch = inotify.read()
                if batch.overflowed {
                    record(.rescan, detail: "the kernel's event queue overflowed; everything is scanned again")
                    inotify.watchTree(root)
                    everyFolder = true
                    due = Date()
                }
                if batch.foldersLost.contains(root) { record(.error, detail: "the library folder \(root) is gone") }
                dirty.formUnion(batch.foldersLost)
                if !batch.events.isEmpty {
                    let now = Date()
                    dirty.formUnion(batch.events.map(\.path))
                    health.lastEvent = now
                    if firstDirty == nil { firstDirty = now }
                    due = min(now.addingTimeInterval(options.quiet), firstDirty!.addingTimeInterval(options.maxDelay))
                }
            }
            if shouldStop() { break }
            if Date() >= nextRescan {
                record(.rescan, detail: "every \(Int(options.rescanEvery)) s")
                inotify.watchTree(root)
                everyFolder = true
                due = Date()
                nextRescan = Date().addingTimeInterval(options.rescanEvery)
            }
            if let when = due, Date() >= when {
                health.queued = dirty.count
                // Folders inotify could not watch (its limit reached) are listed every pass.
                let changed = walkWhole ? nil : dirty.union(inotify.unwatched.keys).union(everyFolder ? scanCache.folders : [])
                dirty.removeAll()
                everyFolder = false
                firstDirty = nil
                due = await pass(changed: changed)
                health.foldersWatched = inotify.count
                health.queued = dirty.count
                writeHealth()
                lastBeat = Date()
            }
            if Date().timeIntervalSince(lastBeat) >= 60 {
                writeHealth()
                notifyTick()
                lastBeat = Date()
            }
            retryDue()
            options.heartbeat?.beatIfDue(failing: failing)
        }
        await options.notifier?.waitForDelivery()
        health.stopped = Date()
        record(.stopped, detail: "asked to stop")
        writeHealth()
        await index.close()
    }

    /// One pass and no watching (`yiana watch --once`, for a timer instead of a running
    /// watcher). Returns false when the pass logged an error.
    public func runOnce() async -> Bool {
        record(.started, detail: "one pass")
        let before = health.lastErrorAt
        _ = await pass(changed: nil)
        await options.notifier?.deliverOffPool()  // before the process ends: what cannot be delivered waits for the next run
        await options.heartbeat?.beat(failing: failing)
        health.stopped = Date()
        record(.stopped, detail: "one pass done")
        writeHealth()
        await index.close()
        return health.lastErrorAt == before
    }

    private func unwatchedNote(_ inotify: Inotify) -> String {
        guard let first = inotify.unwatched.first else { return "" }
        return "; \(inotify.unwatched.count) could not be (\(first.value)); raise fs.inotify.max_user_watches, the full scan every \(Int(options.rescanEvery)) s covers them meanwhile"
    }
}

public enum WatchError: Error, CustomStringConvertible {
    case alreadyWatched(String, pid: Int32?)

    public var description: String {
        switch self {
        case .alreadyWatched(let path, let pid):
            "\(path) is already watched by another yiana watch on this machine\(pid.map { " (pid \($0))" } ?? ""): see `yiana status`; stop it first (or let it do the work)"
        }
    }
}

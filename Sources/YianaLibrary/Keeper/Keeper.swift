import Crypto
import Foundation
import YianaArchive
import YianaSystem

/// What one look of the keeper did.
public struct KeeperReport: Codable, Sendable, Equatable {
    /// New document states recorded.
    public var kept = 0
    /// Of those, states whose bytes were not in the store yet (identical bytes are kept once).
    public var newObjects = 0
    /// Bytes copied to keep them (0 where links or reflinks did).
    public var bytesCopied: UInt64 = 0
    /// Documents found gone since the last look (moved ones not counted).
    public var gone: [String] = []
    /// Documents whose file now holds bytes that are not a document.
    public var notDocuments: [String] = []
    /// Kept states found changed in place (a program rewrote a linked document in place):
    /// no longer offered.
    public var damaged: [String] = []
    /// What could not be kept, and why.
    public var failures: [String] = []
    /// The mass-loss alarm, when it is raised.
    public var alarm: MassLossAlarm?

    public init() {}
}

/// Every document state this machine sees is kept here, outside the synced folder, so that
/// a deletion or an overwrite that sync carries here can be undone (`yiana versions list
/// --deleted`, `versions restore`). The shared version store keeps what yiana itself
/// replaced; the keeper keeps what others replaced.
///
/// States are keyed by content (`objects/<sha256>`, each kept once) and kept by hard link
/// where the store is on the library's file system (no bytes copied: every writer replaces a
/// document by renaming a new file over it, so the linked file keeps the old bytes), else by
/// reflink, else by copy (``KeeperPlace``). A journal (``KeeperJournal``) records each state,
/// when and where it was seen, and each document found gone or turned to garbage. A program
/// that rewrites documents in place would change a linked state: that is noticed (the file's
/// inode is the same, its time or size moved), the state is no longer offered, and the store
/// stops linking for that library. Every state's SHA-256 is checked again before it is offered.
public struct Keeper: Sendable {
    public let library: Library
    public let place: KeeperPlace
    let journal: KeeperJournal
    let objectsFolder: URL

    /// The keeper of `library`, in its place (``KeeperPlace/choose(for:environment:)``).
    public init(library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(library: library, place: KeeperPlace.choose(for: library, environment: environment))
    }

    init(library: Library, place: KeeperPlace) {
        self.library = library
        self.place = place
        journal = KeeperJournal(url: place.folder.appendingPathComponent("journal.tsv"))
        objectsFolder = place.folder.appendingPathComponent("objects")
    }

    /// False where `$YIANA_KEEP` is `0` or `off` (for a benchmark's run without the keeper).
    public static func isEnabled(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        OwnWrites.keeping(environment)
    }

    /// Where the bytes `sha256` are.
    public func objectURL(_ sha256: String) -> URL {
        objectsFolder.appendingPathComponent(sha256)
    }

    var lastLookFile: URL { place.folder.appendingPathComponent("last-look") }
    var snapshot: KeeperSnapshot { KeeperSnapshot(url: place.folder.appendingPathComponent("snapshot")) }

    /// The journal replayed: read whole once per process, then only what was appended since
    /// (``CatalogCache``): a watcher's pass or a server's page pays for the lines that are new.
    func catalog() -> KeeperCatalog {
        CatalogCache.shared.catalog(of: journal)
    }

    // MARK: Looking

    /// A whole look at the library (`scan`, as an indexing run or a watcher pass made it):
    /// keeps every document whose file changed since the last look, records the documents
    /// gone (a moved one is not gone) and those turned to bytes that are not a document, and
    /// raises or clears the mass-loss alarm. Placeholders are never states: an evicted
    /// document is not a deleted one. Never throws: what fails is in the report.
    public func look(_ scan: LibraryScan, arrival: Arrival, jobs: Int = 2, now: Date = Date()) async -> KeeperReport {
        var report = KeeperReport()
        let items = scan.items.compactMap { item -> (url: URL, path: String, placeholder: Bool, stamp: FileStamp?)? in
            guard let path = item.documentPath ?? library.relativePath(of: item.documentURL) else { return nil }
            return (item.url, path, item.kind == .placeholder, item.stamp ?? FileStamp(path: item.url.path))
        }
        let entries = items.map { (path: $0.path, placeholder: $0.placeholder, stamp: $0.stamp) }
        // Nothing changed since the last look: no journal read.
        if snapshot.matches(entries) {
            writeLastLook(now)
            report.alarm = alarm()
            pruneIfDue(now: now)
            return report
        }
        var catalog = catalog()
        let previousLook = readLastLook()
        var seen = Set<String>()
        var work: [(url: URL, path: String, stamp: FileStamp)] = []
        for item in items {
            seen.insert(item.path)
            guard !item.placeholder, let stamp = item.stamp else { continue }
            if catalog.stamp(of: item.path) != stamp { work.append((item.url, item.path, stamp)) }
        }
        var events = await keep(work, catalog: &catalog, arrival: arrival, reason: Self.seenHere, jobs: jobs, now: now, report: &report)
        for path in catalog.presentPaths where !seen.contains(path) {
            let lastSeen = max(catalog.lastSeen[path] ?? now, min(previousLook ?? now, now))
            let event = KeeperEvent.gone(at: now, lastSeen: lastSeen, path: path)
            events.append(event)
            catalog.apply(event)
        }
        guard write(events, report: &report) else { return report }
        let present = PresentContent(catalog)
        report.gone = events.compactMap { event in
            guard case .gone(_, _, let path) = event, !present.holds(lastStateOf: path, in: catalog) else { return nil }
            return path
        }.sorted()
        writeLastLook(now)
        snapshot.write(entries) { index in entries[index].placeholder || catalog.stamp(of: entries[index].path) == entries[index].stamp }
        saveCounts(catalog)
        report.alarm = updateAlarm(catalog, present: present, now: now)
        pruneIfDue(now: now)
        return report
    }

    /// Keeps the documents at `urls` (a command just read or wrote them): a partial look,
    /// which records no document as gone.
    @discardableResult
    public func observe(_ urls: [URL], reason: String = Keeper.seenHere, now: Date = Date()) async -> KeeperReport {
        var report = KeeperReport()
        var catalog = catalog()
        var work: [(url: URL, path: String, stamp: FileStamp)] = []
        for url in urls {
            guard let path = library.relativePath(of: url), let stamp = FileStamp(path: url.path), FileKind.at(url.path) == .regular,
                  catalog.stamp(of: path) != stamp else { continue }
            work.append((url, path, stamp))
        }
        guard !work.isEmpty else { return report }
        let events = await keep(work, catalog: &catalog, arrival: nil, reason: reason, jobs: 1, now: now, report: &report)
        if write(events, report: &report) { saveCounts(catalog) }
        return report
    }

    /// Appends `events` to the journal once the bytes they name are durable; a failure is
    /// the report's. Returns false on a failure.
    @discardableResult
    private func write(_ events: [KeeperEvent], report: inout KeeperReport) -> Bool {
        do {
            try prepare()
            if report.newObjects > 0 { try fsyncObjects() }
            try journal.append(events)
            return true
        } catch {
            report.failures.append("\(error)")
            return false
        }
    }

    /// Keeps whatever bytes are at `url`, a document or not (what a restore replaces): the
    /// state, or nil when there is nothing there.
    /// - Throws: ``VersionStoreError`` when it cannot be kept.
    public func keepAnyBytes(at url: URL, reason: String, now: Date = Date()) throws -> VersionRecord? {
        guard let path = library.relativePath(of: url), FileStamp(path: url.path) != nil else { return nil }
        try prepare()
        var catalog = catalog()
        var mode = place.mode
        switch keepOne(url: url, path: path, reason: reason, anyBytes: true, known: catalog.objects, mode: &mode, now: now) {
        case .kept(let state, _):
            let event = KeeperEvent.state(state)
            try fsyncObjects()
            try journal.append([event])
            catalog.apply(event)
            return record(state, catalog: catalog)
        case .failed(let why):
            throw VersionStoreError.unwritable(objectsFolder.path, why)
        case .notDocument, .vanished:
            return nil
        }
    }

    public static let seenHere = "seen here"

    /// A document this machine deleted on purpose (`yiana delete`, a page's Delete), kept by
    /// ``keepAnyBytes(at:reason:now:)`` just before: recorded gone at once, so that it is listed
    /// as deleted (`versions list --deleted`, "Recently deleted") before the next look.
    /// - Throws: ``VersionStoreError`` when the journal cannot be written.
    public func recordDeleted(_ path: String, now: Date = Date()) throws {
        let catalog = catalog()
        try prepare()
        try journal.append([KeeperEvent.gone(at: now, lastSeen: catalog.lastSeen[path] ?? now, path: path)])
    }

    /// Makes the names of the objects placed durable (once for a batch of links) before the
    /// journal names them.
    func fsyncObjects() throws {
        do { try Sys.fsyncDirectory(objectsFolder.path) } catch {
            throw VersionStoreError.unwritable(objectsFolder.path, error.code.description)
        }
    }

    func prepare() throws {
        do throws(SystemError) {
            try Sys.makeDirectory(place.folder.deletingLastPathComponent().path, mode: 0o700)
            try Sys.makeDirectory(place.folder.path, mode: 0o700)
            try Sys.makeDirectory(objectsFolder.path, mode: 0o700)
        } catch {
            if FileKind.at(objectsFolder.path) != .folder {
                try FileManager.default.createDirectory(at: objectsFolder, withIntermediateDirectories: true)
            }
        }
    }

    /// Keeps each of `work` (on `jobs` workers), returning the journal's events for them,
    /// applied to `catalog`.
    private func keep(_ work: [(url: URL, path: String, stamp: FileStamp)], catalog: inout KeeperCatalog, arrival: Arrival?,
                      reason: String, jobs: Int, now: Date, report: inout KeeperReport) async -> [KeeperEvent] {
        guard !work.isEmpty else { return [] }
        var events: [KeeperEvent] = []
        // A linked state whose document was rewritten in place shares that document's file:
        // its bytes are gone. Such states are dropped first, and links stop for this library.
        var mode = place.mode
        for (_, path, stamp) in work {
            guard case .document(let index) = catalog.paths[path] else { continue }
            let old = catalog.states[index]
            guard old.stamp.inode == stamp.inode, old.stamp != stamp, catalog.objects[old.sha256]?.how == .link,
                  FileStamp(path: objectURL(old.sha256).path)?.inode == stamp.inode else { continue }
            events.append(KeeperEvent.dropped(at: now, sha256: old.sha256, why: KeeperCatalog.changedInPlace))
            report.damaged.append(path)
            markRewrittenInPlace("a program rewrote \(path) in place", now: now)
            mode = .reflink
        }
        if !events.isEmpty {
            // Recorded before anything else is written, so the damaged states are never offered;
            // their names in the store go only once that is done.
            if (try? journal.append(events)) != nil {
                for case .dropped(_, let sha256, _) in events {
                    catalog.apply(KeeperEvent.dropped(at: now, sha256: sha256, why: KeeperCatalog.changedInPlace))
                    Sys.removeIfPresent(objectURL(sha256).path)
                }
            }
            events.removeAll()
        }
        try? prepare()
        let known = catalog.objects
        let startMode = mode
        let outcomes: [(Int, KeepOutcome)] = await withTaskGroup(of: (Int, KeepOutcome).self) { group in
            var next = 0
            var results: [(Int, KeepOutcome)] = []
            func addNext() {
                guard next < work.count else { return }
                let index = next, item = work[next]
                next += 1
                group.addTask {
                    var mode = startMode
                    return (index, self.keepOne(url: item.url, path: item.path, reason: reason, anyBytes: false, known: known, mode: &mode, now: now))
                }
            }
            for _ in 0..<max(1, min(jobs, work.count)) { addNext() }
            for await result in group {
                results.append(result)
                addNext()
            }
            return results.sorted { $0.0 < $1.0 }
        }
        var placed = Set<String>()
        for (index, outcome) in outcomes {
            let item = work[index]
            switch outcome {
            case .kept(var state, let copied):
                if state.placed != nil, catalog.objects[state.sha256] == nil, placed.insert(state.sha256).inserted {
                    report.newObjects += 1
                    report.bytesCopied += copied
                } else {
                    state.placed = nil  // the bytes were there already
                }
                let event = KeeperEvent.state(state)
                events.append(event)
                catalog.apply(event)
                report.kept += 1
            case .notDocument(let stamp):
                // A file still arriving is looked at again; only a settled one is recorded.
                if let arrival, arrival.stillArriving(item.url, whole: false) != nil { continue }
                let event = KeeperEvent.notDocument(at: now, stamp: stamp, path: item.path)
                events.append(event)
                catalog.apply(event)
                report.notDocuments.append(item.path)
            case .vanished:
                continue  // gone or replaced while it was looked at: the next look sees what is there
            case .failed(let why):
                report.failures.append("\(item.path): \(why)")
            }
        }
        return events
    }

    func readLastLook() -> Date? {
        guard let data = FileManager.default.contents(atPath: lastLookFile.path),
              let ms = Int64(String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else { return nil }
        return Date(timeIntervalSince1970: Double(ms) / 1000)
    }

    /// When the last whole look was (not `fsync`ed: a lost time only makes "last seen" earlier).
    private func writeLastLook(_ date: Date) {
        let text = String(Int64(date.timeIntervalSince1970 * 1000))
        try? Sys.closeAfter(try Sys.open(lastLookFile.path, [.writeOnly, .create, .truncate], mode: 0o600)) { fd throws(SystemError) in
            try Sys.writeAll(fd, Array(text.utf8), path: lastLookFile.path)
        }
    }
}

/// The documents present at the last look, by id and by content: a path that is gone while
/// its document (or its bytes) is elsewhere was moved, not deleted.
struct PresentContent {
    var ids = Set<String>()
    var hashes = Set<String>()

    /// `present`: whether a path the catalog last saw holding a document still holds a file
    /// (for a listing between two looks: a command may have moved one since).
    init(_ catalog: KeeperCatalog, present: (String) -> Bool = { _ in true }) {
        for (path, state) in catalog.paths {
            guard case .document(let index) = state, present(path) else { continue }
            hashes.insert(catalog.states[index].sha256)
            if let id = catalog.states[index].documentID { ids.insert(id) }
        }
    }

    /// True when the last document state seen at `path` is present elsewhere (moved, renamed).
    func holds(lastStateOf path: String, in catalog: KeeperCatalog) -> Bool {
        guard let state = catalog.lastDocumentState(of: path) else { return false }
        return hashes.contains(state.sha256) || state.documentID.map(ids.contains) == true
    }
}

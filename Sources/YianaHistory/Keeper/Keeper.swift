import Crypto
import Foundation
import YianaFolder
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
    /// Documents not recorded as they are now (still arriving, vanished while read, failed):
    /// a look told only what changed (``LibraryScan/changes``) must be told of them again.
    public var unsettled: [String] = []

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
    /// `objectsFolder`'s path, made once (a URL makes its path anew each time it is asked).
    let objectsPath: String
    /// Documents kept, and their lines written, a batch at a time: a first look at 100,000
    /// documents holds one batch's states in memory, and what it did is in the journal as it goes.
    var batch = 1000

    /// The keeper of `library`, in its place (``KeeperPlace/choose(for:environment:)``).
    public init(library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(library: library, place: KeeperPlace.choose(for: library, environment: environment))
    }

    init(library: Library, place: KeeperPlace) {
        self.library = library
        self.place = place
        journal = KeeperJournal(url: place.folder.appendingPathComponent("journal.tsv"))
        objectsFolder = place.folder.appendingPathComponent("objects")
        objectsPath = objectsFolder.path
    }

    /// False where `$YIANA_KEEP` is `0` or `off` (for a benchmark's run without the keeper).
    public static func isEnabled(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        OwnWrites.keeping(environment)
    }

    /// Where the bytes `sha256` are.
    public func objectURL(_ sha256: String) -> URL {
        URL(fileURLWithPath: objectPath(sha256), isDirectory: false)
    }

    /// ``objectURL(_:)``'s path, without a URL: a listing asks it for every state it shows.
    func objectPath(_ sha256: String) -> String {
        objectsPath + "/" + sha256
    }

    var lastLookFile: URL { place.folder.appendingPathComponent("last-look") }
    var snapshot: KeeperSnapshot { KeeperSnapshot(url: place.folder.appendingPathComponent("snapshot")) }
    var folderRecord: KeeperFolders { KeeperFolders(url: place.folder.appendingPathComponent("folders")) }

    /// The journal's catalog, brought up to date: it reads only the lines appended since any
    /// process last did (``KeeperCatalog``), so a watcher's pass, a server's page or a command
    /// pays for the lines that are new and for what it asks, never for the history.
    func catalog() -> KeeperCatalog {
        KeeperCatalog.of(journal)
    }

    // MARK: Looking

    /// A whole look at the library (`scan`, as an indexing run or a watcher pass made it):
    /// keeps every document whose file changed since the last look, records the documents
    /// gone (a moved one is not gone) and those turned to bytes that are not a document, and
    /// raises or clears the mass-loss alarm. Placeholders are never states: an evicted
    /// document is not a deleted one. Never throws: what fails is in the report.
    ///
    /// A scan that says what changed since the caller's last one (``LibraryScan/changes``, a
    /// watcher's pass) is looked at only there: the cost is what changed, not the library.
    public func look(_ scan: LibraryScan, arrival: Arrival, jobs: Int = 2, now: Date = Date()) async -> KeeperReport {
        var report = KeeperReport()
        let entries: [Entry]
        var gone: (KeeperCatalog) -> [String]
        /// Per entry: true when the last whole look recorded it as it is now.
        var unchanged: [Bool]?
        if let changes = scan.changes {
            entries = Self.entries(changes.items, library: library)
            let here = Set(entries.map(\.path))
            gone = { catalog in changes.paths.filter { !here.contains($0) && catalog.holdsSomething(at: $0) } }
        } else {
            entries = Self.entries(scan.items, library: library)
            gone = { _ in [] }
        }
        // The snapshot read once for a whole look; a partial one goes by what it was told.
        let reading = scan.changes == nil ? snapshot.read(entries) : nil
        // Nothing changed since the last look: no journal read.
        if scan.changes?.paths.isEmpty ?? reading?.matches == true {
            writeLastLook(now)
            folderRecord.write(scan.folders, unsettled: [], listedAt: scan.listedAt)
            report.alarm = alarm()
            pruneIfDue(now: now)
            return report
        }
        if let reading {
            unchanged = reading.recorded
            gone = { [unchanged] catalog in Self.gone(entries, unchanged: unchanged, catalog: catalog) }
        }
        guard let gonePaths = await record(entries, unchanged: unchanged, gone: gone, arrival: arrival, jobs: jobs, now: now, report: &report) else {
            folderRecord.remove()  // what the catalog holds may not be what the folders hold
            return report
        }
        folderRecord.write(scan.folders, unsettled: Set(report.unsettled.map { ($0 as NSString).deletingLastPathComponent }), listedAt: scan.listedAt)
        // Read again: the catalog extended by what was just written.
        let catalog = catalog()
        report.gone = gonePaths.filter { !catalog.heldElsewhere(lastStateOf: $0) }.sorted()
        writeLastLook(now)
        if let reading {
            // Only what was not recorded as it is now is asked of the catalog.
            let stamps = catalog.stamps(of: entries.indices.lazy.filter { unchanged?[$0] != true }.map { entries[$0].path })
            snapshot.write(entries, as: reading) { index in
                entries[index].placeholder || unchanged?[index] == true || stamps[entries[index].path] == entries[index].stamp
            }
        } else {
            // What the last whole look recorded is no longer what is here.
            Sys.removeIfPresent(snapshot.url.path)
        }
        report.alarm = updateAlarm(catalog, now: now)
        pruneIfDue(now: now)
        return report
    }

    /// A document as a look sees it: its file (absolute), where it is (relative), whether it is
    /// a placeholder, its stamp.
    typealias Entry = (file: String, path: String, placeholder: Bool, stamp: FileStamp?)

    /// The paths the catalog holds that a whole look's `entries` no longer have. When as many
    /// distinct paths here are held as the catalog holds, none is gone: counted, with only
    /// the entries the last whole look did not record as they are (`unchanged`) asked about,
    /// not the catalog's every path listed.
    static func gone(_ entries: [Entry], unchanged: [Bool]?, catalog: KeeperCatalog) -> [String] {
        // Each path counted once: a document and its placeholder stand for one. Without a
        // placeholder every entry's path is its own, and no set of every path is made to count.
        // (By index, and what the last look recorded first: an entry is not copied, its two
        // strings retained and released, 100,000 times a look.)
        let placeholders = entries.indices.contains { entries[$0].placeholder }
        var seen = Set<String>(), asked: [String] = [], held = 0
        for index in entries.indices where !placeholders || seen.insert(entries[index].path).inserted {
            if unchanged?[index] == true && !entries[index].placeholder { held += 1 } else { asked.append(entries[index].path) }
        }
        if unchanged != nil, held + catalog.stamps(of: asked).count == catalog.holdingCount { return [] }
        if !placeholders { seen = Set(entries.lazy.map(\.path)) }
        return catalog.holdingPaths().filter { !seen.contains($0) }
    }

    static func entries(_ items: [LibraryItem], library: Library) -> [Entry] {
        items.compactMap { item in
            guard let path = library.documentPath(of: item) else { return nil }
            return (item.path, path, item.kind == .placeholder, item.stamp ?? FileStamp(path: item.path))
        }
    }

    /// Writes what a look records: the states of `entries` whose files changed since the
    /// catalog last saw them (kept), a batch at a time, then the paths `gone` names (as the
    /// catalog was before the look); with what is unsettled in `report`. Returns the paths
    /// recorded gone, nil when the journal could not be written (the failure is the report's).
    /// `always`: the store's folders are made even when there is nothing to write.
    private func record(_ entries: [Entry], unchanged: [Bool]? = nil, gone: (KeeperCatalog) -> [String], arrival: Arrival?,
                        reason: String = Keeper.seenHere, jobs: Int, now: Date, always: Bool = true, report: inout KeeperReport) async -> [String]? {
        // The store's folder made first, so that the catalog is its file from the start: a
        // first look, which keeps every document, never builds one in memory the library's size.
        if always || !entries.isEmpty { try? prepare() }
        let catalog = catalog()
        let previousLook = readLastLook()
        // What the last whole look recorded as it is now is what the catalog holds: not asked.
        let asked = entries.indices.filter { unchanged?[$0] != true && !entries[$0].placeholder }
        let stamps = catalog.stamps(of: asked.lazy.map { entries[$0].path })
        let work = asked.compactMap { index -> (file: String, path: String, stamp: FileStamp)? in
            let entry = entries[index]
            guard let stamp = entry.stamp, stamps[entry.path] != stamp else { return nil }
            return (entry.file, entry.path, stamp)
        }
        let gonePaths = gone(catalog)
        let goneEvents = gonePaths.map { path in
            KeeperEvent.gone(at: now, lastSeen: max(catalog.record(of: path)?.lastSeen ?? now, min(previousLook ?? now, now)), path: path)
        }
        for start in stride(from: 0, to: work.count, by: batch) {
            let events = await keep(Array(work[start..<min(start + batch, work.count)]), catalog: catalog, arrival: arrival,
                                    reason: reason, jobs: jobs, now: now, report: &report)
            guard events.isEmpty || write(events, report: &report) else { return nil }
            if start + batch < work.count { try? catalog.refresh() }  // the bytes this batch placed are known to the next
        }
        guard goneEvents.isEmpty && !always || write(goneEvents, report: &report) else { return nil }
        return gonePaths
    }

    /// Keeps the documents at `urls` (a command just read or wrote them): a partial look,
    /// which records no document as gone.
    @discardableResult
    public func observe(_ urls: [URL], reason: String = Keeper.seenHere, now: Date = Date()) async -> KeeperReport {
        var report = KeeperReport()
        let entries = urls.compactMap { url -> Entry? in
            guard let path = library.relativePath(of: url), FileKind.at(url.path) == .regular else { return nil }
            return (url.path, path, false, FileStamp(path: url.path))
        }
        _ = await record(entries, gone: { _ in [] }, arrival: nil, reason: reason, jobs: 1, now: now, always: false, report: &report)
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
        var mode = place.mode
        switch keepOne(url: url, path: path, reason: reason, anyBytes: true, known: catalog(), mode: &mode, now: now) {
        case .kept(let state, _):
            try fsyncObjects()
            try journal.append([KeeperEvent.state(state)])
            return record(state)
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
        let lastSeen = catalog().record(of: path)?.lastSeen
        try prepare()
        try journal.append([KeeperEvent.gone(at: now, lastSeen: lastSeen ?? now, path: path)])
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

    /// Keeps each of `work` (on `jobs` workers), returning the journal's events for them (not
    /// applied to `catalog`); what is not recorded is in the report's `unsettled`.
    private func keep(_ work: [(file: String, path: String, stamp: FileStamp)], catalog: KeeperCatalog, arrival: Arrival?,
                      reason: String, jobs: Int, now: Date, report: inout KeeperReport) async -> [KeeperEvent] {
        guard !work.isEmpty else { return [] }
        var events: [KeeperEvent] = []
        // A linked state whose document was rewritten in place shares that document's file:
        // its bytes are gone. Such states are dropped first, and links stop for this library.
        var mode = place.mode
        let records = catalog.records(of: work.map(\.path))
        for (_, path, stamp) in work {
            guard case .document(let old)? = records[path]?.state else { continue }
            guard old.stamp.inode == stamp.inode, old.stamp != stamp, catalog.object(old.sha256)?.how == .link,
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
                try? catalog.refresh()
                for case .dropped(_, let sha256, _) in events { Sys.removeIfPresent(objectURL(sha256).path) }
            }
            events.removeAll()
        }
        try? prepare()
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
                    return (index, self.keepOne(url: URL(fileURLWithPath: item.file, isDirectory: false), path: item.path, reason: reason, anyBytes: false, known: catalog, mode: &mode, now: now))
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
                if state.placed != nil, placed.insert(state.sha256).inserted, catalog.object(state.sha256) == nil {
                    report.newObjects += 1
                    report.bytesCopied += copied
                } else {
                    state.placed = nil  // the bytes were there already
                }
                events.append(KeeperEvent.state(state))
                report.kept += 1
            case .notDocument(let stamp):
                // A file still arriving is looked at again; only a settled one is recorded.
                if let arrival, arrival.stillArriving(file: item.file, whole: false) != nil {
                    report.unsettled.append(item.path)
                    continue
                }
                events.append(KeeperEvent.notDocument(at: now, stamp: stamp, path: item.path))
                report.notDocuments.append(item.path)
            case .vanished:
                report.unsettled.append(item.path)  // gone or replaced while it was looked at: the next look sees what is there
            case .failed(let why):
                report.failures.append("\(item.path): \(why)")
                report.unsettled.append(item.path)
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

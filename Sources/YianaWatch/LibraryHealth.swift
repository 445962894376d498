import Foundation
import YianaVersion
import YianaArchive
import YianaLibrary
import YianaNotify
import YianaOCR
import YianaSearch
import YianaSystem

/// The whole library's health in one answer (`yiana status`, the server's health page): how
/// many documents, and how many are not downloaded, damaged, still arriving, in conflict,
/// waiting for OCR or failed, not indexed, with what to run for each.
///
/// It reads no document: one walk of the library's folders (names, sizes, times), the search
/// index's record of each document (its status, and the file it was made from: a document
/// whose file changed since is "not indexed", its state unknown until `yiana index` reads it),
/// the OCR failures file, and the watcher's heartbeat.
public struct LibraryHealth: Codable, Sendable {
    /// One state with the documents in it and what to do.
    public struct State: Codable, Sendable, Equatable {
        /// A stable name: `not-downloaded`, `damaged`, `arriving`, `in-conflict`,
        /// `waiting-for-ocr`, `ocr-failed`, `no-words-found`, `not-extracted`, `not-indexed`, `leftover-temps`.
        public let state: String
        public let count: Int
        /// What it means, in words.
        public let meaning: String
        /// The command that deals with them.
        public let run: String
        /// The documents (relative paths), in order.
        public let paths: [String]
    }

    public struct IndexInfo: Codable, Sendable, Equatable {
        public let path: String
        public let documents: Int
        public let lastRun: Date?
    }

    /// The version of the yiana that gathered it (`yiana --version`).
    public var version = YianaVersion.string
    public var library: String
    public var documents = 0
    /// Documents in none of the states below.
    public var fine = 0
    public var states: [State] = []
    /// Nil when the library has no search index yet.
    public var index: IndexInfo?
    public var watcher: WatchHealth?
    public var watcherRunning = false
    /// The keeper of every state seen here: where, how, what it holds of lost documents, and
    /// the mass-loss alarm (nil when the keeper is off).
    public var keeper: KeeperSummary?
    /// The last message sent to the library's person and what waits to be delivered, and why
    /// (`watch --notify`; nil when none was ever sent or queued).
    public var notifications: NotifyStatus?
    /// How long gathering took, and what it read.
    public var seconds = 0.0
    public var read = ""

    /// Gathers the library's health; `indexPath`: its search index (the default location when nil).
    public static func gather(_ library: Library, indexPath: String? = nil, now: Date = Date()) async throws -> LibraryHealth {
        let path = indexPath ?? SearchIndex.defaultLocation(for: library.root)
        let index = FileManager.default.fileExists(atPath: path) ? try? SearchIndex(readingAt: path) : nil
        return try await gather(library, index: index, now: now)
    }

    /// Gathers the library's health with `index` (nil: the library has no index yet).
    public static func gather(_ library: Library, index: (any IndexStore)?, now: Date = Date()) async throws -> LibraryHealth {
        let started = Date()
        var health = LibraryHealth(library: library.root.path)
        let scan = try LibraryScanner.scan(library)
        let arrival = Arrival(scan: scan, now: now)
        health.documents = scan.items.count
        let notifications = Notifier.status(of: library)
        if !notifications.isEmpty { health.notifications = notifications }
        // The app's address files there are, by their names (a document's title or file name).
        let extracted = Set(scan.companions.filter { $0.kind == .addressExtraction && !$0.isTemp && !$0.isConflictCopy }.compactMap(\.key))
        var indexed: [String: IndexFreshness.Entry]?
        var titles: [String: String] = [:]
        if let index, let entries = try? await IndexFreshness.entries(index) {
            indexed = entries.documents
            health.index = IndexInfo(path: index.location, documents: entries.documents.count, lastRun: entries.lastRun)
            // The titles that can name an address file, not every document's (none without one).
            if !extracted.isEmpty {
                titles = Dictionary(((try? await index.addressRecords(paths: nil, named: extracted)) ?? []).map { ($0.path, $0.title) }, uniquingKeysWith: { first, _ in first })
            }
        }

        var buckets: [String: [String]] = [:]
        var all: [String] = []
        for item in scan.items {
            let relative = library.documentPath(of: item) ?? item.path
            all.append(relative)
            if item.kind == .placeholder { buckets["not-downloaded", default: []].append(relative) }
            if arrival.stillArriving(file: item.path) != nil { buckets["arriving", default: []].append(relative) }
            if ConflictName(fileName: item.name).isSyncConflict { buckets["in-conflict", default: []].append(relative) }
            guard let indexed else {
                buckets["not-indexed", default: []].append(relative)
                continue
            }
            guard let entry = indexed[relative], entry.stamp == (item.stamp ?? FileStamp(path: item.path)) else {
                buckets["not-indexed", default: []].append(relative)
                continue
            }
            switch entry.status {
            case .damaged, .encrypted, .failed: buckets["damaged", default: []].append(relative)
            case .noTextLayer: buckets["waiting-for-ocr", default: []].append(relative)
            case .noWordsFound: buckets["no-words-found", default: []].append(relative)
            case .ok:
                if extracted.isEmpty || !extracted.contains(AddressRecord.stem(of: item.documentName)) && !(titles[relative].map(extracted.contains) ?? false) {
                    buckets["not-extracted", default: []].append(relative)
                }
            case .notDownloaded, .stillArriving: break
            }
        }
        buckets["damaged", default: []] += scan.irregular.map(\.path)
        buckets["leftover-temps"] = scan.leftoverTemps.map { library.relativePath(of: $0) ?? $0.path }
        buckets["ocr-failed"] = OCRFailures(library: library).all().keys.sorted()
        health.states = describe(buckets, indexed: indexed != nil)
        // Only facts, not troubles: scans without words, and documents whose people nobody extracted.
        let troubled = Set(health.states.filter { !["no-words-found", "not-extracted"].contains($0.state) }.flatMap(\.paths))
        health.fine = all.filter { !troubled.contains($0) }.count

        if Keeper.isEnabled() { health.keeper = Keeper(library: library).summary() }
        health.watcher = WatchHealth.file(for: library).load()
        health.watcherRunning = health.watcher?.isRunning ?? false
        health.seconds = Date().timeIntervalSince(started)
        health.read = "the library's folders (\(scan.folders.count), names, sizes and times of \(scan.items.count) documents and of the app's address files; no document opened)"
            + (indexed == nil ? "" : ", the search index's record of each document") + ", the OCR failures, the keeper's journal and the watcher's heartbeat"
        return health
    }

    /// The states in the order a person deals with them, each with its meaning and command.
    static func describe(_ buckets: [String: [String]], indexed: Bool) -> [State] {
        let order: [(String, String, String)] = [
            ("arriving", "a sync program is writing them now", "wait a few seconds; commands leave them for later (or use --now)"),
            ("damaged", "damaged or unreadable when last read (by the index)", "yiana verify, then yiana repair"),
            ("leftover-temps", "temporary files of interrupted writes", "yiana repair --remove-temps"),
            ("in-conflict", "conflict copies a sync program made", "yiana conflicts resolve --strategy merge --dry-run"),
            ("not-downloaded", "evicted: only a placeholder is here", "yiana download --all"),
            ("ocr-failed", "OCR failed on them; tried again later", "yiana ocr --all --retry"),
            ("waiting-for-ocr", "scanned pages without text, not recognised yet", "yiana ocr --all"),
            ("no-words-found", "OCR found no words on them (images without text?)", "nothing: only their titles, tags and folders are searchable"),
            ("not-extracted", "text but no address file: the app shows no people for them", "yiana extract --all"),
            ("not-indexed", indexed ? "new or changed since the search index last read them (their state is not known)"
                : "the library has no search index yet (damage and OCR states are not known)", "yiana index"),
        ]
        return order.compactMap { state, meaning, run in
            guard let paths = buckets[state], !paths.isEmpty else { return nil }
            return State(state: state, count: paths.count, meaning: meaning, run: run, paths: paths.sorted())
        }
    }
}

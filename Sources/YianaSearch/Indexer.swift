import Foundation
import YianaLibrary
import YianaPDF
import YianaSystem

/// How an indexing run goes.
public struct IndexOptions: Sendable {
    /// How many documents are extracted at once.
    public var jobs: Int
    /// Re-extract every document instead of only the changed ones.
    public var full: Bool
    /// Documents committed per transaction (also committed at least once a second).
    var batchSize = 64
    /// Seconds a damaged file must have been left alone to count as damaged rather than
    /// still arriving (``Arrival``); 0 with `--now`.
    public var settle = Arrival.defaultWindow
    /// List every document in the report (`documents`); when false, only those with a
    /// problem, and `documentCount` says how many there are: what a person reads, and
    /// cheaper over a large library.
    public var listEveryDocument = true

    public init(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, full: Bool = false) {
        self.jobs = max(1, jobs)
        self.full = full
    }
}

/// What an indexing run did, and the status of every document in the index.
public struct IndexReport: Codable, Sendable {
    public struct Document: Codable, Sendable, Equatable {
        public let path: String
        public let status: IndexStatus
        public let reason: String?
        public let pages: Int
        public let textPages: Int
        public let ocrPages: Int

        public init(path: String, status: IndexStatus, reason: String?, pages: Int, textPages: Int, ocrPages: Int) {
            self.path = path
            self.status = status
            self.reason = reason
            self.pages = pages
            self.textPages = textPages
            self.ocrPages = ocrPages
        }
    }

    /// Documents whose text was extracted in this run.
    public var extracted = 0
    /// Documents indexed by copying the pages of a document with the same PDF (moved,
    /// renamed, duplicated, or only their metadata changed).
    public var reused = 0
    /// Documents that had not changed since the last run.
    public var unchanged = 0
    /// Index entries removed because their document is gone.
    public var removed = 0
    /// Their paths (not in the JSON).
    public var removedPaths: [String] = []
    /// Documents whose people (from the app's address files) were indexed again.
    public var addresses = 0
    /// How many documents the index holds after the run.
    public var documentCount = 0
    /// Every document in the index after the run (only those with a problem when the run's
    /// options said not to list every one).
    public var documents: [Document] = []
    /// What is named like a document but was never opened (a symbolic link, a FIFO, a name
    /// that is not UTF-8): status `failed`, with the reason; not in the index.
    public var notIndexed: [Document] = []

    /// The documents this run wrote to the index (extracted, reused, or with a new status),
    /// in the order they were done: for `yiana watch`'s log; not in the JSON.
    public var changed: [String] = []
    /// Of those, the ones indexed by copying the pages of the same PDF, without extracting.
    public var reusedPaths: Set<String> = []
    /// What the keeper kept and found gone on this run's look at the library (nil when the
    /// keeper is off: `YIANA_KEEP=off`).
    public var keeper: KeeperReport?
    /// The documents `documents` speaks for when the run was told what changed (a watcher's
    /// pass, ``LibraryScan/changes``): it lists their statuses, and says nothing of the rest.
    /// Nil when `documents` lists the whole index (or all its problems).
    public var covered: Set<String>?
    /// Documents this run wrote with a status that is tried again on the next run (`failed`,
    /// `stillArriving`): a pass told what changed must name them again.
    public var unsettled: [String] = []

    public var problems: [Document] { (documents + notIndexed).filter { $0.status.isProblem } }

    enum CodingKeys: String, CodingKey {
        case extracted, reused, unchanged, removed, addresses, documentCount, documents, notIndexed, keeper
    }
}

/// Progress of an indexing run, after each document.
public struct IndexProgress: Sendable {
    public let completed: Int
    public let total: Int
    public let current: String
}

/// Brings the index up to date with a library.
public struct Indexer: Sendable {
    public let library: Library
    public let index: any IndexStore

    public init(library: Library, index: any IndexStore) {
        self.library = library
        self.index = index
    }

    /// Extracts the documents that changed since the last run (all with `options.full`),
    /// follows moves and renames by content without extracting again, and drops documents
    /// that are gone. Killed at any point, the index stays usable and the next run
    /// finishes the work.
    /// - Throws: when the library cannot be listed or the index cannot be written; a bad
    ///   document never throws, it gets a status.
    /// `scan`: the library as the caller walked it just now (a watcher's pass); nil: walked here.
    public func run(options: IndexOptions = IndexOptions(), scan: LibraryScan? = nil,
                    progress: @escaping @Sendable (IndexProgress) -> Void = { _ in }) async throws -> IndexReport {
        let scan = try scan ?? LibraryScanner.scan(library)
        // A scan that says what changed (a watcher's pass) costs those documents' rows, not the library's.
        let changes = options.full ? nil : scan.changes
        let items = changes?.items ?? scan.items
        let arrival = Arrival(scan: scan, window: options.settle)
        var report = IndexReport()
        report.covered = changes?.paths
        // Every state seen is kept before anything else is done with it.
        if Keeper.isEnabled() { report.keeper = await Keeper(library: library).look(scan, arrival: arrival, jobs: options.jobs) }
        var compared = if let changes {
            try await compare(items, known: index.known(paths: changes.paths), told: changes.paths, full: options.full)
        } else {
            try await compareWhole(items, full: options.full)
        }
        if options.full {
            // A rebuild starts from nothing: cheaper than replacing every page in place, and
            // a run killed halfway leaves the rest to the next run, as new documents.
            try await index.clear()
        }
        report.unchanged = compared.unchanged
        var work = compared.work
        // Largest first: a long document starts early, so its pages (shared out among the
        // workers) and its commit overlap the small ones instead of running alone at the end.
        work.sort { $0.1.size > $1.1.size }
        let indexedContent = options.full ? [] : try await reusableContent(work, knownCount: compared.knownCount, partial: changes != nil)
        let extractor = DocumentExtractor(library: library, indexedContent: indexedContent, pageHelpers: PageHelpers(count: options.jobs - 1))
        if !work.isEmpty { PDFDocument.prepareForConcurrentUse() }  // poppler's start-up, only when there is work

        // A document the index held that vanished before it could be read is gone too.
        let vanished = try await extract(work, extractor: extractor, arrival: arrival, options: options, report: &report, progress: progress)
        compared.gone += vanished.filter { compared.knownWork.contains($0) }
        compared.gone.sort()
        report.removedPaths = options.full ? compared.gone : try await index.remove(compared.gone)
        report.removed = report.removedPaths.count
        try await finish(&report, scan: scan, options: options)
        // The folders' times from before they were listed: a change made during the run shows.
        try await index.setState([.folderTimes: IndexFreshness.encode(scan.folders), .lastRun: String(Date().timeIntervalSince1970)])
        return report
    }

    /// The content keys whose pages `work`'s documents can copy instead of being extracted:
    /// every key the index holds whole on a run over the library with much to do (of the
    /// `knownCount` documents the index holds); on a pass told what changed (`partial`) or a
    /// run with a few documents to do, the keys of the work's own PDFs (from each archive's
    /// directory) that the index holds, not a set of every key of 100,000 documents.
    private func reusableContent(_ work: [(LibraryItem, FileState)], knownCount: Int, partial: Bool) async throws -> Set<String> {
        guard !work.isEmpty else { return [] }
        guard partial || work.count * 16 < knownCount else { return try await index.indexedContent(known: index.known()) }
        let keys = Set(work.compactMap { DocumentExtractor.contentKey(of: $0.0) })
        return keys.isEmpty ? [] : try await index.indexedContent(among: keys)
    }

    /// Extracts `work` (on `options.jobs` workers) and commits it in batches, one batch's write
    /// under way while the next is extracted (a server's write is CPU the workers need not wait
    /// for); returns the paths that vanished before they could be read.
    private func extract(_ work: [(LibraryItem, FileState)], extractor: DocumentExtractor, arrival: Arrival,
                         options: IndexOptions, report: inout IndexReport,
                         progress: @escaping @Sendable (IndexProgress) -> Void) async throws -> [String] {
        var pending: [ExtractedDocument] = []
        var vanished: [String] = []
        var lastCommit = Date()
        var writing: Task<Written, any Error>?
        // The batch under way, finished (in the order they were started); cancelled with the run.
        func finishWriting() async throws {
            guard let task = writing else { return }
            writing = nil
            report.add(try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() })
        }
        do {
            try await withThrowingTaskGroup(of: ExtractedDocument.self) { group in
                var next = 0
                func addNext() {
                    guard next < work.count else { return }
                    let (item, file) = work[next]
                    next += 1
                    group.addTask { extractor.extract(item, file: file) }
                }
                for _ in 0..<min(options.jobs, work.count) { addNext() }
                var completed = 0
                for try await var document in group {
                    try Task.checkCancellation()
                    if document.status == .damaged, let why = arrival.stillArriving(library.root.appendingPathComponent(document.path), whole: false) {
                        document.status = .stillArriving
                        document.reason = "still arriving (\(why)); indexed on a later run"
                    }
                    if document.vanished {
                        vanished.append(document.path)
                    } else {
                        if document.status == .failed || document.status == .stillArriving { report.unsettled.append(document.path) }
                        pending.append(document)
                        report.changed.append(document.path)
                    }
                    completed += 1
                    progress(IndexProgress(completed: completed, total: work.count, current: document.path))
                    // Commit in batches: few transactions, and a killed run loses little.
                    if pending.count >= options.batchSize || Date().timeIntervalSince(lastCommit) > 1 {
                        try await finishWriting()
                        let batch = pending
                        writing = Task { try await self.write(batch) }
                        pending.removeAll(keepingCapacity: true)
                        lastCommit = Date()
                    }
                    addNext()
                }
            }
            try await finishWriting()
            report.add(try await write(pending))
        } catch {
            // Never a write left going after the run: it ends before the error is told.
            writing?.cancel()
            _ = try? await writing?.value
            throw error
        }
        return vanished
    }

    /// What writing a batch did, for the report.
    struct Written: Sendable {
        var extracted = 0
        var reused: [String] = []
    }

    /// Writes `documents`; those whose pages were to be copied from a document that no longer
    /// holds them (it changed meanwhile, here or on another machine) are extracted after all.
    private func write(_ documents: [ExtractedDocument]) async throws -> Written {
        var written = Written()
        guard !documents.isEmpty else { return written }
        let unwritten: [ExtractedDocument]
        do {
            unwritten = try await index.write(documents)
            if !unwritten.isEmpty {
                let extractor = DocumentExtractor(library: library, indexedContent: [])
                _ = try await index.write(unwritten.map { extractor.extractAgain($0) })
            }
        } catch where Task.isCancelled {
            throw CancellationError()  // a run cancelled is that, whatever the store made of it
        }
        let extractedAgain = Set(unwritten.map(\.path))
        for document in documents {
            switch document.pages {
            case .reuse where !extractedAgain.contains(document.path):
                written.reused.append(document.path)
            case .reuse, .extracted:
                written.extracted += 1
            case .keepExisting:
                break
            }
        }
        return written
    }

    /// Brings the index up to date for `urls` alone (documents a command just wrote or
    /// removed), without walking the library: each is extracted (or its pages reused by
    /// content), an evicted one indexed as its placeholder, one that is gone removed. Their
    /// folders are then recorded as seen if every document in them matches the index
    /// (``IndexFreshness``). Costs the documents named, not the library.
    /// - Throws: when the index cannot be written; a bad document gets a status.
    public func update(_ urls: [URL], options: IndexOptions = IndexOptions()) async throws -> IndexReport {
        var present: [URL] = []
        var gone: [String] = []
        var folders = Set<String>()
        for url in urls {
            guard let path = library.relativePath(of: url), !path.isEmpty, LibraryScanner.documentName(of: url.lastPathComponent) != nil else { continue }
            // Its folder and every folder above it (one made for it changed its parent's time). Not
            // by NSString's deletingLastPathComponent: Foundation on Linux traps on a one-character
            // string, such as a folder named `A`.
            var folder = library.relativePath(of: url.deletingLastPathComponent()) ?? ""
            while folders.insert(folder).inserted, !folder.isEmpty { folder = folder.lastIndex(of: "/").map { String(folder[..<$0]) } ?? "" }
            let stub = PlaceholderName.stubNames(for: url.lastPathComponent).map { url.deletingLastPathComponent().appendingPathComponent($0) }
                .first { FileKind.at($0.path) == .regular }
            if FileKind.at(url.path) == .regular {
                present.append(url)
            } else if let stub {
                present.append(stub)
            } else {
                gone.append(path)
            }
        }
        var once = Set<String>()
        present = present.filter { once.insert($0.path).inserted }
        let scan = present.isEmpty ? LibraryScan() : try LibraryScanner.scan(library, below: present)
        var report = IndexReport()
        if Keeper.isEnabled() { report.keeper = await Keeper(library: library).observe(scan.items.filter { $0.kind == .document }.map(\.url)) }
        let known = try await index.known()
        let work = scan.items.compactMap { item in (item.stamp ?? FileState(path: item.path)).map { (item, $0) } }
        let indexedContent = work.isEmpty ? [] : try await index.indexedContent(known: known)
        let extractor = DocumentExtractor(library: library, indexedContent: indexedContent, pageHelpers: PageHelpers(count: options.jobs - 1))
        if !work.isEmpty { PDFDocument.prepareForConcurrentUse() }
        gone += try await extract(work, extractor: extractor, arrival: Arrival(scan: scan, window: options.settle),
                                  options: options, report: &report, progress: { _ in })
        report.removedPaths = try await index.remove(gone.filter { known[$0] != nil })
        report.removed = report.removedPaths.count
        try await IndexFreshness.refresh(folders, library: library, index: index)
        return report
    }

    /// Reads the address files of `documents` (paths relative to the library) into the index
    /// again, after `yiana extract` wrote them. Returns how many documents' rows changed.
    public func updateAddresses(of documents: [String]) async throws -> Int {
        try await AddressIndex(library: library, index: index).update(documents: Set(documents))
    }

    /// The people of the app's address files, then the index's state, into `report`.
    private func finish(_ report: inout IndexReport, scan: LibraryScan, options: IndexOptions) async throws {
        report.addresses = try await AddressIndex(library: library, index: index).update(scan, changed: report.changed)
        if let covered = report.covered {
            report.documents = try await index.statuses(paths: covered)
        } else {
            report.documents = try await index.statuses(onlyProblems: !options.listEveryDocument)
        }
        report.documentCount = try await index.documentCount()
        report.notIndexed = scan.irregular.map { IndexReport.Document(path: $0.path, status: .failed, reason: $0.reason, pages: 0, textPages: 0, ocrPages: 0) }
    }

    /// The status of every document in the index (or of those with a problem), by path.
    public func statuses(onlyProblems: Bool = false) async throws -> [IndexReport.Document] {
        try await index.statuses(onlyProblems: onlyProblems)
    }
}

extension IndexReport {
    /// Counts what a batch's write did.
    mutating func add(_ written: Indexer.Written) {
        extracted += written.extracted
        reused += written.reused.count
        reusedPaths.formUnion(written.reused)
    }
}

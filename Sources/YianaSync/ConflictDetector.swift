import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// The conflicts, copies and duplicates in a library.
public struct ConflictReport: Codable, Sendable {
    /// What a file is to its group.
    public enum Role: String, Codable, Sendable {
        /// The document the others are copies of (the one without added marks).
        case original
        /// A diverged copy made by a sync service (or by iCloud as `Name 2`): same id,
        /// different content. Needs resolving.
        case conflictCopy = "conflict-copy"
        /// The same metadata and PDF as the original: can go (kept in the version store).
        case identicalCopy = "identical-copy"
        /// Made by the app's Duplicate command: same id on purpose; `--reassign-id` gives it its own.
        case duplicate = "duplicate-id"
        /// An evicted copy: resolved only once downloaded.
        case notDownloaded = "not-downloaded"
        /// A copy that cannot be read: resolved only once repaired.
        case damaged
    }

    public struct Copy: Codable, Sendable {
        public let path: String
        public let role: Role
        /// What the name says, e.g. "Dropbox: Bob's conflicted copy 2026-03-01".
        public let marks: [String]
        public let modified: Date?
        public let reason: String?
    }

    public struct Group: Codable, Sendable {
        public let documentID: String?
        public let title: String?
        /// The original first, then the copies.
        public let files: [Copy]
        /// Where the resolved document goes when no file of the group has the plain name a
        /// sync program took away (rclone bisync leaves `Name.yianazip..path1` and `..path2`
        /// and no `Name.yianazip`): that name, relative to the library. Nil: the original's.
        public var target: String? = nil

        public var needsResolving: Bool { target != nil || files.contains { $0.role == .conflictCopy } }
    }

    public struct ClockSkew: Codable, Sendable {
        public let path: String
        public let problem: String
    }

    public var groups: [Group] = []
    /// Names a sync service made whose original is missing or is another document.
    public var strayCopies: [Copy] = []
    public var clockSkew: [ClockSkew] = []
    /// Files a sync program is still writing (relative paths): their groups wait.
    public var arriving: [String] = []
    public var documentsScanned = 0
    /// Documents whose archive or metadata could not be read this time (damaged, or an I/O
    /// error): what they are, and which copies they have, is not known yet.
    public var unreadable: [String] = []
    /// The app's companion files (`.addresses`, `.letters`, the work list) with conflict copies.
    public var companions: [CompanionGroup] = []
}

/// Finds conflict copies by metadata id and file name.
public struct ConflictDetector: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Scans the library (metadata and central directories only, `jobs` files at once).
    /// - Throws: when the library folder cannot be listed.
    /// `settle`: seconds a file must have been left alone not to count as still arriving (``Arrival``).
    /// `cache`: facts of earlier calls, reused for files whose size, time and inode are
    /// unchanged (`yiana watch` passes one, so that a pass reads only what changed).
    /// `scan`: the library as the caller walked it just now; nil: walked here.
    public func detect(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, settle: Double = Arrival.defaultWindow,
                       now: Date = Date(), cache: FactsCache? = nil, scan: LibraryScan? = nil) async throws -> ConflictReport {
        let scan = try scan ?? LibraryScanner.scan(library)
        let library = self.library, root = library.root.path
        // In runs of files: a task for each file would cost about what reading it does.
        func read(_ items: [LibraryItem]) async -> [DocumentFacts] {
            let runs = stride(from: 0, to: items.count, by: 64).map { Array(items[$0..<min($0 + 64, items.count)]) }
            return await boundedMap(runs, width: jobs) { run in run.map { DocumentFacts.read($0, in: library) } }.flatMap { $0 }
        }
        let facts: [DocumentFacts]
        var report: ConflictReport
        if let cache {
            // A watcher's pass: the files that changed (and those unreadable last time) read,
            // and only the files that can be in a group classified. After a whole walk, what
            // changed since the cache last saw it is read.
            let items: [LibraryItem]
            if cache.whole, let changes = scan.changes {
                let unreadable = Set(cache.unreadable())
                items = changes.items + (unreadable.isEmpty ? [] : scan.items.filter { unreadable.contains($0.path) && !changes.paths.contains($0.documentPath ?? "") })
                cache.forget(changes.paths, root: root)
            } else {
                items = cache.keepOnly(scan.items)
            }
            // A block at a time: a first pass never holds every document's facts at once.
            for start in stride(from: 0, to: items.count, by: 4096) {
                let block = Array(items[start..<min(start + 4096, items.count)])
                cache.put(await read(block), of: block)
            }
            let also = cache.markedWithoutID().flatMap { folder, names in
                Self.files(in: folder, of: scan).filter { names.contains(ConflictName(fileName: ($0 as NSString).lastPathComponent).original) }
            }
            let (kept, unread, count) = cache.candidates(also: also)
            // Files whose id has come to be shared since they were read: read again, and kept.
            let more = unread.compactMap { Self.item(at: $0, of: scan) }
            let moreFacts = await read(more)
            cache.fill(moreFacts, of: more)
            facts = (kept + moreFacts).sorted { $0.path < $1.path }
            report = Self.classify(facts, now: now, holds: { cache.holds($0, root: root) })
            report.documentsScanned = count
        } else {
            facts = await read(scan.items)
            report = Self.classify(facts, now: now)
        }
        let arrival = Arrival(scan: scan, now: now, window: settle)
        // Only files of groups and strays matter here: those are what resolve would touch. A
        // file that reads as a whole document is complete (a sync program writing in place
        // leaves the ZIP's directory, at its end, for last); one that does not, changed just
        // now or with a sync program's temporary file beside it, is still arriving.
        let listed = Set(report.groups.flatMap { $0.files.map(\.path) } + report.strayCopies.map(\.path))
        report.arriving = facts.filter { fact in
            listed.contains(fact.path) && fact.state != .notDownloaded && arrival.stillArriving(fact.url, whole: fact.state == .document) != nil
        }.map(\.path)
        report.companions = CompanionConflicts.detect(scan, library: library)
        report.arriving += CompanionConflicts.arriving(report.companions, library: library, arrival: arrival)
        return report
    }

    /// The files of `scan` in `folder` itself (absolute), found by their sorted paths.
    static func files(in folder: String, of scan: LibraryScan) -> [String] {
        let prefix = folder + "/"
        var low = LibraryScanner.firstItem(from: prefix, of: scan.items)
        var files: [String] = []
        while low < scan.items.count, scan.items[low].path.hasPrefix(prefix) {
            if !scan.items[low].path.dropFirst(prefix.count).contains("/") { files.append(scan.items[low].path) }
            low += 1
        }
        return files
    }

    /// The item of `scan` whose file is `path` (absolute).
    static func item(at path: String, of scan: LibraryScan) -> LibraryItem? {
        let index = LibraryScanner.firstItem(from: path, of: scan.items)
        return index < scan.items.count && scan.items[index].path == path ? scan.items[index] : nil
    }

    /// Which file of a group is the original, from what the names say (never from how the
    /// paths sort): fewest marks only a sync service makes, then fewest marks of any kind
    /// (`Name 2`, `Name (1)`), then the side a service numbered first (rclone's `path1`
    /// before `path2`, `conflict1` before `conflict2`). Only files whose names say exactly
    /// the same are ordered by path.
    static func originalRank(_ fact: DocumentFacts) -> (Int, Int, Int, String) {
        let side = fact.name.marks.compactMap { mark -> Int? in
            if case .rclone(let side) = mark { return Int(side.filter(\.isNumber)) }
            return nil
        }.first ?? 0
        return (fact.name.syncMarkCount, fact.name.marks.count, side, fact.path)
    }

    /// Groups and classifies facts (separate from the scan, for tests and re-use).
    /// `holds`: whether a relative path holds a file (nil: one of `facts`).
    static func classify(_ facts: [DocumentFacts], now: Date, holds: ((String) -> Bool)? = nil) -> ConflictReport {
        var report = ConflictReport()
        report.documentsScanned = facts.count
        report.unreadable = facts.filter { if case .damaged = $0.state { true } else { false } }.map(\.path)
        let folderOf = { (fact: DocumentFacts) in (fact.path as NSString).deletingLastPathComponent }

        // Files that have no id (placeholders, damaged files) join a group by name.
        var byOriginalName: [String: [DocumentFacts]] = [:]
        for fact in facts where fact.documentID == nil {
            let key = (folderOf(fact) as NSString).appendingPathComponent(fact.name.original)
            byOriginalName[key, default: []].append(fact)
        }
        var placed = Set<String>()
        let waitingNames = Set(byOriginalName.values.joined().map(\.name.original))

        let paths = holds == nil ? Set(facts.map(\.path)) : []
        let taken = holds ?? { paths.contains($0) }
        for (id, members) in Dictionary(grouping: facts.filter { $0.documentID != nil }, by: { $0.documentID! }) {
            let ordered = members.sorted { Self.originalRank($0) < Self.originalRank($1) }
            let original = ordered[0]
            // Most documents are alone, with no placeholder or damaged file beside them and
            // no sync mark: nothing more to work out (this loop runs once per document).
            if ordered.count == 1, !waitingNames.contains(original.name.original), !original.name.isSyncConflict { continue }
            let plainName = (folderOf(original) as NSString).appendingPathComponent(original.name.original)
            var files = [ConflictReport.Copy(path: original.path, role: .original, marks: [], modified: original.modified, reason: nil)]
            for copy in ordered.dropFirst() {
                let role: ConflictReport.Role
                // The app's Duplicate copies byte for byte: its name decides before its bytes.
                if copy.name.marks.contains(where: { if case .appCopy = $0 { return true } else { return false } }), !copy.name.isSyncConflict {
                    role = .duplicate
                } else if copy.contentKey != nil, copy.contentKey == original.contentKey {
                    role = .identicalCopy
                } else {
                    role = .conflictCopy
                }
                files.append(.init(path: copy.path, role: role, marks: copy.name.marks.map(\.description), modified: copy.modified, reason: nil))
            }
            for other in byOriginalName[plainName] ?? [] where !other.name.marks.isEmpty {
                placed.insert(other.path)
                switch other.state {
                case .notDownloaded:
                    files.append(.init(path: other.path, role: .notDownloaded, marks: other.name.marks.map(\.description), modified: nil,
                                       reason: "evicted; resolved only once downloaded"))
                case .damaged(let reason):
                    files.append(.init(path: other.path, role: .damaged, marks: other.name.marks.map(\.description), modified: nil,
                                       reason: "\(reason) Resolved only once repaired."))
                case .document:
                    break
                }
            }
            // A group whose every file carries a sync service's mark (rclone took the plain
            // name away) is resolved back under the plain name, if nothing else holds it; so is
            // a lone file whose extension a service mangled (`X.yianazip..path1`: the app
            // cannot open it). A lone copy with a proper name stays a stray: its original may
            // have been deleted on purpose.
            let mangled = !original.path.lowercased().hasSuffix(".\(Library.documentExtension)")
            let target = original.name.isSyncConflict && (files.count > 1 || mangled) && !taken(plainName)
                && !FileManager.default.fileExists(atPath: original.url.deletingLastPathComponent().appendingPathComponent(original.name.original).path)
                ? plainName : nil
            guard files.count > 1 || target != nil else { continue }
            report.groups.append(.init(documentID: id, title: original.title, files: files, target: target))
        }
        report.groups.sort { $0.files[0].path < $1.files[0].path }

        // Sync-made names whose original is missing or a different document.
        let grouped = Set(report.groups.flatMap { $0.files.map(\.path) })
        for fact in facts where fact.name.isSyncConflict && !grouped.contains(fact.path) && !placed.contains(fact.path) {
            let role: ConflictReport.Role = fact.state == .notDownloaded ? .notDownloaded : (fact.documentID == nil ? .damaged : .conflictCopy)
            report.strayCopies.append(.init(path: fact.path, role: role, marks: fact.name.marks.map(\.description), modified: fact.modified,
                                            reason: "no document \(fact.name.original) with the same id beside it"))
        }

        report.clockSkew = clockSkew(facts, now: now)
        return report
    }

    /// Clocks: `modified` is only a tie-breaker, but a wrong one is worth saying.
    static func clockSkew(_ facts: [DocumentFacts], now: Date) -> [ConflictReport.ClockSkew] {
        facts.compactMap { fact in
            guard let modified = fact.modified else { return nil }
            if modified > now.addingTimeInterval(300) {
                return .init(path: fact.path, problem: "modified \(modified) is in the future")
            } else if let created = fact.created, modified < created.addingTimeInterval(-1) {
                return .init(path: fact.path, problem: "modified \(modified) is before created \(created)")
            }
            return nil
        }
    }
}

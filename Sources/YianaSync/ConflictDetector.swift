import Foundation
import YianaArchive
import YianaLibrary

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

        public var needsResolving: Bool { files.contains { $0.role == .conflictCopy } }
    }

    public struct ClockSkew: Codable, Sendable {
        public let path: String
        public let problem: String
    }

    public var groups: [Group] = []
    /// Names a sync service made whose original is missing or is another document.
    public var strayCopies: [Copy] = []
    public var clockSkew: [ClockSkew] = []
    public var documentsScanned = 0
}

/// Finds conflict copies by metadata id and file name.
public struct ConflictDetector: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Scans the library (metadata and central directories only, `jobs` files at once).
    /// - Throws: when the library folder cannot be listed.
    public func detect(jobs: Int = ProcessInfo.processInfo.activeProcessorCount, now: Date = Date()) async throws -> ConflictReport {
        let items = try LibraryScanner.scan(library.root)
        let library = self.library
        let facts = await boundedMap(items, width: jobs) { DocumentFacts.read($0, in: library) }
        return Self.classify(facts, now: now)
    }

    /// Groups and classifies facts (separate from the scan, for tests and re-use).
    static func classify(_ facts: [DocumentFacts], now: Date) -> ConflictReport {
        var report = ConflictReport()
        report.documentsScanned = facts.count
        let folderOf = { (fact: DocumentFacts) in (fact.path as NSString).deletingLastPathComponent }

        // Files that have no id (placeholders, damaged files) join a group by name.
        var byOriginalName: [String: [DocumentFacts]] = [:]
        for fact in facts where fact.documentID == nil {
            let key = (folderOf(fact) as NSString).appendingPathComponent(fact.name.original)
            byOriginalName[key, default: []].append(fact)
        }
        var placed = Set<String>()

        for (id, members) in Dictionary(grouping: facts.filter { $0.documentID != nil }, by: { $0.documentID! }) {
            let ordered = members.sorted { ($0.name.marks.count, $0.path) < ($1.name.marks.count, $1.path) }
            let original = ordered[0]
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
            let key = (folderOf(original) as NSString).appendingPathComponent(original.name.original)
            for other in byOriginalName[key] ?? [] where !other.name.marks.isEmpty {
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
            guard files.count > 1 else { continue }
            report.groups.append(.init(documentID: id, title: original.title, files: files))
        }
        report.groups.sort { $0.files[0].path < $1.files[0].path }

        // Sync-made names whose original is missing or a different document.
        let grouped = Set(report.groups.flatMap { $0.files.map(\.path) })
        for fact in facts where fact.name.isSyncConflict && !grouped.contains(fact.path) && !placed.contains(fact.path) {
            let role: ConflictReport.Role = fact.state == .notDownloaded ? .notDownloaded : (fact.documentID == nil ? .damaged : .conflictCopy)
            report.strayCopies.append(.init(path: fact.path, role: role, marks: fact.name.marks.map(\.description), modified: fact.modified,
                                            reason: "no document \(fact.name.original) with the same id beside it"))
        }

        // Clocks: `modified` is only a tie-breaker, but a wrong one is worth saying.
        for fact in facts {
            guard let modified = fact.modified else { continue }
            if modified > now.addingTimeInterval(300) {
                report.clockSkew.append(.init(path: fact.path, problem: "modified \(modified) is in the future"))
            } else if let created = fact.created, modified < created.addingTimeInterval(-1) {
                report.clockSkew.append(.init(path: fact.path, problem: "modified \(modified) is before created \(created)"))
            }
        }
        return report
    }
}

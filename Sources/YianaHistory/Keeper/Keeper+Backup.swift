import Crypto
import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// What `yiana backup` did: the snapshot restic made of the backup view, and what it holds.
public struct BackupReport: Codable, Sendable, Equatable {
    /// The repository, as it may be shown (a URL's password hidden).
    public var repository: String
    /// The snapshot made (its short id).
    public var snapshot: String
    /// True when restic could not read some files: the snapshot lacks them (run again).
    public var incomplete: Bool
    /// Documents in the snapshot's library, the app's companion files beside them, and the
    /// other states kept (deleted documents' and earlier ones).
    public var documents: Int
    public var companions: Int
    public var states: Int
    /// Documents of which no verified state is kept (none of them goes in): what the keeper's
    /// look could not keep (still arriving, damaged before it was ever seen whole).
    public var unkept: [String]
    /// Evicted documents (placeholders) never seen whole on this machine: their bytes are in
    /// the cloud store only (`yiana download` brings them here, and then into the next backup).
    public var notDownloaded: [String]
    /// What restic did: files new, changed and unmodified since the snapshot before, the
    /// bytes the repository grew by, and the bytes it read.
    public var filesNew: Int, filesChanged: Int, filesUnmodified: Int
    public var dataAdded: Int64, bytesProcessed: Int64
    /// What the keeper's look before it could not keep, and why.
    public var failures: [String]
    public var seconds: Double
}

/// The last backup of a library from this machine, for `yiana status` and the health page:
/// `backup.json` in the keeper's place.
public struct BackupRecord: Codable, Sendable, Equatable {
    public struct Success: Codable, Sendable, Equatable {
        public let at: Date
        public let snapshot: String
        public let repository: String
        public let incomplete: Bool
    }

    public struct Failure: Codable, Sendable, Equatable {
        public let at: Date
        public let repository: String
        public let error: String
    }

    /// The last backup that made a snapshot.
    public var lastSuccess: Success?
    /// The last run that failed, when it came after the last success.
    public var lastFailure: Failure?
}

/// Why a backup did not run.
public enum BackupError: Error, Equatable, CustomStringConvertible {
    /// Another `yiana backup` of the library holds its lock.
    case running(String)
    /// The backup view could not be brought up to date.
    case view(String)
    /// Snapshots are not forgotten while the mass-loss alarm stands.
    case alarm(String)

    public var description: String {
        switch self {
        case .running(let library): "another `yiana backup` of \(library) is running: wait for it to finish (it takes this library's backup lock)"
        case .view(let why): "the backup folder could not be made: \(why)"
        case .alarm(let why): why
        }
    }
}

extension Keeper {
    /// restic's tag for the snapshots of the library with id `id` (``LibraryIdentity``).
    public static func backupTag(_ id: String) -> String { "library:" + id }
    /// The tag every snapshot `yiana backup` makes carries.
    public static let backupTagAll = "yiana"

    var backupRecordFile: URL { place.folder.appendingPathComponent("backup.json") }

    /// The last backup from this machine, nil when none ever ran.
    public func backupRecord() -> BackupRecord? {
        guard let data = FileManager.default.contents(atPath: backupRecordFile.path) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(BackupRecord.self, from: data)
    }

    private func writeBackupRecord(_ change: (inout BackupRecord) -> Void) {
        var record = backupRecord() ?? BackupRecord()
        change(&record)
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        guard let data = try? encoder.encode(record) else { return }
        try? TemporaryFile.replace(backupRecordFile.path, with: [UInt8](data), mode: 0o600)
    }

    /// The phases of a backup, for a progress display.
    public enum BackupPhase: Sendable, Equatable {
        /// The keeper's look at the library (what changed is kept first).
        case looking
        /// The backup view brought up to date.
        case viewing
        /// restic at work: the share done (0...1).
        case sending(Double)
    }

    /// One snapshot of the library's whole history in `restic`'s repository (issue 58): the
    /// keeper looks at the library first (every document as it is now is kept, and hashed,
    /// by then), the backup view is brought up to date (``BackupView``, each kept state
    /// checked against its SHA-256 before it goes in, a damaged one replaced by the last
    /// good state), and restic backs the view up, tagged with the library's id. One backup
    /// of a library runs at a time; the keeper's prune may run beside it (the view's links
    /// keep what it drops until the next backup).
    /// - Throws: ``BackupError``, ``ResticError``; the failure is recorded for `yiana status`.
    public func backUp(to restic: Restic, scan: LibraryScan, jobs: Int = 2, now: Date = Date(),
                       progress: @escaping @Sendable (BackupPhase) -> Void = { _ in }) async throws -> BackupReport {
        let started = Date()
        do {
            let lock: DocumentLock
            do {
                try prepare()
                lock = try DocumentLock(document: place.folder.appendingPathComponent("backup").path, mode: .exclusive, timeout: 0)
            } catch let error as ArchiveError where error.kind == .lockTimeout(seconds: 0) {
                throw BackupError.running(library.root.path)
            }
            defer { lock.release() }
            let libraryID = try LibraryIdentity.key(of: library)
            progress(.looking)
            let look = await self.look(scan, arrival: Arrival(scan: scan, now: now), jobs: jobs, now: now)
            progress(.viewing)
            let view = backupView
            let contents: BackupCounts
            if let made = madeView(scan, view) {
                contents = made  // nothing it is made from changed since
            } else {
                // No lock against the keeper's own writers: a state found changed in place is
                // dropped through the journal as it is checked, and an object the prune removes
                // meanwhile is left out of this snapshot (its links made before keep their bytes).
                let entries = backupEntries(scan, now: now, jobs: jobs)
                do {
                    _ = try view.update(entries.entries, jobs: jobs)
                } catch {
                    Sys.removeIfPresent(viewRecordFile.path)
                    throw BackupError.view("\(error)")
                }
                contents = BackupCounts(entries)
                recordView(scan, contents)
            }
            // restic compares each file with its last snapshot of this same folder (the view's
            // path is the library's own) and reads only what changed. Every restic run opens the
            // repository by deriving its key from the password (about half a second here): the
            // backup is the one run. A run killed halfway leaves its lock behind; it does not
            // stop a backup (`forget` removes it first).
            let snapshot = try restic.backup(BackupView.name, in: view.folder.path, tags: [Self.backupTagAll, Self.backupTag(libraryID)]) {
                progress(.sending($0))
            }
            let report = BackupReport(repository: restic.shownRepository, snapshot: snapshot.id, incomplete: snapshot.incomplete,
                                      documents: contents.documents, companions: contents.companions, states: contents.states,
                                      unkept: contents.unkept, notDownloaded: contents.notDownloaded, filesNew: snapshot.filesNew, filesChanged: snapshot.filesChanged,
                                      filesUnmodified: snapshot.filesUnmodified, dataAdded: snapshot.dataAdded,
                                      bytesProcessed: snapshot.bytesProcessed, failures: look.failures,
                                      seconds: Date().timeIntervalSince(started))
            writeBackupRecord { record in
                record.lastSuccess = .init(at: now, snapshot: snapshot.id, repository: restic.shownRepository, incomplete: snapshot.incomplete)
                record.lastFailure = nil
            }
            return report
        } catch {
            writeBackupRecord { $0.lastFailure = .init(at: now, repository: restic.shownRepository, error: "\(error)") }
            throw error
        }
    }

}

/// A snapshot as `restic snapshots --json` lists it.
public struct ResticSnapshot: Codable, Sendable, Equatable {
    public let id: String
    public let shortID: String
    public let time: Date
    public let hostname: String
    public let tags: [String]

    enum CodingKeys: String, CodingKey {
        case id, shortID = "short_id", time, hostname, tags
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        shortID = try container.decodeIfPresent(String.self, forKey: .shortID) ?? String(id.prefix(8))
        hostname = try container.decodeIfPresent(String.self, forKey: .hostname) ?? ""
        tags = try container.decodeIfPresent([String].self, forKey: .tags) ?? []
        // restic prints nanoseconds, which ISO8601DateFormatter does not read.
        let text = try container.decode(String.self, forKey: .time)
        guard let time = Self.date(text) else {
            throw DecodingError.dataCorruptedError(forKey: .time, in: container, debugDescription: "not a time: \(text)")
        }
        self.time = time
    }

    /// restic's time ("2026-11-29T11:58:35.071768043Z", or with an offset "+01:00").
    static func date(_ text: String) -> Date? {
        var text = text
        var fraction = 0.0
        if let dot = text.firstIndex(of: ".") {
            let digitsEnd = text[dot...].dropFirst().firstIndex { !$0.isNumber } ?? text.endIndex
            fraction = Double("0" + text[dot..<digitsEnd]) ?? 0
            text.removeSubrange(dot..<digitsEnd)
        }
        let formatter = ISO8601DateFormatter()
        return formatter.date(from: text).map { $0.addingTimeInterval(fraction) }
    }

    /// The library id its tags name (``Keeper/backupTag(_:)``).
    public var libraryID: String? {
        tags.first { $0.hasPrefix("library:") }.map { String($0.dropFirst("library:".count)) }
    }
}

/// Which snapshots of a library a repository keeps: restic's `forget` policy, applied to the
/// library's snapshots together, whichever machine made them. The defaults keep a year: the
/// last snapshot of each of the last 7 days, 4 weeks and 12 months.
public struct BackupRetention: Codable, Sendable, Equatable {
    public var daily = 7, weekly = 4, monthly = 12, yearly = 0

    public init(daily: Int = 7, weekly: Int = 4, monthly: Int = 12, yearly: Int = 0) {
        (self.daily, self.weekly, self.monthly, self.yearly) = (daily, weekly, monthly, yearly)
    }

    var arguments: [String] {
        [("daily", daily), ("weekly", weekly), ("monthly", monthly), ("yearly", yearly)]
            .filter { $0.1 > 0 }.flatMap { ["--keep-\($0.0)", String($0.1)] }
    }
}

/// What a `forget` did (or, with a dry run, would do).
public struct BackupForgetReport: Codable, Sendable, Equatable {
    public var kept: [String] = []
    public var removed: [String] = []
    public var pruned = false
}

extension BackupError {
    /// The mass-loss alarm stands: no snapshot is forgotten while it does.
    static func alarmRaised(_ alarm: MassLossAlarm) -> BackupError {
        .alarm("the mass-loss alarm stands (\(alarm.lost) documents lost since \(LocalTime(alarm.since).text)): no snapshot is forgotten while it does; bring the documents back or dismiss it first (`yiana versions dismiss-alarm`)")
    }
}

extension Keeper {
    /// Forgets the library's snapshots that `retention` does not keep (restic's `forget`),
    /// and, with `prune`, deletes the data no snapshot needs any more. Never while the
    /// mass-loss alarm stands: the snapshots from before a loss are what bring it back.
    /// restic never forgets a library's newest snapshot.
    public func forgetBackups(_ restic: Restic, retention: BackupRetention, prune: Bool, dryRun: Bool) throws -> BackupForgetReport {
        if let alarm = alarm() { throw BackupError.alarmRaised(alarm) }
        let libraryID = try LibraryIdentity.key(of: library)
        try restic.removeStaleLocks()  // forget takes the repository alone: a killed run's lock would stop it
        let arguments = ["forget", "--json", "--tag", Self.backupTag(libraryID), "--group-by", "tags"] + retention.arguments
            + (dryRun ? ["--dry-run"] : []) + (prune && !dryRun ? ["--prune"] : [])
        let text = try restic.output(arguments)
        struct Group: Decodable {
            let keep: [ResticSnapshot]?
            let remove: [ResticSnapshot]?
        }
        // With --prune, restic's report of the prune follows the JSON (plain text).
        guard let json = text.split(separator: "\n").first(where: { $0.hasPrefix("[") }),
              let groups = try? JSONDecoder().decode([Group].self, from: Data(json.utf8)) else {
            throw ResticError.failed(0, "restic's forget printed no list of snapshots")
        }
        var report = BackupForgetReport()
        report.kept = groups.flatMap { $0.keep ?? [] }.map(\.shortID).sorted()
        report.removed = groups.flatMap { $0.remove ?? [] }.map(\.shortID).sorted()
        report.pruned = prune && !dryRun
        return report
    }
}

/// What the backup view was last made from, and what it held (`backup-view.json` in the
/// keeper's place): a backup that finds the library, its companion files and the journal as
/// they were then leaves the view as it is, and restic's own comparison is the only work.
struct BackupViewRecord: Codable, Sendable, Equatable {
    /// ``Keeper/viewSignature(_:)`` when the view was made.
    var signature: String
    var documents: Int, companions: Int, states: Int
    var unkept: [String], notDownloaded: [String]
}

extension Keeper {
    var viewRecordFile: URL { place.folder.appendingPathComponent("backup-view.json") }

    /// What the view is made from, in one SHA-256: the journal's file (inode, size, time: what
    /// the keeper knows), and every document, placeholder and companion file of the library as
    /// `scan` found it (path and stamp). Nothing here changes but something the view would.
    func viewSignature(_ scan: LibraryScan) -> String {
        // The lines hashed at once: a hash's update a line cost more than the lines.
        var lines = ""
        lines.reserveCapacity(scan.items.count * 96)
        func add(_ text: String) { lines += text; lines += "\n" }
        let journalStamp = FileStamp(path: journal.url.path)
        add("journal \(journalStamp.map { "\($0.inode) \($0.size) \($0.modified)" } ?? "none")")
        for item in scan.items where item.kind == .document || item.kind == .placeholder {
            let stamp = item.stamp ?? FileStamp(path: item.path)
            add("\(item.kind == .document ? "document" : "placeholder") \(item.path) \(stamp.map { "\($0.inode) \($0.size) \($0.modified)" } ?? "none")")
        }
        for companion in scan.companions where !companion.isTemp {
            let stamp = FileStamp(path: library.root.appendingPathComponent(companion.path).path)
            add("companion \(companion.path) \(stamp.map { "\($0.inode) \($0.size) \($0.modified)" } ?? "none")")
        }
        return SHA256.hash(data: Data(lines.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The view's counts as they were last made, when the view is still what `scan` would
    /// make it (``viewSignature(_:)`` unchanged, the view's folder there); else nil.
    func madeView(_ scan: LibraryScan, _ view: BackupView) -> BackupCounts? {
        guard FileKind.at(view.top) == .folder, let data = FileManager.default.contents(atPath: viewRecordFile.path),
              let record = try? JSONDecoder().decode(BackupViewRecord.self, from: data), record.signature == viewSignature(scan) else { return nil }
        return BackupCounts(documents: record.documents, companions: record.companions, states: record.states,
                            unkept: record.unkept, notDownloaded: record.notDownloaded)
    }

    /// Records what the view was just made from (the journal as it is after the checks, which
    /// may have dropped a state) and holds.
    func recordView(_ scan: LibraryScan, _ counts: BackupCounts) {
        let record = BackupViewRecord(signature: viewSignature(scan), documents: counts.documents, companions: counts.companions,
                                      states: counts.states, unkept: counts.unkept, notDownloaded: counts.notDownloaded)
        guard let data = try? JSONEncoder().encode(record) else { return }
        try? TemporaryFile.replace(viewRecordFile.path, with: [UInt8](data), mode: 0o600)
    }
}

/// What a backup view holds, counted.
struct BackupCounts: Sendable, Equatable {
    var documents: Int, companions: Int, states: Int
    var unkept: [String], notDownloaded: [String]

    init(documents: Int, companions: Int, states: Int, unkept: [String], notDownloaded: [String]) {
        (self.documents, self.companions, self.states, self.unkept, self.notDownloaded) = (documents, companions, states, unkept, notDownloaded)
    }

    init(_ contents: BackupContents) {
        var counts = (documents: 0, companions: 0, states: 0)
        for entry in contents.entries {
            if entry.path.hasPrefix(BackupView.objectsFolder + "/") {
                counts.states += 1
            } else if entry.path.hasPrefix(BackupView.libraryFolder + "/") {
                if entry.link { counts.documents += 1 } else { counts.companions += 1 }
            }
        }
        self.init(documents: counts.documents, companions: counts.companions, states: counts.states,
                  unkept: contents.unkept, notDownloaded: contents.notDownloaded)
    }
}

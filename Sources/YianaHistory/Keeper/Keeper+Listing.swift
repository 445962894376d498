import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// A document no longer in the library (deleted, or its file now holds bytes that are not a
/// document) of which the keeper has states.
public struct LostDocument: Codable, Sendable, Equatable {
    public enum How: String, Codable, Sendable {
        /// Nothing is at its path any more.
        case deleted
        /// Its file holds bytes that are not a document (garbage, zero length, truncated).
        case overwritten
    }

    /// Where it was, relative to the library.
    public let path: String
    public let how: How
    /// When this machine last saw it there.
    public let lastSeen: Date
    /// When this machine found it gone (or overwritten).
    public let goneAt: Date
    public let documentID: String?
    public let title: String?
    /// Its kept states, newest first, each checked against its SHA-256.
    public let versions: [VersionRecord]
}

extension Keeper {
    /// The documents gone from the library (or overwritten by bytes that are not a document)
    /// since `since`, with their kept states, newest loss first. A document moved or renamed
    /// (its id or its bytes are elsewhere in the library) is not gone.
    public func lost(since: Date? = nil) -> [LostDocument] {
        lost(since: since, only: nil)
    }

    /// The documents lost since `since`, as ``lost(since:)`` lists them, after a look at the
    /// folders changed since the last look (``lookAtChangedFolders(now:)``): a document
    /// deleted since the last pass, while no watcher ran, is listed at once, gone since now.
    public func lostNow(since: Date? = nil, now: Date = Date()) async -> [LostDocument] {
        if Keeper.isEnabled() { await lookAtChangedFolders(now: now) }  // YIANA_KEEP=off: what was kept before, as it is
        return lost(since: since, only: nil, now: now)
    }

    /// A whole look (``look(_:arrival:jobs:now:)``) at the library as it is now: a walk of
    /// its folders compared with what the last look saw, which reads nothing more when
    /// nothing changed; a document gone is recorded gone now, a changed one kept. A library
    /// that cannot be listed is left for the next look.
    @discardableResult
    public func lookAtLibrary(now: Date = Date()) async -> KeeperReport? {
        guard let scan = try? LibraryScanner.scan(library) else { return nil }
        return await look(scan, arrival: Arrival(scan: scan, now: now), now: now)
    }

    /// The lost document that was at `path`, if it is one.
    public func lost(at path: String) -> LostDocument? {
        lost(since: nil, only: path).first
    }

    private func lost(since: Date?, only: String?, now: Date = Date()) -> [LostDocument] {
        let catalog = catalog()
        let root = library.root
        var found: [LostDocument] = []
        let records = only.map { path in catalog.record(of: path).map { [$0] } ?? [] } ?? catalog.absent(since: since)
        for record in records {
            let path = record.path, how: LostDocument.How, goneAt: Date
            guard let last = record.lastDocument else { continue }
            switch record.state {
            case .gone(let at, _):
                // Only what is still there holds a document's content: since the last look a
                // command may have renamed a document, then deleted it.
                guard !catalog.movedAway(record), !catalog.holders(of: last).contains(where: { FileKind.at(root.appendingPathComponent($0).path) == .regular }),
                      FileKind.at(root.appendingPathComponent(path).path) == .missing else { continue }
                (how, goneAt) = (.deleted, at)
            case .notDocument(let stamp, let at):
                // A document is there again (restored, or the other device's next save) when
                // the file changed since and reads as one: the next look records it.
                let url = library.root.appendingPathComponent(path)
                if FileStamp(path: url.path).map({ $0 != stamp }) ?? true,
                   (try? DocumentReader(path: url.path, checks: .layout).metadata()) != nil || FileKind.at(url.path) == .missing { continue }
                (how, goneAt) = (.overwritten, at)
            case .document:
                continue
            }
            if let since, goneAt < since { continue }
            let versions = verifiedRecords(path: path, documentID: nil, catalog: catalog, now: now)
            guard !versions.isEmpty else { continue }
            let lastSeen: Date = if case .gone(_, let seen) = record.state { seen } else { record.lastSeen ?? last.seenAt }
            found.append(LostDocument(path: path, how: how, lastSeen: lastSeen, goneAt: goneAt,
                                      documentID: last.documentID, title: last.title, versions: versions))
        }
        return found.sorted { ($0.goneAt, $0.path) > ($1.goneAt, $1.path) }
    }

    /// The states kept of the document at `path` (and of `documentID` wherever it was), newest
    /// first, as version records; each checked against its SHA-256 (one that fails is dropped).
    public func records(path: String?, documentID: String?) -> [VersionRecord] {
        let catalog = catalog()
        return verifiedRecords(path: path, documentID: documentID, catalog: catalog)
    }

    /// What is wrong with the store, for the crash harness: a state the journal lists whose
    /// bytes are not in the store (a crash may leave bytes nobody lists, never a listed state
    /// without its bytes). Bytes a program changed in place through a link are another matter:
    /// the keeper finds them on its next look or before it offers them.
    public func integrityProblems() -> [String] {
        catalog().objectHashes().filter { FileKind.at(objectURL($0).path) != .regular }
            .map { "\($0.prefix(12)): listed, but its bytes are not in the store" }.sorted()
    }

    /// The newest kept state of the document at `path` that verifies whole (every CRC, its
    /// metadata): what `verify` names and `repair` offers for a damaged document.
    public func lastGoodState(path: String) -> VersionRecord? {
        records(path: path, documentID: nil).first { $0.documentID != nil && Self.verifiesWhole(objectURL($0.sha256)) }
    }

    /// The SHA-256 of the document at `url` as it is now, when the keeper's last look saw
    /// this very file (same inode, size and time); else hashed.
    public func currentSHA256(of url: URL) -> String? {
        guard let path = library.relativePath(of: url), let stamp = FileStamp(path: url.path) else { return nil }
        if case .document(let state)? = catalog().record(of: path)?.state, state.stamp == stamp { return state.sha256 }
        return try? FileHash.sha256(of: url)
    }

    /// The states kept of `path` (and of `documentID` wherever it was) as records, newest
    /// first, one per distinct bytes and path, less those whose bytes no longer match their
    /// name (dropped as they are found).
    /// A fresh process trusts the catalog's record of the files found intact before, as
    /// they were then (``KeeperCatalog/keptStates(path:documentID:)``): listing a document's
    /// history reads the bytes of what changed since, not every state of it each time.
    private func verifiedRecords(path: String?, documentID: String?, catalog: KeeperCatalog, now: Date = Date()) -> [VersionRecord] {
        var seen = Set<String>()
        let wanted = catalog.keptStates(path: path, documentID: documentID).reversed()
            .filter { seen.insert($0.state.sha256 + "\t" + $0.state.path).inserted }
        var found: [String: String] = [:]
        defer { catalog.noteVerified(found) }
        return wanted.filter { kept in
            intact(kept.state.sha256, catalog: catalog, now: now, recorded: kept.identity, held: true, found: &found)
        }.map { record($0.state) }
    }

    func record(_ state: KeptState) -> VersionRecord {
        var record = VersionRecord(sha256: state.sha256, size: state.size, keptAt: state.seenAt,
                                   reason: state.reason == Self.seenHere ? "seen here" : state.reason,
                                   originalPath: state.path, documentID: state.documentID, title: state.title)
        record.keptHere = true
        return record
    }

    /// True when the bytes named `sha256` are in the store and still hash to that name; bytes
    /// changed in place (a linked document rewritten by a program that writes in place) are
    /// dropped and never offered again.
    func intact(_ sha256: String, catalog: KeeperCatalog, now: Date = Date()) -> Bool {
        var found: [String: String] = [:]
        return intact(sha256, catalog: catalog, now: now, recorded: nil, held: false, found: &found)
    }

    /// ``intact(_:catalog:now:)``, trusting `recorded`, the identity its file had when it was
    /// last found intact (``FileIdentity/fingerprint``: inode, size, times, links; its ctime set
    /// by the kernel at any change), when the file is as it was; a file found intact now whose
    /// last change is older than ``racy`` is noted in `found` (sha → identity) for the catalog.
    /// `held`: the catalog was just asked and holds the object (else it is asked here).
    func intact(_ sha256: String, catalog: KeeperCatalog, now: Date, recorded: String?, held: Bool, found: inout [String: String]) -> Bool {
        guard held || catalog.object(sha256) != nil else { return false }
        let path = objectPath(sha256)
        // Hashed once while the file stays as it was (inode, size, times, links): a server
        // listing lost documents again, or drawing their pages, reads no byte twice.
        let current = FileIdentity.current(at: path), identity = current.fingerprint
        // By the rule of `==`: a link made or removed since (the backup view's) is the same file.
        if VerifiedObjects.shared.contains(path, identity) || current != .absent && recorded.map({ current.matches(fingerprint: Substring($0)) }) == true {
            return true
        }
        catalog.hashed.add(1, ordering: .relaxed)
        let hash: String
        do {
            hash = try FileHash.sha256(of: URL(fileURLWithPath: path, isDirectory: false))
        } catch {
            // Not offered while it cannot be read; dropped only when it is surely gone (an I/O
            // error is not damage).
            if FileKind.at(path) == .missing { drop(sha256, why: "missing from the store", catalog: catalog, now: now) }
            return false
        }
        if hash == sha256 {
            VerifiedObjects.shared.insert(path, identity)
            // A change within the same tick of the file system's clock would leave the
            // identity as it is: only a file settled before it was hashed is recorded.
            if current.changedSeconds < now.timeIntervalSince1970 - Self.racy { found[sha256] = identity }
            return true
        }
        // Changed in place: the drop is recorded first, and the bytes go only once it is.
        if drop(sha256, why: KeeperCatalog.changedInPlace, catalog: catalog, now: now) {
            Sys.removeIfPresent(path)
            markRewrittenInPlace("a kept state (\(sha256.prefix(12))) no longer matched its SHA-256", now: now)
        }
        return false
    }

    /// Records that the bytes `sha256` are no longer offered; false when it could not be recorded.
    @discardableResult
    private func drop(_ sha256: String, why: String, catalog: KeeperCatalog, now: Date) -> Bool {
        guard (try? journal.append([KeeperEvent.dropped(at: now, sha256: sha256, why: why)])) != nil else { return false }
        try? catalog.refresh()
        return true
    }

    /// The bytes of a kept state, checked against its SHA-256 first.
    /// - Throws: ``VersionStoreError/missingObject(_:)`` when they are gone or no longer match.
    public func verifiedObject(_ record: VersionRecord) throws -> URL {
        guard intact(record.sha256, catalog: catalog()) else { throw VersionStoreError.damagedObject(record.shortID) }
        return objectURL(record.sha256)
    }
}

/// The keeper in a few numbers, for `yiana status` and the health page (no state is hashed).
public struct KeeperSummary: Codable, Sendable, Equatable {
    /// Where its store is, how it keeps new states, and why.
    public let folder: String
    public let mode: KeeperMode
    public let reason: String
    /// States kept, of how many documents, and when it last looked at the whole library.
    public let states: Int
    public let documents: Int
    public let lastLook: Date?
    /// Documents lost (deleted or overwritten) of which states are kept.
    public let lost: Int
    /// The mass-loss alarm, while it is raised.
    public let alarm: MassLossAlarm?
    /// The last backup of the library from this machine (`yiana backup`), nil when none ran.
    public let backup: BackupRecord?
}

extension Keeper {
    /// The keeper in a few numbers.
    public func summary() -> KeeperSummary {
        let counts = catalog().counts()
        return KeeperSummary(folder: place.folder.path, mode: place.mode, reason: place.reason, states: counts.states,
                             documents: counts.documents, lastLook: readLastLook(), lost: counts.lost, alarm: alarm(),
                             backup: backupRecord())
    }
}

/// The kept states this process has hashed, each with the file's identity when it was.
extension Keeper {
    /// Seconds before now within which a file's last change is too recent to record it as
    /// found intact (the file system's clock ticks in up to 2 s, on FAT).
    static let racy: TimeInterval = 2
}

final class VerifiedObjects: @unchecked Sendable {
    // @unchecked: `verified` is only touched while holding `lock`.
    static let shared = VerifiedObjects()
    private let lock = NSLock()
    private var verified: [String: String] = [:]

    func contains(_ path: String, _ identity: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return verified[path] == identity
    }

    /// Forgets every object (for the tests: a process started afresh).
    func removeAll() {
        lock.lock()
        defer { lock.unlock() }
        verified.removeAll()
    }

    func insert(_ path: String, _ identity: String) {
        lock.lock()
        defer { lock.unlock() }
        if verified.count > 100_000 { verified.removeAll() }
        verified[path] = identity
    }
}

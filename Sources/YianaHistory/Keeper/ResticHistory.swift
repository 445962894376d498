import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// A state of a document as a snapshot of the repository holds it.
public struct RepositoryState: Codable, Sendable, Equatable {
    public let path: String
    public let sha256: String
    public let size: UInt64
    /// When the machine that made the snapshot saw this state, and why it kept it.
    public let seenAt: Date
    public let reason: String
    public let documentID: String?
    public let title: String?
    /// The snapshot read (short id) and when it was made.
    public let snapshot: String
    public let snapshotTime: Date
    /// Where its bytes are in the snapshot.
    public let location: String

    public var shortID: String { String(sha256.prefix(12)) }
}

/// A document the repository holds that the library no longer does.
public struct RepositoryLost: Codable, Sendable, Equatable {
    public enum How: String, Codable, Sendable {
        /// Found gone before the snapshot was made.
        case deleted
        /// Its file held bytes that were not a document when the snapshot was made.
        case overwritten
        /// In the snapshot's library, but not in this library now.
        case missingHere = "missing-here"
    }

    public let path: String
    public let how: How
    /// Its states in the snapshot, newest first.
    public let versions: [RepositoryState]
}

/// Why reading the repository's history failed.
public enum RepositoryHistoryError: Error, Equatable, CustomStringConvertible {
    case noSnapshots(String)
    case severalLibraries([String])
    case noSnapshotAt(String)
    case noState(String)
    case ambiguous(String, Int)
    case damaged(String, String)
    case notEmpty(String)
    case unreadable(String)
    case notADocument(String)

    public var description: String {
        switch self {
        case .noSnapshots(let repository): "the repository \(repository) holds no snapshot of this library made by `yiana backup`"
        case .severalLibraries(let ids): "the repository holds several libraries (\(ids.joined(separator: ", "))): say which with --library-id, or give --library of one"
        case .noSnapshotAt(let what): "no snapshot of this library \(what); `yiana backup snapshots` lists them"
        case .noState(let what): "the repository holds no state of \(what); `yiana versions list --repo REPO DOC` lists them"
        case .ambiguous(let prefix, let count): "\(prefix) matches \(count) states; give more of its characters"
        case .damaged(let sha, let location): "the bytes restic gave back for \(location) do not hash to \(sha.prefix(12)): run `restic check --read-data` on the repository; nothing was changed"
        case .notEmpty(let folder): "\(folder) is not empty: give a new folder (or an empty one) to restore the library into; nothing was changed"
        case .unreadable(let why): "the snapshot could not be read: \(why)"
        case .notADocument(let id): "the state \(id) is not a whole document (bytes that overwrote one are kept too, never restored as one); `yiana versions list --repo REPO DOC` shows the others"
        }
    }
}

/// A library's history in a restic repository, read back: the snapshots `yiana backup`
/// made of it, each one's journal (what the keeper of the machine that made it knew then),
/// and the bytes of each state, brought back through restic and checked against their
/// SHA-256 before anything is written.
public struct ResticHistory: Sendable {
    public let restic: Restic
    /// The library whose snapshots are read.
    public let libraryID: String
    /// Where restic restores what is read (a folder of its own made below it, removed after).
    let scratch: URL

    /// The history of `library` (by its id) or of the library `chosenID` names, else of the one
    /// library the repository holds.
    /// - Throws: ``RepositoryHistoryError/severalLibraries(_:)`` when it cannot tell,
    ///   ``RepositoryHistoryError/noSnapshots(_:)``, ``ResticError``.
    public init(restic: Restic, library: Library?, chosenID: String?, scratch: URL) throws {
        self.restic = restic
        self.scratch = scratch
        if let chosenID {
            libraryID = chosenID.lowercased()
        } else if let id = library.flatMap({ LibraryIdentity.ids(in: $0).min() }) {
            libraryID = id
        } else {
            let all = try Self.snapshots(restic, tag: Keeper.backupTagAll)
            let ids = Set(all.compactMap(\.libraryID)).sorted()
            guard ids.count <= 1 else { throw RepositoryHistoryError.severalLibraries(ids) }
            guard let only = ids.first else { throw RepositoryHistoryError.noSnapshots(restic.shownRepository) }
            libraryID = only
        }
    }

    static func snapshots(_ restic: Restic, tag: String) throws -> [ResticSnapshot] {
        let text = try restic.output(["snapshots", "--json", "--tag", tag])
        do {
            return try JSONDecoder().decode([ResticSnapshot].self, from: Data(text.utf8)).sorted { $0.time < $1.time }
        } catch {
            throw RepositoryHistoryError.unreadable("restic's list of snapshots: \(error)")
        }
    }

    /// The library's snapshots, oldest first.
    public func snapshots() throws -> [ResticSnapshot] {
        try Self.snapshots(restic, tag: Keeper.backupTag(libraryID))
    }

    /// The snapshot whose id starts with `id`, else the newest made at or before `at`, else the newest.
    public func snapshot(id: String? = nil, at: Date? = nil) throws -> ResticSnapshot {
        let all = try snapshots()
        guard !all.isEmpty else { throw RepositoryHistoryError.noSnapshots(restic.shownRepository) }
        if let id {
            guard let found = all.first(where: { $0.id.hasPrefix(id.lowercased()) }) else { throw RepositoryHistoryError.noSnapshotAt("with id \(id)") }
            return found
        }
        if let at {
            guard let found = all.last(where: { $0.time <= at }) else { throw RepositoryHistoryError.noSnapshotAt("made at or before \(LocalTime(at).text)") }
            return found
        }
        return all[all.count - 1]
    }

    /// The states of the document at `path` (and of `documentID`) in the newest snapshot that
    /// holds any, walking back from the newest: a state the keeper had dropped, or found
    /// rewritten in place, before a later snapshot is still in the earlier ones. Nil when none does.
    /// `wanted`: only such states count (a version asked for by its id).
    /// `before`: only snapshots older than it (one already read).
    public func newestStates(path: String?, documentID: String?, before: ResticSnapshot? = nil,
                             wanted: (RepositoryState) -> Bool = { _ in true }) throws -> (snapshot: ResticSnapshot, states: [RepositoryState])? {
        for snapshot in try snapshots().reversed() where before.map({ snapshot.time < $0.time }) ?? true {
            let states = try contents(of: snapshot).states(path: path, documentID: documentID).filter(wanted)
            if !states.isEmpty { return (snapshot, states) }
        }
        return nil
    }

    /// A folder of its own below ``scratch``, removed when `body` returns.
    func withFolder<T>(_ body: (URL) throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let folder = scratch.appendingPathComponent(".yiana-restic-\(UUID().uuidString.prefix(8).lowercased())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// `restic restore` of `paths` (in the snapshot) into `folder`.
    func restore(_ snapshot: ResticSnapshot, _ paths: [String], into folder: URL) throws {
        try restic.run(["restore", snapshot.id, "--target", folder.path] + paths.flatMap { ["--include", $0] })
    }

    /// What `snapshot` holds of the library's history: its journal replayed into a catalog
    /// (as the keeper's own is), which state each document of its library is, and the names
    /// of its other kept states.
    public func contents(of snapshot: ResticSnapshot) throws -> SnapshotContents {
        try withFolder { folder in
            let top = "/" + BackupView.name + "/"
            try restore(snapshot, [top + BackupView.journalName, top + BackupView.manifestName], into: folder)
            let journal = KeeperJournal(url: folder.appendingPathComponent(BackupView.name + "/" + BackupView.journalName))
            guard FileKind.at(journal.url.path) == .regular else { throw RepositoryHistoryError.unreadable("it holds no journal (\(top + BackupView.journalName))") }
            let catalog = KeeperCatalog.of(journal)
            defer { KeeperCatalog.close(journal) }
            var library: [String: String] = [:]  // sha → path in the snapshot's library
            var paths: [String: String] = [:]  // path → sha
            let manifest = (try? String(contentsOf: folder.appendingPathComponent(BackupView.name + "/" + BackupView.manifestName), encoding: .utf8)) ?? ""
            for line in manifest.split(separator: "\n") {
                let fields = line.split(separator: "\t", maxSplits: 1)
                guard fields.count == 2 else { continue }
                let path = TabSeparated.unescape(fields[1])
                library[String(fields[0])] = path
                paths[path] = String(fields[0])
            }
            var objects = Set<String>()
            let listing = try restic.output(["ls", "--json", snapshot.id, top + BackupView.objectsFolder])
            for line in listing.split(separator: "\n") {
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                      object["type"] as? String == "file", let name = object["name"] as? String else { continue }
                objects.insert(name)
            }
            let states = catalog.allStates()
            let absent = catalog.absent()
            return SnapshotContents(snapshot: snapshot, states: states, absent: absent.compactMap { record in
                switch record.state {
                case .gone: (record.path, RepositoryLost.How.deleted)
                case .notDocument: (record.path, RepositoryLost.How.overwritten)
                case .document: nil
                }
            }, libraryPaths: paths, libraryBySHA: library, objects: objects)
        }
    }
}

/// What one snapshot holds of a library's history.
public struct SnapshotContents: Sendable {
    public let snapshot: ResticSnapshot
    let states: [KeptState]
    let absent: [(path: String, how: RepositoryLost.How)]
    /// Its library's documents (path → SHA-256), and the SHA-256s of its other kept states.
    public let libraryPaths: [String: String]
    let libraryBySHA: [String: String]
    let objects: Set<String>

    /// Where the bytes `sha256` are in the snapshot, nil when it does not hold them.
    func location(_ sha256: String) -> String? {
        let top = "/" + BackupView.name + "/"
        if objects.contains(sha256) { return top + BackupView.objectsFolder + "/" + sha256 }
        return libraryBySHA[sha256].map { top + BackupView.libraryFolder + "/" + $0 }
    }

    /// The states of the document at `path` (and of `documentID` wherever it was) whose bytes
    /// the snapshot holds, newest first, one per distinct bytes and path.
    public func states(path: String?, documentID: String?) -> [RepositoryState] {
        var seen = Set<String>()
        return states.reversed().filter { state in
            (state.path == path || documentID != nil && state.documentID == documentID) && seen.insert(state.sha256 + "\t" + state.path).inserted
        }.compactMap(repositoryState)
    }

    func repositoryState(_ state: KeptState) -> RepositoryState? {
        guard let location = location(state.sha256) else { return nil }
        return RepositoryState(path: state.path, sha256: state.sha256, size: state.size, seenAt: state.seenAt,
                               reason: state.reason == Keeper.seenHere ? "seen here" : state.reason,
                               documentID: state.documentID, title: state.title, snapshot: snapshot.shortID,
                               snapshotTime: snapshot.time, location: location)
    }

    /// The documents the snapshot holds states of that `library` does not hold now: those
    /// the keeper had found gone or overwritten, and those of its library missing here.
    public func lost(from library: Library) -> [RepositoryLost] {
        var found: [RepositoryLost] = []
        var listed = Set<String>()
        let byPath = Dictionary(grouping: states.reversed(), by: \.path)
        func versions(_ path: String) -> [RepositoryState] {
            var seen = Set<String>()
            return (byPath[path] ?? []).filter { seen.insert($0.sha256).inserted }.compactMap(repositoryState)
        }
        for (path, how) in absent {
            let file = library.root.appendingPathComponent(path)
            // Back since (a document there again, or its evicted placeholder): not lost.
            if FileKind.at(file.path) == .regular ? (try? DocumentReader(path: file.path, checks: .layout).metadata()) != nil
                : FileKind.at(Placeholder.stubURL(for: file).path) == .regular { continue }
            let versions = versions(path)
            guard !versions.isEmpty, listed.insert(path).inserted else { continue }
            found.append(RepositoryLost(path: path, how: how, versions: versions))
        }
        for path in libraryPaths.keys where !listed.contains(path) && FileKind.at(library.root.appendingPathComponent(path).path) == .missing
            && FileKind.at(Placeholder.stubURL(for: library.root.appendingPathComponent(path)).path) != .regular {
            let versions = versions(path)
            guard !versions.isEmpty else { continue }
            found.append(RepositoryLost(path: path, how: .missingHere, versions: versions))
        }
        return found.sorted { $0.path < $1.path }
    }
}

extension ResticHistory {
    /// The bytes of `state`, restored from its snapshot into `folder` and checked against its
    /// SHA-256: the file, in `folder`.
    /// - Throws: ``RepositoryHistoryError/damaged(_:_:)`` when they do not hash to it.
    func fetch(_ state: RepositoryState, from snapshot: ResticSnapshot, into folder: URL) throws -> URL {
        try restore(snapshot, [state.location], into: folder)
        let file = folder.appendingPathComponent(String(state.location.dropFirst()))
        guard (try? FileHash.sha256(of: file)) == state.sha256 else { throw RepositoryHistoryError.damaged(state.sha256, state.location) }
        return file
    }

    /// Puts `state` back at its document's place in `library` (`url`), through the coordinated
    /// writer, after keeping what is there now (as the keeper's own restore does); the keeper
    /// then records it.
    /// - Returns: the record of the document it replaced, if there was one.
    public func restore(_ state: RepositoryState, from snapshot: ResticSnapshot, to url: URL, in library: Library) async throws -> VersionRecord? {
        let replaced = try withFolder { folder in
            let file = try fetch(state, from: snapshot, into: folder)
            // Bytes kept that are not a document (what overwrote one) are never put back as one.
            guard state.documentID != nil, Keeper.verifiesWhole(file) else { throw RepositoryHistoryError.notADocument(state.shortID) }
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            return try VersionStore(library: library).restore(bytesAt: file, id: state.shortID, to: url)
        }
        if Keeper.isEnabled() { await Keeper(library: library).recordRestored([url]) }
        return replaced
    }

    /// What a whole library's restore brought back.
    public struct LibraryRestore: Codable, Sendable, Equatable {
        public let snapshot: String
        public let snapshotTime: Date
        public let folder: String
        /// Documents, each checked against the SHA-256 the snapshot's manifest gives; the
        /// app's companion files; and documents whose bytes did not match (left out).
        public let documents: Int
        public let companions: Int
        public let damaged: [String]
    }

    /// The library as `snapshot` holds it, brought back into `folder` (new, or empty): every
    /// document checked against its SHA-256 first; the folder takes the library's files only
    /// once all of them are restored.
    public func restoreLibrary(_ snapshot: ResticSnapshot, to folder: URL) throws -> LibraryRestore {
        let kind = FileKind.at(folder.path)
        if kind == .folder, let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path), !names.isEmpty {
            throw RepositoryHistoryError.notEmpty(folder.path)
        } else if kind != .folder && kind != .missing {
            throw RepositoryHistoryError.notEmpty(folder.path)
        }
        let contents = try contents(of: snapshot)
        let parent = folder.deletingLastPathComponent()
        let staging = ResticHistory(restic: restic, libraryID: libraryID, scratch: parent)
        return try staging.withFolder { work in
            try restore(snapshot, ["/" + BackupView.name + "/" + BackupView.libraryFolder], into: work)
            let restored = work.appendingPathComponent(BackupView.name + "/" + BackupView.libraryFolder)
            var damaged: [String] = []
            for (path, sha) in contents.libraryPaths {
                let file = restored.appendingPathComponent(path)
                if (try? FileHash.sha256(of: file)) != sha {
                    damaged.append(path)
                    try? FileManager.default.removeItem(at: file)
                }
            }
            var files = 0
            if let walker = FileManager.default.enumerator(atPath: restored.path) {
                while let name = walker.nextObject() as? String {
                    if FileKind.at(restored.appendingPathComponent(name).path) == .regular { files += 1 }
                }
            }
            if FileKind.at(restored.path) != .folder { try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true) }
            if kind == .folder { try FileManager.default.removeItem(at: folder) }
            try FileManager.default.moveItem(at: restored, to: folder)
            // The library's id, as its snapshots are tagged: its next backups go on its history.
            try LibraryIdentity.adopt(libraryID, for: try Library(root: folder))
            let documents = contents.libraryPaths.count - damaged.count
            return LibraryRestore(snapshot: snapshot.shortID, snapshotTime: snapshot.time, folder: folder.path,
                                  documents: documents, companions: files - documents, damaged: damaged.sorted())
        }
    }

    init(restic: Restic, libraryID: String, scratch: URL) {
        self.restic = restic
        self.libraryID = libraryID
        self.scratch = scratch
    }
}

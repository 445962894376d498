import Foundation
import YianaFolder
import YianaSystem

/// What a backup of a library holds, laid out as a folder that restic is given (issue 58),
/// in the keeper's place and kept there between runs:
///
/// - `yiana/library/<path>`: each document as it should be kept, the keeper's object of its
///   state now, or of its last good state when the file is damaged, a placeholder or still
///   arriving; the app's companion files, copied;
/// - `yiana/history/objects/<sha256>`: every other state the keeper holds (deleted
///   documents' and earlier ones), so that restic reads each byte once;
/// - `yiana/history/journal.tsv`: the keeper's journal, which says what each path held when;
/// - `yiana/history/library.tsv`: which state each document of `library/` is (SHA-256, path),
///   so that the repository alone says where each kept state's bytes are.
///
/// The keeper's objects and journal are on the view's own file system: they are hard links,
/// made once and left alone while they stay the same, so that restic's next run finds them
/// unchanged and reads nothing of them.
struct BackupView: Sendable {
    /// `<keeper place>/backup`: restic runs here, on the target ``name``.
    let folder: URL
    /// The target's name, the snapshot's top folder.
    static let name = "yiana"
    /// The view's parts, relative to ``top``.
    static let libraryFolder = "library", objectsFolder = "history/objects"
    static let journalName = "history/journal.tsv", manifestName = "history/library.tsv"

    var top: String { folder.appendingPathComponent(Self.name).path }

    /// A name of the view (relative to ``top``) and the file it is.
    struct Entry: Sendable, Equatable {
        let path: String
        let source: String
        /// A hard link to `source`; false: a copy (a small file of the library's own).
        let link: Bool
    }

    /// What an update did.
    struct Update: Sendable, Equatable {
        var linked = 0, copied = 0, removed = 0, same = 0
        /// Entries whose file went before it was put in (an object the keeper's prune dropped
        /// meanwhile, a companion file deleted): left out, their names removed.
        var missing = 0
    }

    /// Brings the view to hold exactly `entries`: a name that is already the file it should be
    /// (the same inode for a link, the same bytes for a copy) is left as it is; another is put
    /// in place (a temporary name, then a rename over it); a name no entry has is removed,
    /// with the folders it leaves empty.
    /// New names are linked on `jobs` threads: the kernel's work, two folders at once.
    /// - Throws: when a name cannot be made (a file system without hard links among them),
    ///   naming it.
    func update(_ entries: [Entry], jobs: Int = 2) throws -> Update {
        var update = Update()
        let top = self.top
        try FileManager.default.createDirectory(atPath: top, withIntermediateDirectories: true)
        var wanted: [String: Entry] = [:]
        for entry in entries { wanted[entry.path] = entry }
        // What is there now, by its path in the view, and its folders.
        var present: [String: FileStamp] = [:], folders: [String] = []
        walk(top, "", files: &present, folders: &folders)
        for (path, _) in present where wanted[path] == nil {
            try Sys.unlink(top + "/" + path)
            update.removed += 1
        }
        var made = Set(folders + [top])  // the folders there, and those made: each made once
        var fresh: [(source: String, final: String)] = []  // new names, linked after the others
        for entry in entries {
            let final = top + "/" + entry.path
            let there = present[entry.path]
            do {
                if let there, try same(there, at: final, as: entry) {
                    update.same += 1
                    continue
                }
                let folder = String(final[..<(final.lastIndex(of: "/") ?? final.endIndex)])
                if !made.contains(folder) {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                    made.insert(folder)
                }
                if entry.link, there == nil {
                    fresh.append((entry.source, final))
                } else if entry.link {
                    // Another file under the name: the link takes its place in one step.
                    let temp = final + ".yiana-tmp-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
                    do {
                        try Sys.link(entry.source, temp)
                        try Sys.rename(temp, final)
                    } catch {
                        Sys.removeIfPresent(temp)
                        throw error
                    }
                    update.linked += 1
                } else {
                    guard let bytes = FileManager.default.contents(atPath: entry.source) else { throw SystemError("read", path: entry.source, code: .notFound) }
                    try TemporaryFile.replace(final, with: bytes, mode: 0o600)
                    update.copied += 1
                }
            } catch let error as SystemError where Self.went(error, entry.source) {
                if there != nil { Sys.removeIfPresent(final) }
                update.missing += 1
            }
        }
        let failures = Parallel.map(fresh, workers: jobs) { name -> SystemError? in
            do throws(SystemError) { try Sys.link(name.source, name.final) } catch { return error }
            return nil
        }
        for (name, failure) in zip(fresh, failures) {
            if let failure {
                guard Self.went(failure, name.source) else { throw failure }
                update.missing += 1
            } else {
                update.linked += 1
            }
        }
        // Deepest first: a folder emptied by its own empty folders' removal goes too.
        for folder in folders.sorted(by: { $0.count > $1.count }) where (try? DirectoryEntry.list(folder, stamps: false, sorted: false))?.isEmpty == true {
            try? FileManager.default.removeItem(atPath: folder)
        }
        return update
    }

    /// True when `error` says `source` was not found and it is indeed gone: its file went since
    /// the entries were made (no lock is held against the keeper's prune), and it is left out,
    /// as the next run's entries will leave it.
    private static func went(_ error: SystemError, _ source: String) -> Bool {
        error.code == .notFound && FileKind.at(source) == .missing
    }

    /// The regular files below `folder` (by path relative to the view's top, `relative` being
    /// the folder's), each with its stamp, and the folders (absolute): one listing a folder.
    private func walk(_ folder: String, _ relative: String, files: inout [String: FileStamp], folders: inout [String]) {
        for entry in (try? DirectoryEntry.list(folder, sorted: false)) ?? [] {
            guard let name = entry.name else { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            if entry.kind == .folder {
                folders.append(folder + "/" + name)
                walk(folder + "/" + name, path, files: &files, folders: &folders)
            } else if entry.kind == .regular, let stamp = entry.stamp {
                files[path] = stamp
            }
        }
    }

    /// True when the file at `final` (stamped `there`) is what `entry` says it should be.
    private func same(_ there: FileStamp, at final: String, as entry: Entry) throws(SystemError) -> Bool {
        guard let source = FileStamp(path: entry.source) else { throw SystemError("read", path: entry.source, code: .notFound) }
        if entry.link { return there.inode == source.inode }
        return there.size == source.size && FileManager.default.contents(atPath: final) == FileManager.default.contents(atPath: entry.source)
    }
}

extension Keeper {
    /// The backup view of this library's keeper.
    var backupView: BackupView { BackupView(folder: place.folder.appendingPathComponent("backup")) }

    /// Where the view's manifest (``BackupView/manifestName``) is written before it is copied in.
    var backupManifest: String { place.folder.appendingPathComponent("backup-manifest.tsv").path }

    /// What the backup view holds for the library as `scan` found it, from what the catalog
    /// holds (``BackupView``), and the documents of which no verified state is kept (none goes
    /// in). Every kept state that goes in is checked against its SHA-256 first, read again
    /// only when its file changed since it was last found intact: bytes a program rewrote in
    /// place through a link are dropped from the keeper, never sent as a document's state.
    /// Writes the manifest (``backupManifest``) when it changed.
    func backupEntries(_ scan: LibraryScan, now: Date = Date(), jobs: Int = 2) -> BackupContents {
        let catalog = catalog()
        var entries: [BackupView.Entry] = [], unkept: [String] = [], notDownloaded: [String] = [], inLibrary = Set<String>()
        // Documents before placeholders: a document and the placeholder beside it stand for one
        // path, and the document is what goes in.
        let items = (scan.items.filter { $0.kind == .document } + scan.items.filter { $0.kind == .placeholder })
            .compactMap { item in library.documentPath(of: item).map { (item: item, path: $0) } }
        let records = catalog.records(of: items.map(\.path))
        // The bytes kept, read once, with their files' identities when last found intact.
        var kept: [String: String?] = [:]
        try? catalog.forEachKeptObject { kept[$0] = $1 }
        var found: [String: String] = [:], checked: [String: Bool] = [:]
        defer { catalog.noteVerified(found) }
        func intact(_ sha: String) -> Bool {
            if let known = checked[sha] { return known }
            guard let identity = kept[sha] else { return false }
            let intact = self.intact(sha, catalog: catalog, now: now, recorded: identity, held: true, found: &found)
            checked[sha] = intact
            return intact
        }
        // Each document kept as it is now: its state's SHA-256, its stamp, and its object's stamp,
        // taken on `jobs` threads. Kept by a link, the object is the document's own file, as the
        // look hashed it (same inode, size and time): nothing more to check.
        let keptAsItIs = Parallel.map(items, workers: jobs) { item, path -> (sha: String, stamp: FileStamp, object: FileStamp?)? in
            guard item.kind == .document, case .document(let state)? = records[path]?.state,
                  let stamp = item.stamp ?? FileStamp(path: item.path), state.stamp == stamp else { return nil }
            return (state.sha256, stamp, FileStamp(path: objectPath(state.sha256)))
        }
        var manifest = [UInt8]()
        var seen = Set<String>()
        for ((item, path), asItIs) in zip(items, keptAsItIs) where seen.insert(path).inserted {
            let record = records[path]
            var candidates: [String] = []
            if let state = asItIs {
                if checked[state.sha] == nil, state.object == state.stamp { checked[state.sha] = true }
                candidates.append(state.sha)
            }
            if let last = record?.lastDocument?.sha256 { candidates.append(last) }  // its last good state
            guard let sha = candidates.first(where: intact) else {
                // An evicted document (no document beside it) never seen whole here is in the cloud, not lost.
                if item.kind == .placeholder {
                    notDownloaded.append(path)
                } else {
                    unkept.append(path)
                }
                continue
            }
            entries.append(BackupView.Entry(path: BackupView.libraryFolder + "/" + path, source: objectPath(sha), link: true))
            manifest.append(contentsOf: (sha + "\t" + TabSeparated.escape(path) + "\n").utf8)
            inLibrary.insert(sha)
        }
        for companion in scan.companions where !companion.isTemp {
            entries.append(BackupView.Entry(path: BackupView.libraryFolder + "/" + companion.path,
                                            source: library.root.appendingPathComponent(companion.path).path, link: false))
        }
        for sha in kept.keys.filter({ !inLibrary.contains($0) }).sorted() where intact(sha) {
            entries.append(BackupView.Entry(path: BackupView.objectsFolder + "/" + sha, source: objectPath(sha), link: true))
        }
        entries.append(BackupView.Entry(path: BackupView.journalName, source: journal.url.path, link: true))
        // Written only when it changed: restic then finds the view's copy as it was.
        if FileManager.default.contents(atPath: backupManifest).map({ [UInt8]($0) }) != manifest {
            try? TemporaryFile.replace(backupManifest, with: manifest, mode: 0o600)
        }
        entries.append(BackupView.Entry(path: BackupView.manifestName, source: backupManifest, link: false))
        return BackupContents(entries: entries, unkept: unkept.sorted(), notDownloaded: notDownloaded.sorted())
    }
}

/// What the backup view is to hold, and the documents it cannot.
struct BackupContents: Sendable {
    var entries: [BackupView.Entry]
    /// Documents of which no verified state is kept.
    var unkept: [String]
    /// Evicted documents (placeholders) never seen whole on this machine.
    var notDownloaded: [String]
}

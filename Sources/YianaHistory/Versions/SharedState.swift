import Foundation
import YianaFolder
import YianaArchive

/// The library's shared state (`.yiana/`) as a whole: what sync programs and earlier
/// versions left in it that the next write folds in, and folding it in on request
/// (`yiana repair` does, so a library nobody writes to is tidied too).
public enum SharedState {
    /// The shared logs: each device's file of one is `.yiana/devices/<id>/<rawValue>`.
    public enum Log: String, CaseIterable, Sendable {
        /// What each write was made from (``DocumentHistory``).
        case history = "history.jsonl"
        /// What was kept in the version store (``VersionStore``).
        case versions = "versions.jsonl"
        /// Every decision `conflicts resolve` made.
        case resolutions = "resolutions.jsonl"
        /// Versions some device pruned.
        case pruned = "pruned.jsonl"

        /// Where earlier versions kept it, one file for all devices (relative to `.yiana/`).
        var legacy: String? {
            switch self {
            case .history: "history.jsonl"
            case .versions: "versions/log.jsonl"
            case .resolutions: "resolutions.jsonl"
            case .pruned: nil
            }
        }
    }

    /// The shared log `log` of `library`, of records `Record`.
    public static func log<Record>(_ log: Log, of library: Library, as _: Record.Type = Record.self) -> SharedLog<Record> {
        SharedLog(library: library, name: log.rawValue,
                  legacy: log.legacy.map { library.root.appendingPathComponent(Library.stateFolderName).appendingPathComponent($0) })
    }

    static func logs(_ library: Library) -> [SharedLog<JSONValue>] {
        Log.allCases.map { log($0, of: library) }
    }

    /// Conflict copies of the logs and of kept versions' objects, and old shared logs,
    /// relative to the library.
    public static func strays(_ library: Library) -> [String] {
        let files = logs(library).flatMap { $0.files().strays }
            + VersionStore(library: library).objectStore.strays().map(\.url)
        return files.map { library.relativePath(of: $0) ?? $0.path }.sorted()
    }

    /// Folds every stray into this device's own logs (or, for an object, into the store when
    /// its bytes match its name) and removes it.
    /// - Returns: the strays that were folded in.
    /// - Throws: when this device's logs cannot be written.
    @discardableResult
    public static func tidy(_ library: Library) throws -> [String] {
        let before = strays(library)
        guard !before.isEmpty else { return [] }
        for log in logs(library) where !log.files().strays.isEmpty {
            try log.tidy(into: try log.own(), force: true)
        }
        VersionStore(library: library).objectStore.foldConflictCopies()
        let after = Set(strays(library))
        return before.filter { !after.contains($0) }
    }

    /// What earlier versions kept in `.yiana/` that belongs to one machine (and so now lives
    /// in ``LocalState``, which reads these until it first writes its own).
    static let legacyLocal = ["cloud.json", "sync-state.json", "downloads.json", "dataless.json", "tmp", "downloads"]

    /// The sentences `verify` says about the shared state, if any.
    public static func notes(_ library: Library) -> [String] {
        var notes: [String] = []
        let strays = strays(library)
        if !strays.isEmpty {
            let shown = strays.prefix(3).joined(separator: ", ") + (strays.count > 3 ? ", …" : "")
            notes.append("the toolkit's shared state holds \(strays.count) file\(strays.count == 1 ? "" : "s") a sync program copied or an earlier version wrote (\(shown)); nothing in them is lost: the next write, or `yiana repair`, folds them in.")
        }
        let state = library.root.appendingPathComponent(Library.stateFolderName)
        let local = legacyLocal.filter { FileManager.default.fileExists(atPath: state.appendingPathComponent($0).path) }
        if !local.isEmpty {
            notes.append("an earlier version of yiana kept this machine's own state in the synced folder (\(local.map { ".yiana/\($0)" }.joined(separator: ", "))); it is read until this machine writes its own, outside the library, and can be deleted once every device runs this version.")
        }
        return notes
    }
}

import Foundation
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

    /// The sentence `verify` says about them, if any.
    public static func note(_ library: Library) -> String? {
        let strays = strays(library)
        guard !strays.isEmpty else { return nil }
        let shown = strays.prefix(3).joined(separator: ", ") + (strays.count > 3 ? ", …" : "")
        return "the toolkit's shared state holds \(strays.count) file\(strays.count == 1 ? "" : "s") a sync program copied or an earlier version wrote (\(shown)); nothing in them is lost: the next write, or `yiana repair`, folds them in."
    }
}

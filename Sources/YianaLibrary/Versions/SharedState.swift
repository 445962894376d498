import Foundation
import YianaArchive

/// The library's shared state (`.yiana/`) as a whole: what sync programs and earlier
/// versions left in it that the next write folds in, and folding it in on request
/// (`yiana repair` does, so a library nobody writes to is tidied too).
public enum SharedState {
    /// Each shared log's file name in a device's folder, and where earlier versions kept
    /// it as one file for all devices.
    static func logs(_ library: Library) -> [SharedLog<JSONValue>] {
        let state = library.root.appendingPathComponent(Library.stateFolderName)
        return [
            SharedLog(library: library, name: "history.jsonl", legacy: state.appendingPathComponent("history.jsonl")),
            SharedLog(library: library, name: "versions.jsonl", legacy: state.appendingPathComponent("versions/log.jsonl")),
            SharedLog(library: library, name: "resolutions.jsonl", legacy: state.appendingPathComponent("resolutions.jsonl")),
            SharedLog(library: library, name: "pruned.jsonl"),
        ]
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

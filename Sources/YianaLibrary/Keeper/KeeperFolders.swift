import Foundation
import YianaSystem

/// The library's folders as the keeper's last look left them: each folder's modification
/// time, with when that was recorded. A folder whose time is unchanged holds the same names
/// as then (a name added, removed or renamed in a folder changes its time), so a command
/// that must know what went since (`versions list --deleted`) lists only the folders changed
/// since (``Keeper/lookAtChangedFolders(now:)``), not the library.
///
/// A folder changed within ``racy`` of the record may have changed again within the same
/// tick of the file system's clock: it counts as changed. A folder whose documents were not
/// all recorded (one still arriving) is written with a time nothing matches. The record is
/// replaced whole (a temporary file, `fsync`, rename) and never trusted past what it says: a
/// lost or unreadable one means a whole look.
struct KeeperFolders: Sendable {
    let url: URL

    static let header = "# yiana keeper folders 1"
    /// Nanoseconds before the record within which a folder's time is not trusted.
    static let racy: Int64 = 2_000_000_000

    struct Record: Equatable {
        /// When it was recorded (nanoseconds since 1970).
        var at: Int64
        /// Relative folder ("" for the library's own) → its modification time in nanoseconds.
        var folders: [String: Int64]
    }

    func read() -> Record? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2, lines.last == "", let first = lines.first, first.hasPrefix(Self.header + " "),
              let at = Int64(first.dropFirst(Self.header.count + 1)) else { return nil }
        var folders: [String: Int64] = [:]
        for line in lines.dropFirst().dropLast() {
            guard let tab = line.firstIndex(of: "\t"), let modified = Int64(line[..<tab]) else { return nil }
            folders[String(line[line.index(after: tab)...])] = modified
        }
        return Record(at: at, folders: folders)
    }

    /// Records `folders` (scan.folders: relative path → time), with those named in `unsettled`
    /// set never to match; unless it says that already. The record's time is the clock's now,
    /// whatever time a look was told it is: what it guards against is the file system's clock.
    func write(_ folders: [String: Int64], unsettled: Set<String>) {
        var record = folders
        for folder in unsettled { record[folder] = -1 }
        // A name that cannot be written on a line: no record, and a whole look next time.
        guard !record.keys.contains(where: { $0.contains("\n") }) else { return remove() }
        // The same folders, none of them too new to trust: the record stands as it is.
        if let old = read(), old.folders == record, !record.values.contains(where: { $0 >= old.at - Self.racy }) { return }
        let text = Self.header + " \(Int64(Date().timeIntervalSince1970 * 1e9))\n" + record.map { "\($0.value)\t\($0.key)\n" }.sorted().joined()
        try? TemporaryFile.replace(url.path, with: Array(text.utf8), mode: 0o600)
    }

    func remove() {
        Sys.removeIfPresent(url.path)
    }

    /// The recorded folders whose times differ now (or are too close to the record to trust),
    /// and those gone: what a look must list again.
    func changed(in record: Record, root: URL) -> [String] {
        record.folders.compactMap { folder, modified in
            let now = FileStamp(path: folder.isEmpty ? root.path : root.appendingPathComponent(folder).path)
            return now?.modified != modified || modified < 0 || modified >= record.at - Self.racy ? folder : nil
        }
    }
}

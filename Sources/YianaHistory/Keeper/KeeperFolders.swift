import Foundation
import YianaFolder
import YianaSystem

/// The library's folders as the keeper's last look left them: each folder's modification
/// time, with when that was recorded. A folder whose time is unchanged holds the same names
/// as then (a name added, removed or renamed in a folder changes its time), so a command
/// that must know what went since (`versions list --deleted`) lists only the folders changed
/// since (``Keeper/lookAtChangedFolders(now:)``), not the library.
///
/// The record holds as of when its folders' times were taken (``LibraryScan/listedAt``), not
/// when it was written: a folder changed within ``racy(_:)`` of that may have changed again
/// within the same tick of the file system's clock, and counts as changed. A folder whose documents were not
/// all recorded (one still arriving) is written with a time nothing matches. The record is
/// replaced whole (a temporary file, `fsync`, rename) and never trusted past what it says: a
/// lost or unreadable one means a whole look.
struct KeeperFolders: Sendable {
    let url: URL

    static let header = "# yiana keeper folders 1"
    /// Nanoseconds before the record within which the folder time `modified` is not trusted:
    /// a change within the same tick of the file system's clock leaves a folder's time as it
    /// was. A time with a part of a second is from a file system that keeps one (ext4, Btrfs,
    /// XFS, tmpfs, APFS, NTFS, exFAT: a tick of 10 ms at most): 100 ms. A whole second may be
    /// from one that keeps whole seconds or two (FAT, HFS+, some network shares): 2 s.
    static func racy(_ modified: Int64) -> Int64 {
        modified % 1_000_000_000 == 0 ? 2_000_000_000 : 100_000_000
    }

    /// True when a folder recorded with the time `modified` at `at` may have changed since
    /// with its time as it is (or was marked never to match).
    static func untrusted(_ modified: Int64, at: Int64) -> Bool {
        modified < 0 || modified >= at - racy(modified)
    }

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
    /// set never to match; unless it says that already. The record's time is when the times
    /// were taken (`listedAt`, the clock's), or the clock's now when that is not known: never
    /// the time a look was told it is, for what it guards against is the file system's clock.
    func write(_ folders: [String: Int64], unsettled: Set<String>, listedAt: Int64?) {
        var record = folders
        for folder in unsettled { record[folder] = -1 }
        // A name that cannot be written on a line: no record, and a whole look next time.
        guard !record.keys.contains(where: { $0.contains("\n") }) else { return remove() }
        // The same folders, none of them too new to trust: the record stands as it is.
        if let old = read(), old.folders == record, !record.values.contains(where: { Self.untrusted($0, at: old.at) }) { return }
        let at = min(listedAt ?? .max, FileStamp.now())
        let text = Self.header + " \(at)\n" + record.map { "\($0.value)\t\($0.key)\n" }.sorted().joined()
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
            return now?.modified != modified || Self.untrusted(modified, at: record.at) ? folder : nil
        }
    }
}

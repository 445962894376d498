import Foundation
import YianaLibrary
import YianaSystem

/// Whether the library holds changes the index has not seen, told cheaply enough to ask on
/// every search.
///
/// An indexing run records the modification time of every folder of the library, taken before
/// the folder was listed. A sync program that adds, removes or renames a document (every one
/// places a new version by renaming its temporary file) changes its folder's time; a search
/// then compares the times (one `lstat` per folder) and, for a folder whose time moved, lists
/// that folder alone and compares its documents with the index. A command that writes
/// documents updates the index for them (``Indexer/update(_:options:)``), then records its
/// folders again when every document in them matches, so its own writes never show as changes.
/// A file rewritten in place (rclone `--inplace`) leaves its folder's time alone: the next
/// `yiana index`, or the watcher, sees it.
public enum IndexFreshness {
    /// What the library holds that the index has not seen.
    public struct Staleness: Sendable, Equatable {
        /// Documents added, changed or removed (in the folders whose time moved).
        public var documents = 0
        /// Folders added or removed.
        public var folders = 0

        public var isEmpty: Bool { documents == 0 && folders == 0 }

        /// "2 documents and 1 folder".
        public var description: String {
            func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
            return [documents > 0 ? count(documents, "document") : nil, folders > 0 ? count(folders, "folder") : nil]
                .compactMap { $0 }.joined(separator: " and ")
        }
    }

    /// What the index holds of each document, by path: its status and the file it was made
    /// from (for `yiana status`, which reads no document to tell what changed since).
    public struct Entry: Sendable {
        public let status: IndexStatus
        public let stamp: FileStamp
    }

    /// Every document the index holds, and when `yiana index` last ran over the library (nil
    /// before a version that records it).
    public static func entries(_ index: any IndexStore) async throws -> (documents: [String: Entry], lastRun: Date?) {
        let documents = try await index.known().mapValues { Entry(status: $0.status, stamp: $0.file) }
        let lastRun = try await index.state(.lastRun).flatMap(Double.init)
        return (documents, lastRun.map { Date(timeIntervalSince1970: $0) })
    }

    /// The folder times the index was last brought up to date with; nil before the first run
    /// of a version that records them.
    /// Read on every search, so in a form read without a JSON decoder: a line per folder,
    /// its time, a tab, its path (a backslash, a tab or a line break in it escaped).
    static func stored(_ index: any IndexStore) async throws -> [String: Int64]? {
        guard let text = try await index.state(.folderTimes) else { return nil }
        var folders: [String: Int64] = [:]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            guard let tab = line.firstIndex(of: "\t"), let time = Int64(line[..<tab]) else { continue }
            folders[TabSeparated.unescape(line[line.index(after: tab)...])] = time
        }
        return folders
    }

    static func encode(_ folders: [String: Int64]) -> String {
        folders.map { "\($0.value)\t\(TabSeparated.escape($0.key))\n" }.joined()
    }

    /// What the library holds that the index has not seen (empty when nothing), or nil when
    /// the index does not know its folders' times yet (made by an older version).
    public static func check(_ library: Library, index: any IndexStore) async throws -> Staleness? {
        guard let stored = try await stored(index) else { return nil }
        var staleness = Staleness()
        // Paths joined as strings: `appendingPathComponent` would `stat` each to learn
        // whether it is a folder, doubling the cost of the check.
        let root = library.root.path == "/" ? "" : library.root.path
        for (folder, time) in stored where FileStamp(path: folder.isEmpty ? library.root.path : root + "/" + folder)?.modified != time {
            let found = await differences(in: folder, known: stored, library: library, index: index)
            staleness.documents += found.documents
            staleness.folders += found.folders
        }
        return staleness
    }

    /// Records the times of `folders` (each taken before it was compared) for those whose
    /// documents all match the index now: after a command's own writes, so they do not show
    /// as changes. A folder that does not match keeps its old time, and shows.
    static func refresh(_ folders: Set<String>, library: Library, index: any IndexStore) async throws {
        guard var stored = try await stored(index) else { return }
        // The deepest first: a folder is current once the folders made in it are known.
        for folder in folders.sorted(by: { ($0.split(separator: "/").count, $0) > ($1.split(separator: "/").count, $1) }) {
            guard let time = FileStamp(path: library.root.appendingPathComponent(folder).path)?.modified else { continue }
            if await differences(in: folder, known: stored, library: library, index: index).isEmpty { stored[folder] = time }
        }
        try await index.setState([.folderTimes: encode(stored)])
    }

    /// How the documents in `folder` itself differ from the index's (added, changed, removed),
    /// and its sub-folders the index does not know; a folder that is gone counts its documents.
    static func differences(in folder: String, known: [String: Int64], library: Library, index: any IndexStore) async -> Staleness {
        let rows = (try? await index.stamps(inFolder: folder)) ?? [:]
        guard let scan = try? LibraryScanner.scan(library, only: library.root.appendingPathComponent(folder)) else {
            return Staleness(documents: rows.count, folders: 1)
        }
        var staleness = Staleness()
        var here = Set<String>()
        for item in scan.items {
            guard let path = library.documentPath(of: item) else { continue }
            here.insert(path)
            let stamp = item.stamp ?? FileStamp(path: item.path)
            if rows[path] != stamp { staleness.documents += 1 }
        }
        staleness.documents += rows.keys.filter { !here.contains($0) }.count
        staleness.folders += scan.folders.keys.filter { $0 != folder && known[$0] == nil }.count
        return staleness
    }
}

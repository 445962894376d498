import Foundation
import YianaSystem

/// A library's walk kept between a watcher's passes: what each folder holds itself, listed
/// again only when something in it changed. A pass after one change lists one folder, not
/// the library.
///
/// What changed is told by the caller (inotify's events). Where events may have been missed
/// (the periodic rescan, an overflowed queue) the caller names every folder (``folders``):
/// each is listed again and the scan still says which documents changed since the last one,
/// so that what comes after costs those. Where what came after the last scan is not known
/// (the first pass, a pass that failed) the caller passes nil and the library is walked
/// whole. Either way the scan is the one a walk of the library would give now
/// (``LibraryScanner/scan(_:below:)``); the tests compare the two.
public final class LibraryScanCache {
    public let library: Library
    private let root: String
    /// Folder (absolute path) → what it holds itself, with its sub-folders in `unwalked`. Its
    /// documents are in `last` only, once put together: a library's items held once, not twice.
    private var pieces: [String: LibraryScan] = [:]
    private var last: LibraryScan?
    /// The items of the last scan, while a call lists folders again (what they held is there).
    private var before: [LibraryItem] = []
    /// Folders listed by the last call.
    public private(set) var listed = 0
    /// Every folder the last scan listed (absolute paths): passed as `changed`, every folder is
    /// listed again and the scan says what changed since the last one.
    public var folders: Set<String> { Set(pieces.keys) }
    /// What the call under way found changed, and the paths it was asked to look at again.
    private var changes = ScanChanges()
    private var recheck: Set<String> = []
    /// The folders (absolute) the call under way listed again, walked new or forgot.
    private var touched: Set<String> = []
    /// Of those, the folders listed again whose items are already in `before` (``patch(_:in:)``).
    private var patched: Set<String> = []
    /// The documents evicted the macOS 14 way when the last scan was put together.
    private var dataless: Set<String> = []

    public init(library: Library) {
        self.library = library
        root = library.root.path
    }

    /// The library as a walk would find it now. `changed`: the paths (absolute) whose entries
    /// were created, removed, moved, written or had their metadata changed since the last
    /// call; nil when that is not known. The scan's ``LibraryScan/changes`` say which
    /// documents differ from the last call's scan (nil after a whole walk), with `recheck`
    /// (documents, relative; their folders must be among `changed`) counted as changed.
    /// - Throws: when the library's root cannot be listed.
    public func scan(changed: Set<String>?, recheck: Set<String> = []) throws -> LibraryScan {
        // What this call returns holds as of now: the folders it does not list again are as
        // the last listing left them, for no change was reported in them since.
        let listedAt = FileStamp.now()
        var scan = try make(changed: changed, recheck: recheck)
        scan.listedAt = listedAt
        return scan
    }

    private func make(changed: Set<String>?, recheck: Set<String>) throws -> LibraryScan {
        listed = 0
        changes = ScanChanges()
        touched = []
        patched = []
        self.recheck = recheck
        guard let changed, var previous = last else {
            last = nil
            pieces = [:]
            try walk([root])
            return assemble()
        }
        // Not trusted again until this call ends well (a root that cannot be listed throws).
        last = nil
        // The record of evicted documents changed: every folder's items again, a whole walk.
        guard DatalessFiles.paths(in: library) == dataless else { return try make(changed: nil, recheck: []) }
        // The folders whose listing holds a changed entry (the nearest one kept, for an entry
        // of a folder not kept: a folder named like a document, walked by its parent), and a
        // changed folder itself (its permissions, say).
        var folders = Set<String>()
        for path in changed where path == root || path.hasPrefix(root + "/") {
            if pieces[path] != nil { folders.insert(path) }
            var folder = path
            repeat {
                folder = folder == root ? root : (folder as NSString).deletingLastPathComponent
            } while pieces[folder] == nil && folder != root
            folders.insert(folder)
        }
        guard !folders.isEmpty else {
            last = previous
            var same = previous
            same.changes = ScanChanges()
            return same
        }
        // What the folders listed again held is in the last scan's items (not copied: that
        // scan is not used again).
        swap(&before, &previous.items)
        defer { before = [] }
        // Parents first: a folder a parent's new listing dropped is not listed.
        for folder in folders.sorted(by: { $0.count < $1.count }) where pieces[folder] != nil || folder == root {
            try relist(folder)
        }
        var scan = assemblePatched()
        changes.items = LibraryScanner.evicted(changes.items, library: library)
        scan.changes = changes
        return scan
    }

    /// Lists `folder` again: sub-folders gone are forgotten with all below them, new ones walked.
    private func relist(_ folder: String) throws {
        let old = Set((pieces[folder]?.unwalked ?? []).map(\.path))
        var piece = try Self.list(folder, library: library)
        listed += 1
        let held = items(of: folder, below: false)
        // The paths of what is still there held once, not once by each listing (a rescan
        // lists every folder: the library's paths would be in memory twice until it ends).
        piece.items = LibraryItem.sharingStrings(piece.items, with: held)
        pieces[folder] = piece
        touched.insert(folder)
        note(held, LibraryScanner.evicted(piece.items, dataless: dataless, library: library))
        // Put in place now, not when every folder has been listed: a rescan would hold every
        // folder's new listing at once, a second copy of the library's items at its end.
        patch(folder, in: &before)
        patched.insert(folder)
        let now = (piece.unwalked ?? []).map(\.path)
        for gone in old.subtracting(now) {
            note(items(of: gone, below: true), [])
            for key in pieces.keys where key == gone || key.hasPrefix(gone + "/") {
                pieces[key] = nil
                touched.insert(key)
            }
        }
        try walk(now.filter { pieces[$0] == nil }, noting: true)
    }

    /// What the last scan held in `folder` (absolute): itself, or with all below it.
    private func items(of folder: String, below: Bool) -> [LibraryItem] {
        let prefix = folder + "/"
        let range = Self.range(of: prefix, in: before)
        return below ? Array(before[range]) : before[range].filter { !Self.isDeeper($0, than: prefix) }
    }

    /// Where the items below `prefix` (a folder's path and "/") are in `items`, sorted by path.
    private static func range(of prefix: String, in items: [LibraryItem]) -> Range<Int> {
        let start = LibraryScanner.firstItem(from: prefix, of: items)
        var end = start
        while end < items.count, items[end].path.hasPrefix(prefix) { end += 1 }
        return start..<end
    }

    private static func isDeeper(_ item: LibraryItem, than prefix: String) -> Bool {
        item.path.utf8.dropFirst(prefix.utf8.count).contains(UInt8(ascii: "/"))
    }

    /// Notes the documents whose items differ between `old` and `new` (or are to be looked at again).
    private func note(_ old: [LibraryItem], _ new: [LibraryItem]) {
        func key(_ item: LibraryItem) -> String { library.documentPath(of: item) ?? item.path }
        var before = Dictionary(old.map { (key($0), $0) }, uniquingKeysWith: { _, last in last })
        for item in new {
            let path = key(item)
            let was = before.removeValue(forKey: path)
            if was == nil || was! != item || was!.stamp != item.stamp || recheck.contains(path) {
                changes.paths.insert(path)
                changes.items.append(item)
            }
        }
        changes.paths.formUnion(before.keys)
    }

    /// Lists `folders` and every folder below them, each level's folders on every core;
    /// `noting`: their documents are noted as changed (new).
    private func walk(_ folders: [String], noting: Bool = false) throws {
        var level = folders
        while !level.isEmpty {
            var found = [Result<LibraryScan, Error>](repeating: .success(LibraryScan()), count: level.count)
            found.withUnsafeMutableBufferPointer { [level, library] buffer in
                nonisolated(unsafe) let found = buffer
                DispatchQueue.concurrentPerform(iterations: level.count) { index in
                    found[index] = Result { try Self.list(level[index], library: library) }
                }
            }
            listed += level.count
            var next: [String] = []
            for (folder, result) in zip(level, found) {
                let piece = try result.get()
                pieces[folder] = piece
                touched.insert(folder)
                if noting { note([], piece.items) }
                next += (piece.unwalked ?? []).map(\.path)
            }
            level = next
        }
    }

    /// What `folder` holds itself. A sub-folder that cannot be listed holds nothing, as in a
    /// walk (only its time is kept); the root that cannot be listed throws.
    private static func list(_ folder: String, library: Library) throws -> LibraryScan {
        let url = URL(fileURLWithPath: folder, isDirectory: true)
        do {
            return try LibraryScanner.shallow(url, library: library)
        } catch {
            if folder == library.root.path { throw error }
            var piece = LibraryScan()
            piece.unwalked = []
            if let relative = library.relativePath(of: url), let stamp = FileStamp(path: folder) { piece.folders[relative] = stamp.modified }
            return piece
        }
    }

    /// The scan of the whole library from the pieces, the last scan's items (in `before`)
    /// patched where a folder was touched rather than gathered again: a pass after one
    /// change costs that folder, not a copy and a sort of every document's item.
    private func assemblePatched() -> LibraryScan {
        var scan = LibraryScan()
        for key in pieces.keys.sorted() { scan.append(pieces[key]!, items: false) }
        swap(&scan.items, &before)
        for folder in touched.subtracting(patched).sorted() { patch(folder, in: &scan.items) }
        last = scan
        return scan
    }

    /// Puts what `folder` holds itself now (its piece's items, then emptied) in place of what
    /// `items` (a scan's, sorted by path) held there; what its sub-folders hold stays.
    private func patch(_ folder: String, in items: inout [LibraryItem]) {
        let prefix = folder + "/"
        let range = Self.range(of: prefix, in: items)
        let fresh = LibraryScanner.evicted(pieces[folder]?.items ?? [], dataless: dataless, library: library).sorted { $0.path < $1.path }
        pieces[folder]?.items = []
        let own = range.filter { !Self.isDeeper(items[$0], than: prefix) }
        if own.count == fresh.count, zip(own, fresh).allSatisfy({ items[$0].path == $1.path }) {
            // The same files (a rescan's nearly every folder): each item in its place.
            for (index, item) in zip(own, fresh) { items[index] = item }
        } else {
            // In one pass and one array of the range's size (the root's range is the library's).
            let patched = items[range].lazy.filter { Self.isDeeper($0, than: prefix) }
                .merged(with: fresh, capacity: range.count + fresh.count) { $0.path < $1.path }
            items.replaceSubrange(range, with: patched)
        }
    }

    private func assemble() -> LibraryScan {
        var scan = LibraryScan()
        // Made its size at once: grown by doubling, it would hold up to twice the room it needs.
        scan.items.reserveCapacity(pieces.values.reduce(0) { $0 + $1.items.count })
        for key in pieces.keys.sorted() {
            scan.append(pieces[key]!)
            pieces[key]!.items = []
        }
        dataless = DatalessFiles.paths(in: library)
        LibraryScanner.finish(&scan, dataless: dataless, library: library)
        last = scan
        return scan
    }
}

extension LibraryScanner {
    /// What `folder` itself holds, as a walk finds it there, with the sub-folders it would walk
    /// next in `unwalked` (not walked): a piece of a walk, for ``LibraryScanCache``.
    /// - Throws: when `folder` cannot be listed.
    static func shallow(_ folder: URL, library: Library) throws -> LibraryScan {
        var scan = LibraryScan()
        scan.unwalked = []
        let relativeFolder = library.relativePath(of: folder)
        let folderPath = folder.path
        if let relativeFolder, let stamp = FileStamp(path: folderPath) { scan.folders[relativeFolder] = stamp.modified }
        for entry in try DirectoryEntry.list(folderPath) {
            visit(entry, in: folderPath, relativeFolder: relativeFolder, library: library, into: &scan)
        }
        return scan
    }

    /// The first of `items` (sorted by path) whose path does not sort before `path`: with a
    /// folder's path and "/", where its files begin.
    public static func firstItem(from path: String, of items: [LibraryItem]) -> Int {
        var low = 0, high = items.count
        while low < high {
            let middle = (low + high) / 2
            if items[middle].path < path { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// Turns documents the macOS 14 way evicted (``DatalessFiles``) into placeholders and
    /// sorts the items: the last step of every walk.
    /// `dataless`: the record of such documents, when read already.
    static func finish(_ scan: inout LibraryScan, dataless: Set<String>? = nil, library: Library) {
        scan.items = evicted(scan.items, dataless: dataless ?? DatalessFiles.paths(in: library), library: library)
        scan.items.sort { $0.path < $1.path }
    }

    /// `items`, with the documents evicted the macOS 14 way as placeholders: such files keep
    /// their names, and this device's record (``DatalessFiles``) tells them.
    package static func evicted(_ items: [LibraryItem], library: Library) -> [LibraryItem] {
        evicted(items, dataless: DatalessFiles.paths(in: library), library: library)
    }

    /// `items`, with the documents `dataless` names (relative paths) as placeholders.
    static func evicted(_ items: [LibraryItem], dataless: Set<String>, library: Library) -> [LibraryItem] {
        guard !dataless.isEmpty else { return items }
        return items.map { item in
            item.kind == .document && dataless.contains(library.relativePath(ofFile: item.path) ?? "")
                ? LibraryItem(kind: .placeholder, path: item.path, stamp: item.stamp, documentPath: item.documentPath)
                : item
        }
    }
}

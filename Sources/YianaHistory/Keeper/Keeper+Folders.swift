import Foundation
import YianaFolder
import YianaSystem

extension Keeper {
    /// A look at the folders changed since the last look (``KeeperFolders``): those listed
    /// again, with the folders new below them walked, and whatever the catalog holds in them
    /// looked at; every other folder taken as the last look left it. A command that asks what
    /// went since (`versions list --deleted`, the server's deleted documents) pays for what
    /// changed, not for the library. Without a record of the folders, a whole look
    /// (``lookAtLibrary(now:)``). What tells is the names and their inodes, as the folders
    /// give them: a document whose inode number is the same (rewritten in place, or rarely a
    /// replacement given the number again) is not looked at here, and the next whole look or
    /// watcher pass, which compare size and time too, keeps it. A file renamed in over a name,
    /// as sync programs and the app write, was made while the old one held its number.
    @discardableResult
    public func lookAtChangedFolders(now: Date = Date()) async -> KeeperReport? {
        guard let record = folderRecord.read() else { return await lookAtLibrary(now: now) }
        // A catalog that cannot be read now cannot say what went: the library is looked at whole.
        let scan: LibraryScan?
        do { scan = try changedFolders(record) } catch { return await lookAtLibrary(now: now) }
        guard let scan else { return KeeperReport() }  // no folder changed
        return await look(scan, arrival: Arrival(scan: scan, now: now), now: now)
    }

    /// What a look at the folders changed since `record` sees, as a scan that says what
    /// changed; nil when no folder changed.
    private func changedFolders(_ record: KeeperFolders.Record) throws -> LibraryScan? {
        let root = library.root
        // The folders' times are taken from here: what the look finds holds as of now.
        let listedAt = FileStamp.now()
        let changed = folderRecord.changed(in: record, root: root)
        guard !changed.isEmpty else { return nil }
        var scan = LibraryScan(), folders = record.folders
        scan.listedAt = listedAt
        // What the catalog holds where folders changed and is not there as it was.
        var held: [String: FileStamp] = [:]
        let catalog = catalog()
        // Parents first: a folder new below a changed one is walked whole, once.
        for folder in changed.sorted(by: { $0.count < $1.count }) {
            let url = folder.isEmpty ? root : root.appendingPathComponent(folder)
            guard FileKind.at(url.path) == .folder else {
                // Gone, with all below it: whatever the catalog holds there is looked at.
                folders = folders.filter { $0.key != folder && !$0.key.hasPrefix(folder + "/") }
                held.merge(try catalog.holdingStamps(below: folder)) { old, _ in old }
                continue
            }
            // The files there as the catalog holds them are left out of the listing: what is
            // listed is what is new or changed, what stays in `same` what changed or went.
            var same = try catalog.holdingStamps(namedIn: folder)
            // One that cannot be listed holds nothing, as in a walk, and is tried again next time.
            let piece = try? LibraryScanner.scan(library, only: url, leavingOut: &same)
            for (name, stamp) in same { held[folder.isEmpty ? name : folder + "/" + name] = stamp }
            guard let piece else {
                folders[folder] = -1
                continue
            }
            scan.append(piece)
            folders[folder] = piece.folders[folder] ?? -1
            for (sub, time) in piece.folders where time == -1 && record.folders[sub] == nil {
                guard let below = try? LibraryScanner.scan(library, below: [root.appendingPathComponent(sub)]) else {
                    folders[sub] = -1
                    continue
                }
                scan.append(below)
                folders.merge(below.folders) { _, new in new }
                held.merge(try catalog.holdingStamps(below: sub)) { old, _ in old }
            }
        }
        scan.folders = folders
        scan.items = LibraryScanner.evicted(scan.items, library: library)
        // What differs from what the catalog holds there: new, changed, or gone. (What was
        // left out of the listings is the same.)
        var changes = ScanChanges()
        for item in scan.items {
            guard let path = library.documentPath(of: item) else { continue }
            let was = held.removeValue(forKey: path)
            // An evicted document is not a deleted one, nor a state: never looked at here.
            guard item.kind == .document, was == nil || was != (item.stamp ?? FileStamp(path: item.path)) else { continue }
            changes.items.append(item)
            changes.paths.insert(path)
        }
        changes.paths.formUnion(held.keys)
        scan.changes = changes
        return scan
    }
}

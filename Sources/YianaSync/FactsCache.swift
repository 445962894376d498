import Foundation
import YianaLibrary
import YianaSystem

/// Documents' facts by file, with the stamp they were read at, kept between a watcher's
/// passes: what changed is read again, the rest reused. Beside them, what finding groups
/// needs without looking at every document: the files of each id, and the files that can be
/// in a group or be a stray whatever their id (no id: evicted or damaged; a sync service's
/// name; a clock to question). A pass told what changed classifies only those files, the
/// files of their ids, and the documents a file without an id stands beside.
///
/// Only the files that can be in a group keep their facts (those special files, and the
/// files of an id more than one file has): every other document is its stamp and id, a
/// few hundred bytes, not a kilobyte and more. A file whose id comes to be shared is read
/// again when it is first classified (``candidates(also:)`` names it).
public final class FactsCache: @unchecked Sendable {
    // @unchecked: everything is touched only under `lock`.
    private let lock = NSLock()
    /// Every file (absolute path): the stamp it was read at, its id.
    private var entries: [String: Entry] = [:]
    /// The facts of the files that can be in a group.
    private var facts: [String: DocumentFacts] = [:]
    /// Each id's files (paths as walked).
    private var byID: [UUID: Files] = [:]
    /// Ids with more than one file.
    private var shared: Set<UUID> = []
    /// Files that can be in a group or be a stray whatever their id.
    private var special: Set<String> = []
    /// True once the cache holds every file of a whole scan (and has followed every change since).
    private(set) var whole = false
    /// How many files' facts are kept (for the tests).
    var factsKept: Int {
        lock.lock()
        defer { lock.unlock() }
        return facts.count
    }

    /// Ids as 16 bytes held in place, not as strings on the heap: a first pass reads every
    /// document's facts and frees most of them, and 100,000 small strings kept among them
    /// would keep their pages.
    private struct Entry {
        let stamp: FileStamp?
        let id: UUID?
        /// Read well (a document or a placeholder): a file that could not be read is read
        /// again next time, for an I/O error passes and a damaged file stays rare.
        let reusable: Bool
    }

    private enum Files {
        case one(String)
        case many(Set<String>)
    }

    public init() {}

    /// Follows a whole walk: the files it no longer has forgotten. Returns its items to be
    /// read (``put(_:of:)``): those not read before, changed since, or unreadable last time.
    func keepOnly(_ items: [LibraryItem]) -> [LibraryItem] {
        lock.lock()
        defer { lock.unlock() }
        whole = true
        // A first walk: every item is to be read, handed back as it is (not copied), and the
        // tables made their size at once (not grown by doubling, the old and new both held).
        guard !entries.isEmpty else {
            entries.reserveCapacity(items.count)
            byID.reserveCapacity(items.count)
            return items
        }
        let here = Set(items.lazy.map(\.path))
        for file in entries.keys.filter({ !here.contains($0) }) { remove(file) }
        return items.filter { item in
            guard let entry = entries[item.path], let stamp = item.stamp else { return true }
            return entry.stamp != stamp || !entry.reusable
        }
    }

    /// Forgets the files of documents `gone` (relative paths, whatever their file: a
    /// document or its placeholder).
    func forget(_ gone: Set<String>, root: String) {
        lock.lock()
        defer { lock.unlock() }
        for path in gone {
            for file in Self.files(of: path, root: root) { remove(file) }
        }
    }

    /// Puts in `facts` of `items`, in place of what was known of those files.
    func put(_ facts: [DocumentFacts], of items: [LibraryItem]) {
        lock.lock()
        defer { lock.unlock() }
        for (item, fact) in zip(items, facts) {
            remove(item.path)
            insert(fact, at: item.path, stamp: item.stamp)
        }
    }

    /// Keeps `facts` of files ``candidates(also:)`` named unread: as they are, where the id
    /// read is the one known (what else a file holds now is the next pass's change).
    func fill(_ facts: [DocumentFacts], of items: [LibraryItem]) {
        lock.lock()
        defer { lock.unlock() }
        for (item, fact) in zip(items, facts) {
            if let entry = entries[item.path], entry.id == Self.id(fact) {
                self.facts[item.path] = fact
            } else {
                remove(item.path)
                insert(fact, at: item.path, stamp: item.stamp)
            }
        }
    }

    /// The files that could not be read last time (read again every pass).
    func unreadable() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return special.filter { entries[$0]?.reusable == false }
    }

    /// The folders (absolute) of the files without an id whose names carry marks, with the
    /// names they stand for: such a file joins the group of a document of its folder whose
    /// name without marks is the same.
    func markedWithoutID() -> [String: Set<String>] {
        lock.lock()
        defer { lock.unlock() }
        var folders: [String: Set<String>] = [:]
        for file in special {
            guard let fact = facts[file], fact.documentID == nil, !fact.name.marks.isEmpty else { continue }
            folders[(file as NSString).deletingLastPathComponent, default: []].insert(fact.name.original)
        }
        return folders
    }

    /// The facts a classification needs: the special files, every file of an id more than
    /// one file has, `also` (files beside ``markedWithoutID()``'s), and every other file of
    /// the ids these have; with the files among them whose facts are not kept (to be read,
    /// then ``put(_:of:)``), and how many files there are.
    func candidates(also: [String]) -> (facts: [DocumentFacts], unread: [String], count: Int) {
        lock.lock()
        defer { lock.unlock() }
        var files = special.union(also)
        for id in shared { files.formUnion(paths(of: id)) }
        for file in Array(files) {
            if let id = entries[file]?.id { files.formUnion(paths(of: id)) }
        }
        var found: [DocumentFacts] = [], unread: [String] = []
        for file in files where entries[file] != nil {
            if let fact = facts[file] { found.append(fact) } else { unread.append(file) }
        }
        return (found, unread.sorted(), entries.count)
    }

    /// True when a file stands for the document at `path` (relative).
    func holds(_ path: String, root: String) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return Self.files(of: path, root: root).contains { entries[$0] != nil }
    }

    /// The files that can stand for the document at `path` (relative): itself and its placeholders.
    private static func files(of path: String, root: String) -> [String] {
        let file = root + "/" + path
        let folder = (file as NSString).deletingLastPathComponent
        return [file] + PlaceholderName.stubNames(for: (file as NSString).lastPathComponent).map { folder + "/" + $0 }
    }

    private static func id(_ fact: DocumentFacts) -> UUID? {
        fact.documentID.flatMap(UUID.init(uuidString:))
    }

    private func paths(of id: UUID) -> Set<String> {
        switch byID[id] {
        case .one(let file)?: [file]
        case .many(let files)?: files
        case nil: []
        }
    }

    private func insert(_ fact: DocumentFacts, at file: String, stamp: FileStamp?) {
        let id = Self.id(fact)
        entries[file] = Entry(stamp: stamp, id: id, reusable: fact.state == .document || fact.state == .notDownloaded)
        var keep = false
        if let id {
            switch byID.removeValue(forKey: id) {
            case nil: byID[id] = .one(file)
            case .one(let other)?:
                byID[id] = other == file ? .one(file) : .many([other, file])
                if other != file {
                    shared.insert(id)
                    keep = true
                }
            case .many(var files)?:
                files.insert(file)
                byID[id] = .many(files)
                keep = true
            }
        }
        // A clock to question: modified in the future (it may stop being so), or before it was created.
        let skewed = fact.modified.map { modified in modified > Date().addingTimeInterval(300) || fact.created.map { modified < $0.addingTimeInterval(-1) } == true } == true
        if id == nil || fact.name.isSyncConflict || skewed {
            special.insert(file)
            keep = true
        }
        if keep { facts[file] = fact }
    }

    private func remove(_ file: String) {
        guard let old = entries.removeValue(forKey: file) else { return }
        special.remove(file)
        facts[file] = nil
        guard let id = old.id else { return }
        switch byID.removeValue(forKey: id) {
        case .one(let other)? where other != file: byID[id] = .one(other)
        case .many(var files)?:
            files.remove(file)
            if files.count == 1, let last = files.first {
                byID[id] = .one(last)
                shared.remove(id)
                // Alone again: its facts are not needed unless it can be in a group by itself.
                if !special.contains(last) { facts[last] = nil }
            } else {
                byID[id] = .many(files)
            }
        default: break
        }
    }
}

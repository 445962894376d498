import Foundation
import YianaLibrary
import YianaSystem

/// Documents' facts by file, with the stamp they were read at, kept between a watcher's
/// passes: what changed is read again, the rest reused. Beside them, what finding groups
/// needs without looking at every document: the files of each id, and the files that can be
/// in a group or be a stray whatever their id (no id: evicted or damaged; a sync service's
/// name; a clock to question). A pass told what changed classifies only those files, the
/// files of their ids, and the documents a file without an id stands beside.
public final class FactsCache: @unchecked Sendable {
    // @unchecked: everything is touched only under `lock`.
    private let lock = NSLock()
    private var entries: [String: (stamp: FileStamp?, facts: DocumentFacts)] = [:]
    /// Each id's files (paths as walked).
    private var byID: [String: Files] = [:]
    /// Ids with more than one file.
    private var shared: Set<String> = []
    /// Files that can be in a group or be a stray whatever their id.
    private var special: Set<String> = []
    /// True once the cache holds every file of a whole scan (and has followed every change since).
    private(set) var whole = false

    private enum Files {
        case one(String)
        case many(Set<String>)
    }

    public init() {}

    /// The facts read for `item` at its stamp, if any.
    func facts(of item: LibraryItem) -> DocumentFacts? {
        guard let stamp = item.stamp else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[item.path], entry.stamp == stamp, entry.facts.url == item.url, Self.reusable(entry.facts) else { return nil }
        return entry.facts
    }

    /// A file that could not be read is read again next time: an I/O error passes, and a
    /// damaged file stays rare.
    private static func reusable(_ facts: DocumentFacts) -> Bool {
        facts.state == .document || facts.state == .notDownloaded
    }

    /// Holds exactly `facts` of `items` (a whole scan's).
    func replace(_ facts: [DocumentFacts], of items: [LibraryItem]) {
        lock.lock()
        defer { lock.unlock() }
        entries = [:]
        byID = [:]
        shared = []
        special = []
        for (item, fact) in zip(items, facts) { insert(fact, at: item.path, stamp: item.stamp) }
        whole = true
    }

    /// Follows a scan's changes: the files of documents `gone` (relative paths, whatever
    /// their file: a document or its placeholder) forgotten, `facts` of `items` put in.
    func update(removing gone: Set<String>, root: String, _ facts: [DocumentFacts], of items: [LibraryItem]) {
        lock.lock()
        defer { lock.unlock() }
        for path in gone {
            for file in Self.files(of: path, root: root) { remove(file) }
        }
        for (item, fact) in zip(items, facts) {
            remove(item.path)
            insert(fact, at: item.path, stamp: item.stamp)
        }
    }

    /// The files that could not be read last time (read again every pass).
    func unreadable() -> [String] {
        lock.lock()
        defer { lock.unlock() }
        return special.filter { entries[$0].map { !Self.reusable($0.facts) } ?? false }
    }

    /// The folders (absolute) of the files without an id whose names carry marks: such a file
    /// joins the group of any document of its folder whose name without marks is the same.
    func markedWithoutID() -> Set<String> {
        lock.lock()
        defer { lock.unlock() }
        return Set(special.compactMap { file in
            guard let fact = entries[file]?.facts, fact.documentID == nil, !fact.name.marks.isEmpty else { return nil }
            return (file as NSString).deletingLastPathComponent
        })
    }

    /// The facts a classification needs: the special files, every file of an id more than
    /// one file has, `also` (the files of the folders ``markedWithoutID()`` names), and every
    /// other file of the ids these have; with how many files there are.
    func candidates(also: [String]) -> (facts: [DocumentFacts], count: Int) {
        lock.lock()
        defer { lock.unlock() }
        var files = special.union(also)
        for id in shared { files.formUnion(paths(of: id)) }
        for file in Array(files) {
            if let id = entries[file]?.facts.documentID { files.formUnion(paths(of: id)) }
        }
        return (files.compactMap { entries[$0]?.facts }.sorted { $0.path < $1.path }, entries.count)
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

    private func paths(of id: String) -> Set<String> {
        switch byID[id] {
        case .one(let file)?: [file]
        case .many(let files)?: files
        case nil: []
        }
    }

    private func insert(_ fact: DocumentFacts, at file: String, stamp: FileStamp?) {
        entries[file] = (stamp, fact)
        if let id = fact.documentID {
            switch byID.removeValue(forKey: id) {
            case nil: byID[id] = .one(file)
            case .one(let other)?:
                byID[id] = other == file ? .one(file) : .many([other, file])
                if other != file { shared.insert(id) }
            case .many(var files)?:
                files.insert(file)
                byID[id] = .many(files)
            }
        }
        // A clock to question: modified in the future (it may stop being so), or before it was created.
        let skewed = fact.modified.map { modified in modified > Date().addingTimeInterval(300) || fact.created.map { modified < $0.addingTimeInterval(-1) } == true } == true
        if fact.documentID == nil || fact.name.isSyncConflict || skewed { special.insert(file) }
    }

    private func remove(_ file: String) {
        guard let old = entries.removeValue(forKey: file) else { return }
        special.remove(file)
        guard let id = old.facts.documentID else { return }
        switch byID.removeValue(forKey: id) {
        case .one(let other)? where other != file: byID[id] = .one(other)
        case .many(var files)?:
            files.remove(file)
            if files.count == 1 {
                byID[id] = .one(files.first!)
                shared.remove(id)
            } else {
                byID[id] = .many(files)
            }
        default: break
        }
    }
}

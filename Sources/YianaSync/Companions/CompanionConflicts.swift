import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// A companion file with the conflict copies sync programs made of it.
public struct CompanionGroup: Codable, Sendable {
    public struct File: Codable, Sendable {
        public let path: String
        /// `original` (the plain name the app reads), `conflict-copy` or `identical-copy`.
        public let role: ConflictReport.Role
        public let marks: [String]
        public let modified: Date?
    }

    /// The name the app reads, relative to the library.
    public let plainPath: String
    public let kind: CompanionKind
    /// The document's key (title or file name) or letter id; nil for the library's own.
    public let key: String?
    /// The document it belongs to, relative to the library, when one has that file name,
    /// title or id.
    public let document: String?
    /// The plain file first when it exists, then the copies.
    public let files: [File]

    public var needsResolving: Bool { files.contains { $0.role != .original } }
}

/// Finds the conflict copies of companion files in a scan.
public enum CompanionConflicts {
    /// Groups the companions of `scan` by the plain name the app reads; only groups with a
    /// copy are returned.
    public static func detect(_ scan: LibraryScan, library: Library) -> [CompanionGroup] {
        let documents = DocumentKeys(scan: scan)
        var files = scan.companions.filter { !$0.isTemp }
        let plainPaths = Set(files.map(\.path))
        // `Report 2.json` is a copy of `Report.json` only if the document id inside says so;
        // it is read only when no document is named `Report 2` and `Report` is there.
        for index in files.indices where files[index].kind == .addressExtraction && !files[index].isConflictCopy {
            guard let key = files[index].key else { continue }
            let name = ConflictName(fileName: key + ".json")
            guard !name.marks.isEmpty, !documents.isFileName(key) else { continue }
            let folder = (files[index].path as NSString).deletingLastPathComponent
            let candidates = Set([name.original, name.withoutSyncMarks]).filter { $0 != key + ".json" }
            guard candidates.contains(where: { plainPaths.contains((folder as NSString).appendingPathComponent($0)) || documents.isFileName(String($0.dropLast(5))) }) else { continue }
            let id = CompanionContent.documentID(at: library.root.appendingPathComponent(files[index].path))
            if let copy = files[index].copyByContent(documentID: id) { files[index] = copy }
        }
        var groups: [CompanionGroup] = []
        for (plain, members) in Dictionary(grouping: files, by: \.plainPath) where members.contains(where: \.isConflictCopy) {
            let plainBytes = try? Data(contentsOf: library.root.appendingPathComponent(plain))
            let ordered = members.sorted { ($0.isConflictCopy ? 1 : 0, $0.path) < ($1.isConflictCopy ? 1 : 0, $1.path) }
            let grouped = ordered.map { file -> CompanionGroup.File in
                let url = library.root.appendingPathComponent(file.path)
                let modified = (try? Sys.lstat(url.path)).map { Date(timeIntervalSince1970: $0.modifiedSeconds) }
                guard file.isConflictCopy else { return .init(path: file.path, role: .original, marks: [], modified: modified) }
                let identical = plainBytes.map { sameContent($0, url, kind: file.kind) } ?? false
                return .init(path: file.path, role: identical ? .identicalCopy : .conflictCopy, marks: file.marks, modified: modified)
            }
            let kind = members[0].kind, key = members.first { !$0.isConflictCopy }?.key ?? members[0].key
            let document = kind.scope == .document ? key.flatMap(documents.document(named:)) : nil
            groups.append(CompanionGroup(plainPath: plain, kind: kind, key: key, document: document, files: grouped))
        }
        return groups.sorted { $0.plainPath < $1.plainPath }
    }

    /// The files of `groups` a sync program may still be writing: one that does not read
    /// whole and changed just now, or any beside which the program's temporary file stands.
    public static func arriving(_ groups: [CompanionGroup], library: Library, arrival: Arrival) -> [String] {
        groups.flatMap { group in
            group.files.filter { file in
                let url = library.root.appendingPathComponent(file.path)
                let whole = CompanionShape.of(group.kind) == nil || (try? CompanionContent.json(at: url).get()) != nil
                return arrival.stillArriving(url, whole: whole) != nil
            }.map(\.path)
        }
    }

    /// The same bytes, or for JSON the same value (the same keys and values in another order).
    static func sameContent(_ plain: Data, _ url: URL, kind: CompanionKind) -> Bool {
        guard let other = try? Data(contentsOf: url) else { return false }
        if other == plain { return true }
        guard CompanionShape.of(kind) != nil, case .success(let a) = CompanionContent.json(plain),
              case .success(let b) = CompanionContent.json(other) else { return false }
        return a == b
    }
}

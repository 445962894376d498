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
    /// The document it belongs to, relative to the library, when one has that file name.
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
        var files = scan.companions.filter { !$0.file.isTemp }.map(\.file)
        // `Report 2.json` is a copy of `Report.json` only if the document id inside says so.
        for index in files.indices where files[index].kind == .addressExtraction && files[index].plainPath == files[index].path {
            guard let key = files[index].key, !ConflictName(fileName: key + ".json").marks.isEmpty else { continue }
            let id = CompanionContent.documentID(at: library.root.appendingPathComponent(files[index].path))
            if let copy = files[index].copyByContent(documentID: id) { files[index] = copy }
        }
        let stems = Dictionary(scan.items.map { (($0.documentURL.lastPathComponent as NSString).deletingPathExtension, $0.documentPath ?? $0.path) },
                               uniquingKeysWith: { a, _ in a })
        var groups: [CompanionGroup] = []
        for (plain, members) in Dictionary(grouping: files, by: \.plainPath) where members.contains(where: \.isConflictCopy) {
            let plainURL = library.root.appendingPathComponent(plain)
            let plainBytes = try? Data(contentsOf: plainURL)
            let ordered = members.sorted { ($0.isConflictCopy ? 1 : 0, $0.path) < ($1.isConflictCopy ? 1 : 0, $1.path) }
            let grouped = ordered.map { file -> CompanionGroup.File in
                let url = library.root.appendingPathComponent(file.path)
                let modified = (try? Sys.lstat(url.path)).map { Date(timeIntervalSince1970: $0.modifiedSeconds) }
                guard file.isConflictCopy else { return .init(path: file.path, role: .original, marks: [], modified: modified) }
                let identical = plainBytes != nil && sameContent(plainBytes!, url, kind: file.kind)
                return .init(path: file.path, role: identical ? .identicalCopy : .conflictCopy, marks: file.marks, modified: modified)
            }
            let kind = members[0].kind, key = members.first { !$0.isConflictCopy }?.key ?? members[0].key
            let document = kind.scope == .document ? key.flatMap { stems[$0] } : nil
            groups.append(CompanionGroup(plainPath: plain, kind: kind, key: key, document: document, files: grouped))
        }
        return groups.sorted { $0.plainPath < $1.plainPath }
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

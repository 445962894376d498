import Foundation
import YianaSystem

/// Something in a library that stands for a document.
///
/// Held by the hundred thousand (a watcher keeps its last walk): paths only, 80 bytes and two
/// strings a document. Its `URL`s are made when asked for, not kept: a `URL` is
/// nearly 400 bytes of heap on Linux, and nothing a walk does per document needs one.
public struct LibraryItem: Sendable, Equatable {
    public static func == (a: LibraryItem, b: LibraryItem) -> Bool {
        a.kind == b.kind && a.path == b.path && a.documentFilePath == b.documentFilePath  // the same file, whenever it was looked at
    }

    public enum Kind: Sendable, Equatable {
        /// A `.yianazip` file (also under a name a sync service mangled, `X.yianazip..path1`).
        case document
        /// An evicted iCloud stub (`.Name.yianazip.icloud`); the document is in the cloud.
        case placeholder
    }

    // (In this order: the stamp's and the kind's one byte each last, 80 bytes in an array, not 88.)
    /// The file on disk (the stub, for a placeholder), absolute: walks sort and compare by it.
    public let path: String
    /// A placeholder's document (absolute); nil when that is the file itself.
    private let otherDocumentFile: String?
    /// `documentURL` relative to the library, as the walk built it (nil when not known:
    /// ``Library/relativePath(of:)`` tells).
    public let documentPath: String?
    /// The file's size, time and inode as the walk found them (nil when not known).
    public let stamp: FileStamp?
    public let kind: Kind

    /// The file on disk (the stub, for a placeholder).
    public var url: URL { URL(fileURLWithPath: path, isDirectory: false) }
    /// Where the document lives or will live once downloaded: `Folder/Name.yianazip`.
    public var documentURL: URL { otherDocumentFile.map { URL(fileURLWithPath: $0, isDirectory: false) } ?? url }
    /// `documentURL`'s path.
    public var documentFilePath: String { otherDocumentFile ?? path }
    /// The file's name (the stub's, for a placeholder).
    public var name: String { Self.lastComponent(of: path) }
    /// The document's file name: `Name.yianazip`.
    public var documentName: String { Self.lastComponent(of: documentFilePath) }

    public init(kind: Kind, url: URL, documentURL: URL, stamp: FileStamp? = nil, documentPath: String? = nil, path: String? = nil) {
        let path = path ?? url.path
        let documentFile = documentURL.path
        self.init(kind: kind, path: path, documentFile: documentFile == path ? nil : documentFile, stamp: stamp, documentPath: documentPath)
    }

    /// An item of a walk, by its paths (absolute): `documentFile` only when the document is
    /// not the file itself (a placeholder's).
    public init(kind: Kind, path: String, documentFile: String? = nil, stamp: FileStamp? = nil, documentPath: String? = nil) {
        self.kind = kind
        self.path = path
        self.otherDocumentFile = documentFile
        self.stamp = stamp
        self.documentPath = documentPath
    }

    /// `items`, each with the strings of the item of `earlier` at the same path where they
    /// are the same bytes: a folder listed again holds its unchanged documents' paths once.
    static func sharingStrings(_ items: [LibraryItem], with earlier: [LibraryItem]) -> [LibraryItem] {
        guard !earlier.isEmpty else { return items }
        let byPath = Dictionary(earlier.map { ($0.path, $0) }, uniquingKeysWith: { $1 })
        func same(_ a: String?, _ b: String?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case let (a?, b?): a.utf8.elementsEqual(b.utf8)
            default: false
            }
        }
        return items.map { item in
            guard let old = byPath[item.path], same(old.path, item.path) else { return item }
            return LibraryItem(kind: item.kind, path: old.path,
                               documentFile: same(old.otherDocumentFile, item.otherDocumentFile) ? old.otherDocumentFile : item.otherDocumentFile,
                               stamp: item.stamp,
                               documentPath: same(old.documentPath, item.documentPath) ? old.documentPath : item.documentPath)
        }
    }

    /// The last component of `path` (all of it without a slash), cut by its bytes.
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}

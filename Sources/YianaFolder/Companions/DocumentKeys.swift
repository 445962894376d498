import Foundation
import YianaArchive

/// The documents of one scan by the names a companion may call them: the file name without
/// `.yianazip`, the title (the app keys address files by it), or the id. Titles are read
/// once, and only when a key is not a file name. For one thread at a time.
public final class DocumentKeys {
    private let items: [LibraryItem]

    public init(scan: LibraryScan) {
        items = scan.items
    }

    /// Made on the first question: most passes ask none.
    private lazy var byFileName: [String: String] = Dictionary(
        items.map { (($0.documentName as NSString).deletingPathExtension, $0.documentPath ?? $0.path) },
        uniquingKeysWith: { first, _ in first })

    /// True when a document's file name (without `.yianazip`) is `key`: no file is read.
    public func isFileName(_ key: String) -> Bool { byFileName[key] != nil }

    /// The document (relative to the library) `key` names, if any.
    public func document(named key: String) -> String? {
        byFileName[key] ?? byTitleAndID[key]
    }

    private lazy var byTitleAndID: [String: String] = {
        var keys: [String: String] = [:]
        for item in items where item.kind == .document {
            guard let metadata = try? DocumentReader(path: item.path).metadata() else { continue }
            keys[metadata.title] = keys[metadata.title] ?? item.documentPath ?? item.path
            keys[metadata.id.uuidString] = item.documentPath ?? item.path
        }
        return keys
    }()
}

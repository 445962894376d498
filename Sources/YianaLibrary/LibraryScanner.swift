import Foundation

/// Something in a library that stands for a document.
public struct LibraryItem: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// A `.yianazip` file.
        case document
        /// An evicted iCloud stub (`.Name.yianazip.icloud`); the document is in the cloud.
        case placeholder
    }

    public let kind: Kind
    /// The file on disk (the stub, for a placeholder).
    public let url: URL
    /// Where the document lives or will live once downloaded: `Folder/Name.yianazip`.
    public let documentURL: URL

    public init(kind: Kind, url: URL, documentURL: URL) {
        self.kind = kind
        self.url = url
        self.documentURL = documentURL
    }
}

/// Lists a library's documents and placeholders, skipping hidden files and folders
/// (`.ocr_results/`, `.yiana/`, temporary and lock files) without descending into them.
public enum LibraryScanner {
    /// Every document and placeholder below `folder`, in a stable order.
    /// - Throws: when `folder` itself cannot be listed; unreadable sub-folders are skipped.
    public static func scan(_ folder: URL) throws -> [LibraryItem] {
        var items: [LibraryItem] = []
        try walk(folder, into: &items, isRoot: true)
        // Files evicted the macOS 14 way keep their names: the library's record tells them.
        let dataless = DatalessFiles.paths(in: folder)
        if !dataless.isEmpty {
            let root = folder.standardizedFileURL.path
            items = items.map { item in
                let relative = String(item.url.standardizedFileURL.path.dropFirst(root.count + 1))
                return item.kind == .document && dataless.contains(relative)
                    ? LibraryItem(kind: .placeholder, url: item.url, documentURL: item.documentURL) : item
            }
        }
        return items.sorted { $0.url.path < $1.url.path }
    }

    private static func walk(_ folder: URL, into items: inout [LibraryItem], isRoot: Bool) throws {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        } catch {
            if isRoot { throw error }
            return
        }
        for name in names {
            let url = folder.appendingPathComponent(name)
            if name.hasPrefix(".") {
                if let original = PlaceholderName.documentName(forStub: name) {
                    items.append(LibraryItem(kind: .placeholder, url: url, documentURL: folder.appendingPathComponent(original)))
                }
                continue
            }
            var st = stat()
            guard lstat(url.path, &st) == 0 else { continue }
            switch st.st_mode & S_IFMT {
            case S_IFDIR:
                try walk(url, into: &items, isRoot: false)
            case S_IFREG where url.pathExtension.lowercased() == Library.documentExtension:
                items.append(LibraryItem(kind: .document, url: url, documentURL: url))
            default:
                continue  // symlinks are not followed: they could loop or leave the library
            }
        }
    }
}

/// The names iCloud gives evicted documents' stubs.
public enum PlaceholderName {
    /// `Name.yianazip` for `.Name.yianazip.icloud` or the older `.Name.yianazip-tef.icloud`.
    public static func documentName(forStub stub: String) -> String? {
        guard stub.hasPrefix("."), stub.hasSuffix(".icloud") else { return nil }
        var inner = String(stub.dropFirst().dropLast(".icloud".count))
        if inner.hasSuffix("-tef") { inner.removeLast(4) }
        guard inner.lowercased().hasSuffix(".\(Library.documentExtension)"), inner.count > Library.documentExtension.count + 1 else {
            return nil
        }
        return inner
    }

    /// The stub names that stand for `documentName` (current, then the older form).
    public static func stubNames(for documentName: String) -> [String] {
        [".\(documentName).icloud", ".\(documentName)-tef.icloud"]
    }
}

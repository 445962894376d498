import Foundation
import YianaLibrary
import YianaSystem

/// The documents a command was given: each argument a document (by path or name) or a
/// folder of the library, or with `all` every document.
enum LibrarySelection {
    /// What the arguments select.
    struct Selection {
        /// The items named (a folder's and, with `all`, the library's by one scan).
        var items: [LibraryItem] = []
        /// The arguments that name nothing.
        var missing: [String] = []
        /// Which of the scanned documents a sync program is still writing.
        var arrival: Arrival?
        /// True when every item was named one by one (no folder, not `all`).
        var named = true
    }

    static func items(_ arguments: [String], all: Bool, in library: Library, settle: Double) throws -> Selection {
        var items: [LibraryItem] = []
        var missing: [String] = []
        var folders: [URL] = []
        for argument in arguments {
            let url = URL(fileURLWithPath: argument, relativeTo: library.root).standardizedFileURL
            if FileKind.at(url.path) == .folder, library.relativePath(of: url) != nil || url == library.root.standardizedFileURL {
                folders.append(url)
                continue
            }
            switch library.locate(argument) {
            case .document(let url): items.append(LibraryItem(kind: .document, url: url, documentURL: url))
            case .placeholder(let stub, let document): items.append(LibraryItem(kind: .placeholder, url: stub, documentURL: document))
            case .notFound: missing.append(argument)
            }
        }
        var arrival: Arrival?
        if all || !folders.isEmpty {
            let scan = try LibraryScanner.scan(library, below: folders)
            items += scan.items
            arrival = Arrival(scan: scan, window: settle)
        }
        return Selection(items: items, missing: missing, arrival: arrival, named: !all && folders.isEmpty)
    }
}

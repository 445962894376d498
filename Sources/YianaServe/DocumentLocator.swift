import Foundation
import Hummingbird
import YianaLibrary
import YianaSystem

/// The one way a path in a request reaches the file system: a relative path of a document the
/// library's scanner lists, component by component (no `..`, no `.`, no empty or hidden
/// component, no absolute path), to a regular file (a link is never followed). Anything else is
/// a 404 that names nothing of the file system.
enum DocumentLocator {
    static func document(_ path: String?, in library: Library) throws -> (url: URL, path: String) {
        let (url, path) = try validated(path, in: library)
        guard FileKind.at(url.path) == .regular, library.relativePath(of: url) == path else { throw notFound(path) }
        return (url, path)
    }

    /// A document evicted to the cloud: its name checked the same way, only its placeholder
    /// (an iCloud stub beside it) there.
    static func evicted(_ path: String?, in library: Library) throws -> (url: URL, path: String) {
        let (url, path) = try validated(path, in: library)
        guard FileKind.at(url.path) == .missing, let stub = Placeholder.existingStub(for: url), FileKind.at(stub.path) == .regular else { throw notFound(path) }
        return (url, path)
    }

    /// The document's place in the library, every component checked, every folder on the way real.
    private static func validated(_ path: String?, in library: Library) throws -> (url: URL, path: String) {
        guard let path, !path.isEmpty, path.utf8.count <= 4096, !path.hasPrefix("/"), !path.contains("\0") else { throw notFound(path) }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.hasPrefix(".") }),
              LibraryScanner.documentName(of: String(components.last!)) != nil else { throw notFound(path) }
        // Every folder on the way must be a real folder, not a link out of the library.
        var folder = library.root
        for component in components.dropLast() {
            folder = folder.appendingPathComponent(String(component))
            guard FileKind.at(folder.path) == .folder else { throw notFound(path) }
        }
        return (library.root.appendingPathComponent(path), path)
    }

    static func notFound(_ path: String?) -> HTTPError {
        HTTPError(.notFound, message: "No document \(String((path ?? "").prefix(200)).debugDescription) in this library.")
    }
}

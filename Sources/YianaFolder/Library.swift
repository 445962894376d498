import Foundation

/// A folder tree of `.yianazip` documents, synced by iCloud Drive or another service.
public struct Library: Sendable {
    /// The library's root folder, absolute and without symlinks.
    public let root: URL
    /// `root.path`, kept: relative paths are computed for every document of every walk.
    private let rootPath: String

    /// The file extension of documents.
    public static let documentExtension = "yianazip"
    private static let documentSuffix = Array(".\(documentExtension)".utf8)

    /// True when `name` is something followed by `.yianazip` exactly (by its bytes: a test
    /// that walks and scans make for every file).
    static func endsInDocumentExtension(_ name: String) -> Bool {
        name.utf8.count > documentSuffix.count && name.utf8.suffix(documentSuffix.count).elementsEqual(documentSuffix)
    }
    /// The hidden folder at the root where the toolkit keeps its state (version store, sync).
    public static let stateFolderName = ".yiana"
    /// The environment variable naming the default library.
    public static let environmentVariable = "YIANA_LIBRARY"

    /// Opens the library at `root`.
    /// - Throws: ``LibraryError`` when `root` is not an existing folder.
    public init(root: URL) throws {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else {
            throw LibraryError.noSuchLibrary(root.path)
        }
        guard isDirectory.boolValue else { throw LibraryError.notAFolder(root.path) }
        self.root = URL(fileURLWithPath: root.standardizedFileURL.resolvingSymlinksInPath().path, isDirectory: true)
        rootPath = self.root.path
    }

    /// The library a command works on: `--library DIR`, else `$YIANA_LIBRARY`, else the
    /// current folder.
    /// - Throws: ``LibraryError`` when the chosen folder does not exist.
    public static func resolve(explicit: String?, environment: [String: String] = ProcessInfo.processInfo.environment,
                               currentDirectory: String = FileManager.default.currentDirectoryPath) throws -> Library {
        let chosen = explicit ?? environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 } ?? currentDirectory
        return try Library(root: URL(fileURLWithPath: chosen, relativeTo: URL(fileURLWithPath: currentDirectory)).absoluteURL)
    }

    /// The file at `relative` (a path below the root, `/`-separated) as a URL put together as
    /// text: `appendingPathComponent` asks the disk whether each part is a folder.
    public func fileURL(_ relative: String) -> URL {
        let parts = relative.split(separator: "/").joined(separator: "/")
        return URL(fileURLWithPath: rootPath == "/" ? "/" + parts : rootPath + "/" + parts, isDirectory: false)
    }

    /// The path of `url` relative to the root, or nil if it lies outside the library.
    public func relativePath(of url: URL) -> String? {
        relativePath(ofFile: url.path)
    }

    /// Where `item`'s document is, relative to the root, or nil if it lies outside the library.
    public func documentPath(of item: LibraryItem) -> String? {
        item.documentPath ?? relativePath(ofFile: item.documentFilePath)
    }

    /// The path of the file at `path` (absolute) relative to the root, or nil if it lies
    /// outside the library.
    public func relativePath(ofFile path: String) -> String? {
        // The common case, a plain path below the root, by its characters; anything with
        // `.`, `..` or doubled slashes is standardized first.
        if path.hasPrefix(rootPath), Self.isPlain(path) {
            if path.count == rootPath.count { return "" }
            let rest = path.dropFirst(rootPath.count)
            if rootPath == "/" { return String(rest) }
            if rest.first == "/" { return String(rest.dropFirst()) }
        }
        let rootComponents = root.pathComponents
        let components = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        guard components.count >= rootComponents.count, Array(components.prefix(rootComponents.count)) == rootComponents else {
            return nil
        }
        return components.dropFirst(rootComponents.count).joined(separator: "/")
    }

    /// True when `path` has no `.` or `..` component and no doubled slash (no "/." nor "//").
    private static func isPlain(_ path: String) -> Bool {
        var previous: UInt8 = 0
        for byte in path.utf8 {
            if previous == UInt8(ascii: "/"), byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") { return false }
            previous = byte
        }
        return true
    }

    /// The folder `relative` below the root.
    /// - Throws: ``LibraryError/outsideLibrary(_:)`` for absolute paths and `..`, which would
    ///   put documents outside the library.
    public func folder(_ relative: String?) throws -> URL {
        guard let relative, !relative.isEmpty, relative != "." else { return root }
        let parts = relative.split(separator: "/").map(String.init)
        guard !relative.hasPrefix("/"), !parts.contains(".."), !parts.contains(where: { $0.hasPrefix(".") && $0 != "." }) else {
            throw LibraryError.outsideLibrary(relative)
        }
        return parts.filter { $0 != "." }.reduce(root) { $0.appendingPathComponent($1, isDirectory: true) }
    }
}

/// Problems with the library folder itself.
public enum LibraryError: Error, Sendable, Equatable, CustomStringConvertible {
    case noSuchLibrary(String)
    case notAFolder(String)
    case outsideLibrary(String)

    public var description: String {
        switch self {
        case .noSuchLibrary(let path):
            "library folder \(path) does not exist; pass --library DIR or set YIANA_LIBRARY."
        case .notAFolder(let path):
            "\(path) is not a folder; a library is a folder of .yianazip documents."
        case .outsideLibrary(let path):
            "\(path) is not a folder inside the library (absolute paths, \"..\" and hidden folders are not allowed)."
        }
    }
}

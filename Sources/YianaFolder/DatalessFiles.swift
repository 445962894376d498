import Foundation

/// Files evicted the macOS 14 way: still at their path with their full size, but without
/// data (`dataless.json` in the library's ``LocalState``, path → size: eviction is a
/// matter of one device). Reading one would block on a download, so
/// every command treats it as not downloaded, like a stub.
///
/// It lives here, not beside the cloud code that writes it (YianaSync), because the library
/// scanner, verify and repair must tell such a file from a damaged one.
public struct DatalessFiles: Codable, Sendable {
    public var sizes: [String: UInt64] = [:]

    public init() {}

    public static func file(_ library: Library) -> StateFile<DatalessFiles> {
        LocalState(library: library).stateFile("dataless.json")
    }

    /// The dataless paths of `library` (relative to its root).
    public static func paths(in library: Library) -> Set<String> {
        Set(file(library).load()?.sizes.keys ?? [:].keys)
    }
}

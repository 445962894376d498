import Foundation

/// Files evicted the macOS 14 way: still at their path with their full size, but without
/// data (`.yiana/dataless.json`, path → size). Reading one would block on a download, so
/// every command treats it as not downloaded, like a stub.
public struct DatalessFiles: Codable, Sendable {
    public var sizes: [String: UInt64] = [:]

    public init() {}

    public static func file(_ root: URL) -> StateFile<DatalessFiles> {
        StateFile(url: root.appendingPathComponent(Library.stateFolderName).appendingPathComponent("dataless.json"))
    }

    /// The dataless paths of the library at `root` (relative to it).
    public static func paths(in root: URL) -> Set<String> {
        Set(file(root).load()?.sizes.keys ?? [:].keys)
    }
}

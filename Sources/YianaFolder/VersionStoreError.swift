import Foundation

/// Problems with the version store.
public enum VersionStoreError: Error, Equatable, CustomStringConvertible {
    case unreadable(String, String)
    case unwritable(String, String)
    case noSuchVersion(String)
    case ambiguousVersion(String, Int)
    case missingObject(String)
    case damagedObject(String)
    case nothingToKeepBy

    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path): cannot be read (\(reason))."
        case .unwritable(let path, let reason): "\(path): cannot be written (\(reason)); nothing was changed."
        case .noSuchVersion(let id): "no kept version \(id) of this document; `yiana versions list DOC` shows them."
        case .ambiguousVersion(let id, let count): "\(id) matches \(count) versions; give more of its characters."
        case .missingObject(let id): "the bytes of version \(id) are missing from the store (.yiana/versions/objects); another device may not have synced them yet."
        case .damagedObject(let id): "the kept bytes of version \(id) no longer match their SHA-256 (a program rewrote the document in place while it was linked); it is not offered. `yiana versions list DOC` shows the others."
        case .nothingToKeepBy: "say what to keep: --keep-days N and/or --keep-last N."
        }
    }
}

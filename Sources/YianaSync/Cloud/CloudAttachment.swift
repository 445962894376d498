import Foundation
import YianaLibrary

/// Which cloud store a library is attached to, and as which device (`cloud.json` in this
/// machine's ``LocalState``: attaching is a matter of one device).
public struct CloudAttachment: Codable, Sendable, Equatable {
    public let store: String
    public let device: String

    static func file(_ library: Library) -> StateFile<CloudAttachment> {
        LocalState(library: library).stateFile("cloud.json")
    }

    /// The library's attachment.
    /// - Throws: ``CloudError/notAttached(_:)`` when there is none.
    public static func load(_ library: Library) throws -> CloudAttachment {
        guard let attachment = file(library).load() else { throw CloudError.notAttached(library.root.path) }
        return attachment
    }

    /// Attaches `library` to the store in `store` (created if needed) as `device`.
    @discardableResult
    public static func attach(_ library: Library, store: URL, device: String) throws -> CloudAttachment {
        let cloud = try CloudStore(root: store)
        let attachment = CloudAttachment(store: cloud.root.path, device: device)
        try file(library).update(initial: attachment) { $0 = attachment }
        return attachment
    }

    public func cloud() throws -> CloudStore { try CloudStore(root: URL(fileURLWithPath: store)) }
}

/// What this device last agreed with the cloud about (`sync-state.json` in its ``LocalState``).
public struct SyncState: Codable, Sendable {
    /// For each document path, the cloud version (SHA-256) this device last had in sync.
    public var synced: [String: String] = [:]
    /// The size and time of each synced file then, to notice a local change without hashing.
    var files: [String: FileState] = [:]
    public var lastSync: Date?

    public init() {}

    static func file(_ library: Library) -> StateFile<SyncState> {
        LocalState(library: library).stateFile("sync-state.json")
    }
}

/// Problems with the simulated cloud.
public enum CloudError: Error, Equatable, CustomStringConvertible {
    case notAttached(String)
    case notInCloud(String)
    case notADocument(String)
    case offline
    case quotaExceeded
    case transferFailed(String)
    case damagedInCloud(String)
    case needsSync(String)
    case badFaultFile(String)

    public var description: String {
        switch self {
        case .notAttached(let path): "\(path) is not attached to a cloud store; run `yiana cloud init DIR` first."
        case .notInCloud(let path): "\(path) is not in the cloud store."
        case .notADocument(let path): "\(path) is not a downloaded document."
        case .offline: "the cloud cannot be reached (offline)."
        case .quotaExceeded: "the cloud storage quota is exceeded; free some space and try again."
        case .transferFailed(let why): "the transfer failed (\(why))."
        case .damagedInCloud(let path): "the copy of \(path) in the cloud is damaged (its checksum does not match); it was not placed."
        case .needsSync(let path): "\(path) changed here and in the cloud since the last sync; run `yiana sync` first (it keeps both)."
        case .badFaultFile(let path): "\(path): not a readable JSON file of fault settings (offline, flakiness, quotaExceeded, damaged, seed)."
        }
    }

    /// Worth another try after a pause.
    public var isTransient: Bool {
        switch self {
        case .offline, .transferFailed: true
        default: false
        }
    }
}

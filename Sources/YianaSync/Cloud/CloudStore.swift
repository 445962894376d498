import Foundation
import YianaLibrary

/// One change a device made in the cloud.
public struct CloudRecord: Codable, Sendable, Equatable {
    /// The document's path, relative to the library.
    public let path: String
    /// The bytes uploaded; nil for a deletion (a tombstone).
    public let sha256: String?
    public let size: UInt64
    /// The device that made the change.
    public let device: String
    public let at: Date
    /// The versions (by SHA-256) the uploaded bytes were made from: what the uploading
    /// device had last synced of it. Lets another device find the common ancestor of two
    /// edits made apart (a three-way merge). Absent in records from before it existed.
    public var parents: [String]?

    public var isDeletion: Bool { sha256 == nil }

    public init(path: String, sha256: String?, size: UInt64, device: String, at: Date, parents: [String]? = nil) {
        self.path = path
        self.sha256 = sha256
        self.size = size
        self.device = device
        self.at = at
        self.parents = parents
    }
}

/// A simulated cloud: a folder that behaves like iCloud Drive toward the libraries (devices)
/// attached to it. It keeps every version's bytes (by content) and an append-only index of
/// who uploaded or deleted what; a document's newest record is its current state. Writes
/// are atomic (objects are `fsync`ed before being named) and locked.
public struct CloudStore: Sendable {
    public let root: URL

    /// Opens (creating if needed) the store in `root`.
    public init(root: URL) throws {
        self.root = root.standardizedFileURL
        try FileManager.default.createDirectory(at: self.root.appendingPathComponent("objects"), withIntermediateDirectories: true)
    }

    var objects: ObjectStore { ObjectStore(folder: root.appendingPathComponent("objects")) }
    var index: JSONLinesLog<CloudRecord> { JSONLinesLog(url: root.appendingPathComponent("index.jsonl")) }

    /// Where the bytes named `sha256` are.
    public func objectURL(_ sha256: String) -> URL { objects.url(sha256) }

    /// The newest record of every document ever in the cloud (deleted ones as tombstones).
    public func latest() -> [String: CloudRecord] {
        var newest: [String: CloudRecord] = [:]
        for record in index.read() { newest[record.path] = record }
        return newest
    }

    /// Every record of `path`, oldest first.
    public func history(of path: String) -> [CloudRecord] {
        index.read().filter { $0.path == path }
    }

    /// Uploads the file at `file` as the newest version of `path`.
    @discardableResult
    public func upload(_ file: URL, as path: String, device: String, parents: [String] = [], at date: Date = Date()) throws -> CloudRecord {
        let (sha256, size) = try objects.put(file)
        let parents = parents.filter { $0 != sha256 }
        let record = CloudRecord(path: path, sha256: sha256, size: size, device: device, at: date, parents: parents.isEmpty ? nil : parents)
        try index.append(record)
        return record
    }

    /// What each version was made from, by SHA-256, over every upload.
    public func lineage() -> [String: Set<String>] {
        var parents: [String: Set<String>] = [:]
        for record in index.read() {
            guard let sha = record.sha256 else { continue }
            parents[sha, default: []].formUnion(record.parents ?? [])
        }
        return parents
    }

    /// Records that `path` was deleted (its earlier versions stay in the store).
    @discardableResult
    public func delete(_ path: String, device: String, at date: Date = Date()) throws -> CloudRecord {
        let record = CloudRecord(path: path, sha256: nil, size: 0, device: device, at: date)
        try index.append(record)
        return record
    }
}

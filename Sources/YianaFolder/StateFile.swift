import Foundation
import YianaArchive
import YianaSystem

/// A small JSON document of this machine's state (cloud attachment, sync state, …),
/// replaced atomically (temporary file, `fsync`, rename) under a lock.
public struct StateFile<Value: Codable & Sendable>: Sendable {
    public let url: URL
    /// Where an earlier version kept the same file (in the library's `.yiana/`): read until
    /// this file is first written, so nothing is lost on upgrade.
    public let legacy: URL?

    public init(url: URL, legacy: URL? = nil) {
        self.url = url
        self.legacy = legacy
    }

    /// The stored value, or nil if there is none yet (or it cannot be read now).
    public func load() -> Value? {
        (try? read()) ?? nil
    }

    /// The stored value, or nil if there is none yet (or what is there is not one).
    /// - Throws: when a file is there but cannot be read (an I/O error, no memory): never
    ///   taken for no file, which an update would then overwrite with the other records lost.
    private func read() throws -> Value? {
        for candidate in [url] + (legacy.map { [$0] } ?? []) where FileKind.at(candidate.path) != .missing {
            let data: Data
            do { data = try Data(contentsOf: candidate) } catch {
                throw VersionStoreError.unreadable(candidate.path, "\(error.localizedDescription); nothing was changed")
            }
            let decoder = JSONDecoder()
            decoder.dateDecodingStrategy = .internetTime
            return try? decoder.decode(Value.self, from: data)
        }
        return nil
    }

    /// Reads the value (or `initial`), lets `change` edit it, and writes it back, all under
    /// the file's lock so that two processes never overwrite each other's changes.
    @discardableResult
    public func update(initial: Value, _ change: (inout Value) throws -> Void) throws -> Value {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lock = try DocumentLock(document: url.path, mode: .exclusive, timeout: CoordinatedDocument.defaultLockTimeout)
        defer { lock.release() }
        var value = try read() ?? initial
        try change(&value)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .internetTime
        let data = try encoder.encode(value)
        do { try TemporaryFile.replace(url.path, with: data) } catch {
            throw VersionStoreError.unwritable(url.path, error.code.description)
        }
        return value
    }
}

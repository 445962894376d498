import Crypto
import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// Files kept by content: each under the SHA-256 of its bytes (`<folder>/ab/abcdef…`), stored
/// once however often it is put. Used by the version store and the simulated cloud.
public struct ObjectStore: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// Where the bytes named `sha256` are.
    public func url(_ sha256: String) -> URL {
        folder.appendingPathComponent(String(sha256.prefix(2))).appendingPathComponent(sha256)
    }

    public func contains(_ sha256: String) -> Bool {
        FileManager.default.fileExists(atPath: url(sha256).path)
    }

    /// Copies the file at `source` in (hashing as it copies), `fsync`s the copy and names it
    /// by its hash; identical bytes already there are kept as they are.
    /// - Returns: the SHA-256 and size.
    /// - Throws: ``VersionStoreError`` naming the file.
    @discardableResult
    public func put(_ source: URL) throws -> (sha256: String, size: UInt64) {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let input: Int32
        do {
            input = try RegularFile.openForReading(source.path)
        } catch {
            throw VersionStoreError.unreadable(source.path, error.description)
        }
        defer { Sys.close(input) }
        // The hash, and so the name, is known only once every byte is copied: the temporary
        // file starts in the store's folder and is placed in its shard after.
        let temp: TemporaryFile
        do { temp = try TemporaryFile(beside: folder.appendingPathComponent("incoming").path, mode: 0o444) } catch {
            throw VersionStoreError.unwritable(folder.path, error.code.description)
        }
        var hasher = SHA256()
        var size: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n: Int
            do { n = try Sys.read(input, buffer.baseAddress!, buffer.count, path: source.path) } catch {
                throw VersionStoreError.unreadable(source.path, error.code.description)
            }
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(bufferPointer: chunk)
            do { try temp.write(chunk) } catch { throw VersionStoreError.unwritable(temp.path, error.code.description) }
            size += UInt64(n)
        }
        let sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let final = url(sha256)
        do {
            try temp.sync()
            try FileManager.default.createDirectory(at: final.deletingLastPathComponent(), withIntermediateDirectories: true)
            try temp.place(at: final.path, .keepingExisting)
        } catch let error as SystemError {
            throw VersionStoreError.unwritable(final.path, error.code.description)
        }
        return (sha256, size)
    }

    /// Conflict copies of objects a sync program made (rclone bisync copies an object both
    /// devices wrote: `ab/abcd…..path1`): what
    /// ``foldConflictCopies()`` would do with each.
    public func strays() -> [(url: URL, sha256: String?, intact: Bool)] {
        var found: [(URL, String?, Bool)] = []
        for shard in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where shard.count == 2 {
            let shardURL = folder.appendingPathComponent(shard)
            for name in (try? FileManager.default.contentsOfDirectory(atPath: shardURL.path)) ?? [] where !Self.isObjectName(name) {
                let url = shardURL.appendingPathComponent(name)
                let original = ConflictName(fileName: name).original
                guard Self.isObjectName(original) else { continue }
                found.append((url, original, (try? FileHash.sha256(of: url)) == original))
            }
        }
        return found
    }

    /// Folds conflict copies of objects back in: an intact copy (its bytes hash to its
    /// name) becomes the object if the object is missing or damaged, and is removed if the
    /// object is intact; a copy that is not intact is left where it is (``strays()`` lists it).
    /// - Returns: how many copies were folded in.
    @discardableResult
    public func foldConflictCopies() -> Int {
        var folded = 0
        for (copy, sha256, intact) in strays() where intact {
            guard let sha256 else { continue }
            let object = url(sha256)
            do {
                if (try? FileHash.sha256(of: object)) == sha256 {
                    try Sys.unlink(copy.path)
                } else {
                    try Sys.rename(copy.path, object.path)
                }
                try Sys.fsyncDirectory(object.deletingLastPathComponent().path)
            } catch {
                continue  // left where it is: strays() still lists it, and verify reports it
            }
            folded += 1
        }
        return folded
    }

    static func isObjectName(_ name: String) -> Bool {
        name.count == 64 && name.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    /// Deletes the bytes named `sha256`.
    func remove(_ sha256: String) {
        try? FileManager.default.removeItem(at: url(sha256))
    }
}

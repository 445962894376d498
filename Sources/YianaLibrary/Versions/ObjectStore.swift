import Crypto
import Foundation
import YianaArchive
#if canImport(Glibc)
import Glibc
#endif

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
        defer { close(input) }
        let temp = folder.appendingPathComponent(".incoming-\(UUID().uuidString)")
        let output = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o444)
        guard output >= 0 else { throw VersionStoreError.unwritable(temp.path, String(cString: strerror(errno))) }
        var hasher = SHA256()
        var size: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        do {
            while true {
                let n = read(input, buffer.baseAddress, buffer.count)
                if n < 0 { if errno == EINTR { continue }; throw VersionStoreError.unreadable(source.path, String(cString: strerror(errno))) }
                if n == 0 { break }
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                hasher.update(bufferPointer: chunk)
                var written = 0
                while written < n {
                    let w = write(output, chunk.baseAddress! + written, n - written)
                    if w < 0 { if errno == EINTR { continue }; throw VersionStoreError.unwritable(temp.path, String(cString: strerror(errno))) }
                    written += w
                }
                size += UInt64(n)
            }
            guard fsync(output) == 0 else { throw VersionStoreError.unwritable(temp.path, String(cString: strerror(errno))) }
            close(output)
        } catch {
            close(output)
            unlink(temp.path)
            throw error
        }
        let sha256 = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let final = url(sha256)
        try FileManager.default.createDirectory(at: final.deletingLastPathComponent(), withIntermediateDirectories: true)
        if FileManager.default.fileExists(atPath: final.path) {
            unlink(temp.path)
        } else if rename(temp.path, final.path) != 0 {
            let reason = String(cString: strerror(errno))
            unlink(temp.path)
            throw VersionStoreError.unwritable(final.path, reason)
        }
        VersionStore.fsyncFolder(final.deletingLastPathComponent())
        return (sha256, size)
    }

    /// Conflict copies of objects a sync program made (rclone bisync copies an object both
    /// devices wrote: `ab/abcd…..path1`), and leftover `.incoming-` files: what
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
            if (try? FileHash.sha256(of: object)) == sha256 {
                unlink(copy.path)
            } else if rename(copy.path, object.path) != 0 {
                continue
            }
            folded += 1
            VersionStore.fsyncFolder(object.deletingLastPathComponent())
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

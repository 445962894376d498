import Crypto
import Foundation
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
        let input = open(source.path, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw VersionStoreError.unreadable(source.path, String(cString: strerror(errno))) }
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

    /// Deletes the bytes named `sha256`.
    func remove(_ sha256: String) {
        try? FileManager.default.removeItem(at: url(sha256))
    }
}

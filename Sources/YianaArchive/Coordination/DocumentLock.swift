import Foundation
import YianaSystem

/// A cross-process lock on one document: the Linux stand-in for NSFileCoordinator.
///
/// Locks are a matter of one machine, so they live on this machine and never in the synced
/// library: a sync program that deletes, replaces or adds files there cannot release or
/// steal one. Every lock is an open-file-description (OFD) lock on one byte of one file in
/// this user's runtime folder (``LocalFolders/runtime(environment:)``), `documents.lock`;
/// the byte is chosen by a 62-bit hash of the document's real path, so every process
/// derives the same byte for the same document (two documents sharing a byte would only
/// wait for each other). The file is never removed and holds no data.
///
/// OFD locks belong to the open file, not the process, so two threads of one process
/// exclude each other too, and the kernel drops them when a process dies. Coordination
/// covers the processes of this user on this machine; the app on another device is not
/// coordinated with: that is what conflict handling is for.
public final class DocumentLock {
    public enum Mode: Sendable {
        /// Readers: any number at once.
        case shared
        /// Writers: alone.
        case exclusive
    }

    /// The document the lock is for.
    public let documentPath: String
    /// The byte of ``lockFile()`` that stands for the document.
    public let offset: Int64
    private var fd: Int32

    /// Waits up to `timeout` seconds for the lock.
    /// - Throws: ``ArchiveError`` `.lockTimeout` naming the document, or `.system` when the
    ///   runtime folder cannot be used.
    public init(document path: String, mode: Mode, timeout: Double) throws {
        documentPath = path
        offset = Self.offset(for: path)
        let lockPath: String
        do { lockPath = try Self.lockFile().path } catch let error as SystemError { throw ArchiveError(.system(error), path: path) }
        let deadline = Date().addingTimeInterval(timeout)
        var pause = 0.0005
        while true {
            let fd: Int32
            do {
                fd = try Sys.open(lockPath, [.readWrite, .create], mode: 0o600)
            } catch {
                throw ArchiveError(.system(error), path: path)
            }
            var acquired = false
            while true {
                do {
                    if try Sys.lockByte(fd, at: offset, exclusive: mode == .exclusive, path: lockPath) { acquired = true; break }
                } catch {
                    Sys.close(fd)
                    throw ArchiveError(.system(error), path: path)
                }
                if Date() >= deadline { break }
                Sys.sleep(seconds: pause)
                pause = min(pause * 2, 0.05)
            }
            guard acquired else {
                Sys.close(fd)
                throw ArchiveError(.lockTimeout(seconds: timeout), path: path)
            }
            // The file we locked must still be the one the path names (someone may have
            // removed the runtime folder meanwhile); else start over on the new one.
            if let current = try? Sys.stat(lockPath), let mine = try? Sys.fstat(fd, path: lockPath),
               current.fileID == mine.fileID {
                self.fd = fd
                return
            }
            Sys.close(fd)
        }
    }

    deinit {
        release()
    }

    /// Releases the lock (also done on deinit).
    public func release() {
        guard fd >= 0 else { return }
        Sys.close(fd)  // closing the last descriptor of an open file description drops its locks
        fd = -1
    }

    /// The file every lock of this user on this machine is a byte of.
    /// - Throws: ``SystemError`` when the runtime folder cannot be made.
    public static func lockFile() throws -> URL {
        try LocalFolders.runtime().appendingPathComponent("documents.lock")
    }

    /// The byte that stands for the document at `path`: from its real path, so that every
    /// spelling of it (relative, through a symlinked folder) gets the same lock.
    public static func offset(for path: String) -> Int64 {
        Int64(bitPattern: LocalFolders.fnv1a(canonicalPath(path)) & 0x3FFF_FFFF_FFFF_FFFF)
    }

    static func canonicalPath(_ path: String) -> String {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        let folder = url.deletingLastPathComponent().path
        guard let real = Sys.realPath(folder) else { return url.path }
        return (real == "/" ? "" : real) + "/" + url.lastPathComponent
    }
}

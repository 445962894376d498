import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A cross-process lock on one document: the Linux stand-in for NSFileCoordinator.
///
/// The lock is an open-file-description (OFD) lock on a hidden lock file beside the
/// document, `.<name>.lock`. It is not taken on the document itself, because an atomic
/// replace renames a new file over the document and a lock on the old inode would then
/// guard nothing. OFD locks belong to the open file, not the process, so two threads of
/// one process exclude each other too, and the kernel drops them when a process dies.
///
/// The lock file is removed again by the last holder (who checks, holding it exclusively,
/// that nobody else has it); anyone who locked a file that was removed meanwhile notices
/// that the path no longer names their file and starts over. So the library is not littered
/// with lock files, and a crash leaves at most one stale, unlocked one.
public final class DocumentLock {
    public enum Mode: Sendable {
        /// Readers: any number at once.
        case shared
        /// Writers: alone.
        case exclusive
    }

    /// The document the lock is for.
    public let documentPath: String
    let lockPath: String
    private var fd: Int32

    /// Waits up to `timeout` seconds for the lock.
    ///
    /// A shared lock on a document in a folder this user cannot write to is granted without
    /// a lock file: nobody can replace a file in such a folder, so there is nothing to wait for.
    /// - Throws: ``ArchiveError`` `.lockTimeout` naming the document, or `.system`.
    public init(document path: String, mode: Mode, timeout: Double) throws {
        documentPath = path
        lockPath = Self.lockPath(for: path)
        let deadline = Date().addingTimeInterval(timeout)
        var pause: useconds_t = 500
        while true {
            let fd: Int32
            do {
                fd = try Sys.open(lockPath, O_RDWR | O_CREAT, mode: 0o644)
            } catch {
                if mode == .shared, error.errno == EACCES || error.errno == EROFS || error.errno == EPERM {
                    self.fd = -1
                    return
                }
                throw ArchiveError(.system(error), path: path)
            }
            var acquired = false
            while true {
                if Self.setLock(fd, mode == .shared ? F_RDLCK : F_WRLCK) { acquired = true; break }
                if Glibc.errno != EAGAIN && Glibc.errno != EACCES && Glibc.errno != EINTR {
                    let error = Sys.lastError("lock", lockPath)
                    Sys.close(fd)
                    throw ArchiveError(.system(error), path: path)
                }
                if Date() >= deadline { break }
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
            guard acquired else {
                Sys.close(fd)
                throw ArchiveError(.lockTimeout(seconds: timeout), path: path)
            }
            // The file we locked must still be the one the path names; the last holder of
            // an earlier lock may have removed it between our open and our lock.
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

    /// Releases the lock (also done on deinit), removing the lock file if no one else holds it.
    public func release() {
        guard fd >= 0 else { return }
        // Holding the file exclusively proves nobody else holds it: then it can go.
        if Self.setLock(fd, F_WRLCK) {
            _ = unlink(lockPath)
        }
        Sys.close(fd)
        fd = -1
    }

    /// The lock file for a document: hidden, beside it, so every process derives the same one.
    public static func lockPath(for documentPath: String) -> String {
        let url = URL(fileURLWithPath: documentPath)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock").path
    }

    private static let F_OFD_SETLK: Int32 = 37  // <fcntl.h>, Linux; Glibc's Swift module omits it

    private static func setLock(_ fd: Int32, _ type: Int32) -> Bool {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        lock.l_pid = 0  // must be 0 for OFD locks
        return fcntl(fd, F_OFD_SETLK, &lock) == 0
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the file it was about and the C `errno`.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the toolkit was doing, e.g. "open", "fsync".
    public let operation: String
    /// The file or folder concerned.
    public let path: String
    /// The C `errno` value.
    public let errno: Int32

    public init(_ operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(operation) failed for \(path): \(String(cString: strerror(errno)))"
    }

    /// True when the error says the file or folder does not exist.
    public var isNotFound: Bool { errno == ENOENT || errno == ENOTDIR }
}

// Every raw system call of the archive module goes through these helpers, so that
// EINTR, short writes and error reporting are handled in exactly one place.
enum Sys {
    static func lastError(_ operation: String, _ path: String) -> SystemError {
        SystemError(operation, path: path, errno: Glibc.errno)
    }

    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws(SystemError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if Glibc.errno != EINTR { throw lastError("open", path) }
        }
    }

    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    static func fsync(_ fd: Int32, path: String) throws(SystemError) {
        while Glibc.fsync(fd) != 0 {
            if Glibc.errno != EINTR { throw lastError("fsync", path) }
        }
    }

    /// fsyncs a folder so that a rename or link inside it survives a power cut.
    static func fsyncDirectory(_ directory: String) throws(SystemError) {
        let fd = try open(directory, O_RDONLY | O_DIRECTORY)
        defer { close(fd) }
        do { try fsync(fd, path: directory) } catch {
            // Some file systems cannot fsync a folder; they also order metadata themselves.
            if error.errno != EINVAL && error.errno != ENOTSUP { throw error }
        }
    }

    static func fstat(_ fd: Int32, path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        if Glibc.fstat(fd, &st) != 0 { throw lastError("fstat", path) }
        return st
    }

    static func stat(_ path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        if fstatat(AT_FDCWD, path, &st, 0) != 0 { throw lastError("stat", path) }
        return st
    }

    static func lstat(_ path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        if Glibc.lstat(path, &st) != 0 { throw lastError("lstat", path) }
        return st
    }

    /// Reads up to `count` bytes at `offset`; returns fewer only at end of file.
    static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: UInt64, path: String) throws(SystemError) -> Int {
        var done = 0
        while done < count {
            let n = Glibc.pread(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n > 0 { done += n; continue }
            if n == 0 { break }
            if Glibc.errno != EINTR { throw lastError("read", path) }
        }
        return done
    }

    static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: UInt64, path: String) throws(SystemError) {
        var done = 0
        while done < count {
            let n = Glibc.pwrite(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n > 0 { done += n; continue }
            if n == 0 { throw SystemError("write", path: path, errno: EIO) }
            if Glibc.errno != EINTR { throw lastError("write", path) }
        }
    }

    static func writeAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, path: String) throws(SystemError) {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, buffer + done, count - done)
            if n > 0 { done += n; continue }
            if n == 0 { throw SystemError("write", path: path, errno: EIO) }
            if Glibc.errno != EINTR { throw lastError("write", path) }
        }
    }

    static func ftruncate(_ fd: Int32, _ length: UInt64, path: String) throws(SystemError) {
        while Glibc.ftruncate(fd, off_t(length)) != 0 {
            if Glibc.errno != EINTR { throw lastError("truncate", path) }
        }
    }

    static func rename(_ from: String, _ to: String) throws(SystemError) {
        if Glibc.rename(from, to) != 0 { throw lastError("rename", to) }
    }

    /// Creates `to` as a second name of `from`; fails with EEXIST rather than replace.
    static func link(_ from: String, _ to: String) throws(SystemError) {
        if Glibc.link(from, to) != 0 { throw lastError("link", to) }
    }

    static func unlink(_ path: String) throws(SystemError) {
        if Glibc.unlink(path) != 0 { throw lastError("unlink", path) }
    }

    static func fchmod(_ fd: Int32, _ mode: mode_t, path: String) throws(SystemError) {
        if Glibc.fchmod(fd, mode) != 0 { throw lastError("chmod", path) }
    }

    static var processID: Int32 { getpid() }
}

/// `struct stat`, named apart from the function of the same name.
typealias FileStatus = stat

extension FileStatus {
    var isRegularFile: Bool { (st_mode & S_IFMT) == S_IFREG }
    var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
    /// Identity of the file: same device and inode means the same file.
    var fileID: FileID { FileID(device: UInt64(st_dev), inode: UInt64(st_ino)) }
}

/// Which version of a file is at a path: writers always rename a new file into place, so
/// another write gives another inode (and times). A replacing write can require the
/// document to still be the version its caller read (see ``CoordinatedDocument``).
public struct FileIdentity: Sendable, Equatable, CustomStringConvertible {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: timespec
    let changed: timespec

    /// The file at `path` now, or nil when there is none.
    public init?(path: String) {
        guard let st = try? Sys.lstat(path) else { return nil }
        self.init(st)
    }

    /// No file at the path: expecting it, a write creates the document only if no other
    /// process has put one there meanwhile.
    public static let absent = FileIdentity(device: 0, inode: 0, size: -1, modified: timespec(), changed: timespec())

    /// The file at `path` now, or ``absent``.
    public static func current(at path: String) -> FileIdentity {
        FileIdentity(path: path) ?? .absent
    }

    private init(device: UInt64, inode: UInt64, size: Int64, modified: timespec, changed: timespec) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
    }

    init(_ st: FileStatus) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = st.st_mtim
        changed = st.st_ctim
    }

    public static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }

    public var description: String { "inode \(inode), \(size) bytes" }
}

struct FileID: Equatable {
    let device: UInt64
    let inode: UInt64
}

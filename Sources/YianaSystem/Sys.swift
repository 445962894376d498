#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CYiana
import Foundation

/// Flags of ``Sys/open(_:_:mode:)``, named as swift-system's `FileDescriptor.OpenOptions`.
/// Every descriptor is opened close-on-exec.
package struct OpenFlags: OptionSet, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    package static let readOnly = OpenFlags([])
    package static let writeOnly = OpenFlags(rawValue: O_WRONLY)
    package static let readWrite = OpenFlags(rawValue: O_RDWR)
    package static let create = OpenFlags(rawValue: O_CREAT)
    /// With `create`: fail with `EEXIST` rather than open a file that is there.
    package static let exclusive = OpenFlags(rawValue: O_EXCL)
    package static let truncate = OpenFlags(rawValue: O_TRUNC)
    package static let append = OpenFlags(rawValue: O_APPEND)
    /// Fail with `ELOOP` on a symbolic link instead of following it.
    package static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
    /// Never block in `open` (a FIFO with no writer, a device).
    package static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
    package static let noControllingTerminal = OpenFlags(rawValue: O_NOCTTY)
    package static let directory = OpenFlags(rawValue: O_DIRECTORY)
}

/// The toolkit's one system layer: every system call of every module goes through here, so
/// that `EINTR`, short reads and writes, and error reporting (a ``SystemError`` naming the
/// file) are handled in exactly one place. Modules above it never import Glibc.
package enum Sys {
    package static var errno: Int32 { Glibc.errno }

    package static func lastError(_ operation: String, _ path: String) -> SystemError {
        SystemError(operation, path: path, errno: Glibc.errno)
    }

    // MARK: Descriptors

    package static func open(_ path: String, _ flags: OpenFlags, mode: mode_t = 0o644) throws(SystemError) -> Int32 {
        while true {
            let fd = Glibc.open(path, flags.rawValue | O_CLOEXEC, mode)
            if fd >= 0 { return fd }
            if Glibc.errno != EINTR { throw lastError("open", path) }
        }
    }

    package static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Runs `body` with `fd` and closes it after, whatever happens (swift-system's `closeAfter`).
    package static func closeAfter<T, E: Error>(_ fd: Int32, _ body: (Int32) throws(E) -> T) throws(E) -> T {
        defer { close(fd) }
        return try body(fd)
    }

    package static func dup(_ fd: Int32, path: String) throws(SystemError) -> Int32 {
        let copy = fcntl(fd, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else { throw lastError("dup", path) }
        return copy
    }

    /// Clears `O_NONBLOCK` (reads of a regular file never block anyway).
    package static func setBlocking(_ fd: Int32) {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
    }

    package static func fsync(_ fd: Int32, path: String) throws(SystemError) {
        while Glibc.fsync(fd) != 0 {
            if Glibc.errno != EINTR { throw lastError("fsync", path) }
        }
    }

    /// fsyncs a folder so that a rename or link inside it survives a power cut.
    package static func fsyncDirectory(_ directory: String) throws(SystemError) {
        let fd = try open(directory, [.readOnly, .directory])
        defer { close(fd) }
        do { try fsync(fd, path: directory) } catch {
            // Some file systems cannot fsync a folder; they also order metadata themselves.
            if error.code != .invalidArgument && error.code != .notSupported { throw error }
        }
    }

    // MARK: Status

    package static func fstat(_ fd: Int32, path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        if Glibc.fstat(fd, &st) != 0 { throw lastError("fstat", path) }
        return st
    }

    /// Follows symbolic links.
    package static func stat(_ path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        if fstatat(AT_FDCWD, path, &st, 0) != 0 { throw lastError("stat", path) }
        return st
    }

    /// Does not follow a symbolic link: describes the link itself.
    package static func lstat(_ path: String) throws(SystemError) -> FileStatus {
        var st = FileStatus()
        if Glibc.lstat(path, &st) != 0 { throw lastError("lstat", path) }
        return st
    }

    /// Where the symbolic link at `path` points, or nil.
    package static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink(path, &buffer, buffer.count - 1)
        guard length >= 0 else { return nil }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` with every symbolic link and `.`/`..` resolved, or nil.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// True when this process may write to and enter the folder at `path`.
    package static func canWrite(_ path: String) -> Bool {
        access(path, W_OK | X_OK) == 0
    }

    package static var userID: uid_t { getuid() }

    // MARK: Reading and writing

    /// Reads up to `count` bytes at the file position; 0 only at end of file.
    package static func read(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, path: String) throws(SystemError) -> Int {
        while true {
            let n = Glibc.read(fd, buffer, count)
            if n >= 0 { return n }
            if Glibc.errno != EINTR { throw lastError("read", path) }
        }
    }

    /// Reads up to `count` bytes at `offset`; returns fewer only at end of file.
    package static func pread(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, _ offset: UInt64, path: String) throws(SystemError) -> Int {
        var done = 0
        while done < count {
            let n = Glibc.pread(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n > 0 { done += n; continue }
            if n == 0 { break }
            if Glibc.errno != EINTR { throw lastError("read", path) }
        }
        return done
    }

    /// Up to `count` bytes at `offset` as an array (fewer at end of file).
    package static func pread(_ fd: Int32, count: Int, at offset: UInt64, path: String) throws(SystemError) -> [UInt8] {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 16)
        defer { buffer.deallocate() }
        let n = try pread(fd, buffer.baseAddress!, count, offset, path: path)
        return Array(buffer.prefix(n))
    }

    /// Every byte from the file position to the end.
    package static func readToEnd(_ fd: Int32, path: String) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let n = try read(fd, chunk.baseAddress!, chunk.count, path: path)
            if n == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    package static func pwriteAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, _ offset: UInt64, path: String) throws(SystemError) {
        var done = 0
        while done < count {
            let n = Glibc.pwrite(fd, buffer + done, count - done, off_t(offset) + off_t(done))
            if n > 0 { done += n; continue }
            if n == 0 { throw SystemError("write", path: path, code: .ioError) }
            if Glibc.errno != EINTR { throw lastError("write", path) }
        }
    }

    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int, path: String) throws(SystemError) {
        var done = 0
        while done < count {
            let n = Glibc.write(fd, buffer + done, count - done)
            if n > 0 { done += n; continue }
            if n == 0 { throw SystemError("write", path: path, code: .ioError) }
            if Glibc.errno != EINTR { throw lastError("write", path) }
        }
    }

    package static func writeAll(_ fd: Int32, _ bytes: some ContiguousBytes, path: String) throws(SystemError) {
        let result: Result<Void, SystemError> = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress, raw.count > 0 else { return .success(()) }
            return Result { () throws(SystemError) in try writeAll(fd, base, raw.count, path: path) }
        }
        try result.get()
    }

    /// Reserves disk space for the first `length` bytes of the file now (`fallocate`), so a
    /// full disk or quota shows before anything is written, and the writes that follow find
    /// their blocks allocated. Where the file system cannot (or will not) reserve space,
    /// nothing happens: the writes allocate as usual.
    package static func preallocate(_ fd: Int32, _ length: UInt64, path: String) throws(SystemError) {
        while yiana_preallocate(fd, Int64(length)) != 0 {
            switch Glibc.errno {
            case EINTR: continue
            case ENOSPC, EDQUOT, EIO: throw lastError("reserve space", path)
            default: return
            }
        }
    }

    package static func ftruncate(_ fd: Int32, _ length: UInt64, path: String) throws(SystemError) {
        while Glibc.ftruncate(fd, off_t(length)) != 0 {
            if Glibc.errno != EINTR { throw lastError("truncate", path) }
        }
    }

    package static func fchmod(_ fd: Int32, _ mode: mode_t, path: String) throws(SystemError) {
        if Glibc.fchmod(fd, mode) != 0 { throw lastError("chmod", path) }
    }

    /// Starts writing a range of the file back to disk, without waiting (`sync_file_range`);
    /// a hint: failures are ignored, the final `fsync` is what counts.
    package static func startWriteback(_ fd: Int32, offset: UInt64, length: UInt64) {
        _ = yiana_start_writeback(fd, Int64(offset), Int64(length))
    }

    /// True when the `count` bytes at `a` and at `b` are the same (`memcmp`).
    package static func sameBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        memcmp(a, b, count) == 0
    }

    // MARK: Names

    package static func rename(_ from: String, _ to: String) throws(SystemError) {
        if Glibc.rename(from, to) != 0 { throw lastError("rename", to) }
    }

    /// Creates `to` as a second name of `from`; fails with EEXIST rather than replace.
    package static func link(_ from: String, _ to: String) throws(SystemError) {
        if Glibc.link(from, to) != 0 { throw lastError("link", to) }
    }

    package static func unlink(_ path: String) throws(SystemError) {
        if Glibc.unlink(path) != 0 { throw lastError("remove", path) }
    }

    /// Removes the file if it is there; for cleaning up after a failure, where a second
    /// error would only hide the first.
    package static func removeIfPresent(_ path: String) {
        _ = Glibc.unlink(path)
    }

    /// Makes the empty file open as `destination` share the data blocks of the file open as
    /// `source` (a reflink: `FICLONE`, on Btrfs, XFS and the like): no bytes are copied, and a
    /// later write to either file leaves the other as it was.
    /// - Throws: ``SystemError`` (`EOPNOTSUPP`, `EXDEV`, `EINVAL` where the file system cannot).
    package static func cloneFile(_ destination: Int32, from source: Int32, path: String) throws(SystemError) {
        // FICLONE = _IOW(0x94, 9, int)
        if ioctl(destination, 0x4004_9409, source) != 0 { throw lastError("clone", path) }
    }

    /// Bytes free for this user on the file system that holds `path`.
    package static func freeBytes(_ path: String) throws(SystemError) -> UInt64 {
        var info = statvfs()
        if statvfs(path, &info) != 0 { throw lastError("statvfs", path) }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Creates a folder; one that is already there is fine.
    package static func makeDirectory(_ path: String, mode: mode_t) throws(SystemError) {
        if mkdir(path, mode) != 0 && Glibc.errno != EEXIST { throw lastError("create folder", path) }
    }

    // MARK: Locks, memory, processes

    /// Takes an open-file-description lock on the byte at `offset` without waiting: true when
    /// taken, false when another open file holds it. OFD locks belong to the open file, not
    /// the process, and the kernel drops them when it is closed.
    package static func lockByte(_ fd: Int32, at offset: Int64, exclusive: Bool, path: String) throws(SystemError) -> Bool {
        while true {
            if yiana_ofd_lock_byte(fd, exclusive ? 1 : 0, offset) == 0 { return true }
            switch Glibc.errno {
            case EINTR: continue
            case EAGAIN, EACCES: return false
            default: throw lastError("lock", path)
            }
        }
    }

    /// Maps `length` bytes of `fd` from `offset` (a multiple of ``pageSize``) read-only.
    package static func mapReadOnly(_ fd: Int32, offset: UInt64, length: Int, path: String) throws(SystemError) -> UnsafeRawPointer {
        guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, fd, off_t(offset)), base != MAP_FAILED else {
            throw lastError("map", path)
        }
        return UnsafeRawPointer(base)
    }

    package static func unmap(_ base: UnsafeRawPointer, length: Int) {
        _ = munmap(UnsafeMutableRawPointer(mutating: base), length)
    }

    package static let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))

    package static var processID: Int32 { getpid() }

    /// Sends `signal` (say `SIGKILL`) to a process; false when there is none.
    @discardableResult
    package static func signal(_ pid: Int32, _ signal: Int32) -> Bool { kill(pid, signal) == 0 }

    package static let killSignal = SIGKILL
    /// Freezes a process where it is (the crash harness stops one before it looks for its children).
    package static let stopSignal = SIGSTOP

    /// Makes this process the one its descendants are handed to when their parent dies
    /// (`PR_SET_CHILD_SUBREAPER`), so that it can reap them (``reap(_:)``): the crash harness,
    /// whose killed `yiana` leaves restic behind.
    package static func becomeSubreaper() -> Bool { yiana_become_subreaper() == 0 }

    /// Waits for the child `pid` to end and reaps it (a process it is handed as subreaper,
    /// once its parent has died: waited for up to `seconds`).
    package static func reap(_ pid: Int32, seconds: Double = 5) {
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(seconds)
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR || errno == ECHILD && Date() < deadline else { return }
            if errno == ECHILD { usleep(1000) }
        }
    }

    /// Sleeps for `seconds` (fractions allowed).
    package static func sleep(seconds: Double) {
        _ = usleep(useconds_t(max(0, min(seconds, 4000)) * 1_000_000))
    }

    /// True when the descriptor is a terminal (a progress bar draws only there).
    package static func isTerminal(_ fd: Int32) -> Bool { isatty(fd) == 1 }

    package static let standardError: Int32 = STDERR_FILENO
    package static let standardOutput: Int32 = STDOUT_FILENO
}

/// `struct stat`, named apart from the function of the same name.
package typealias FileStatus = stat

extension FileStatus {
    package var kind: FileKind { FileKind(mode: st_mode) }
    package var isRegularFile: Bool { (st_mode & S_IFMT) == S_IFREG }
    package var isDirectory: Bool { (st_mode & S_IFMT) == S_IFDIR }
    /// How many names the file has (`st_nlink`).
    package var links: UInt64 { UInt64(st_nlink) }
    /// The file system the file is on (`st_dev`).
    package var device: UInt64 { UInt64(st_dev) }
    /// Permission bits (`st_mode & 07777`).
    package var permissions: mode_t { st_mode & 0o7777 }
    package var size: UInt64 { UInt64(max(0, st_size)) }
    /// Seconds since 1970 of the last change of the file's bytes.
    package var modifiedSeconds: Double { Double(st_mtim.tv_sec) + Double(st_mtim.tv_nsec) / 1e9 }
    /// Seconds since 1970 of the last change of the file's bytes or attributes (ctime).
    package var changedSeconds: Double { Double(st_ctim.tv_sec) + Double(st_ctim.tv_nsec) / 1e9 }
    /// Identity of the file: same device and inode means the same file.
    package var fileID: FileID { FileID(device: UInt64(st_dev), inode: UInt64(st_ino)) }
}

extension String {
    package func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

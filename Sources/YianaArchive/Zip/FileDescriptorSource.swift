internal import CZip
#if canImport(Glibc)
import Glibc
#endif

/// A libzip source over a file descriptor the caller owns.
///
/// Reading sources serve a byte range of the file by `pread` (so libzip reads exactly the
/// file that was opened and locked, not whatever the path names later). The writable source
/// lets `zip_close` write straight into the toolkit's own `O_EXCL` temporary file, with
/// writes gathered into 1 MiB blocks; libzip's own file source would instead create and
/// rename a temporary file of its own and never `fsync` it.
final class FileDescriptorSource {
    let fd: Int32
    let path: String
    let writable: Bool
    private let start: UInt64
    private var length: UInt64
    private var readPosition: UInt64 = 0
    private var error = zip_error_t()

    private var writePosition: UInt64 = 0
    private var writeEnd: UInt64 = 0
    private var pending: UnsafeMutableRawPointer?
    private var pendingStart: UInt64 = 0
    private var pendingCount = 0
    private static let pendingCapacity = 1 << 20

    /// Set when libzip asked to delete the archive (it does so when an archive would be empty).
    private(set) var removeRequested = false
    /// The system error behind a failed read or write, for a message naming the real cause.
    private(set) var failure: SystemError?

    /// A read-only source of `count` bytes from `offset` (default: the whole file).
    init(readingFD fd: Int32, path: String, offset: UInt64 = 0, count: UInt64? = nil) throws(SystemError) {
        self.fd = fd
        self.path = path
        self.writable = false
        self.start = offset
        if let count {
            self.length = count
        } else {
            let size = UInt64(try Sys.fstat(fd, path: path).st_size)
            self.length = size > offset ? size - offset : 0
        }
        zip_error_init(&error)
    }

    /// A source that writes a new archive into the empty file open as `fd`.
    init(writingFD fd: Int32, path: String) {
        self.fd = fd
        self.path = path
        self.writable = true
        self.start = 0
        self.length = 0
        zip_error_init(&error)
    }

    deinit {
        zip_error_fini(&error)
        pending?.deallocate()
    }

    /// Wraps this object in a `zip_source_t`; libzip keeps it alive until it frees the source.
    func makeSource() throws(ArchiveError) -> OpaquePointer {
        let retained = Unmanaged.passRetained(self)
        var openError = zip_error_t()
        zip_error_init(&openError)
        defer { zip_error_fini(&openError) }
        guard let source = zip_source_function_create(fileDescriptorSourceCallback, retained.toOpaque(), &openError) else {
            retained.release()
            throw ArchiveError(.zip(ZipErrorCode(rawValue: zip_error_code_zip(&openError)),
                                    message: String(cString: zip_error_strerror(&openError))), path: path)
        }
        return source
    }

    fileprivate func handle(_ data: UnsafeMutableRawPointer?, _ len: UInt64, _ command: zip_source_cmd_t) -> Int64 {
        do {
            switch command {
            case ZIP_SOURCE_OPEN:
                readPosition = 0
                return 0
            case ZIP_SOURCE_READ:
                guard let data else { return fail(ZIP_ER_INVAL) }
                let count = Int(min(len, length - min(readPosition, length)))
                let n = try Sys.pread(fd, data, count, start + readPosition, path: path)
                readPosition += UInt64(n)
                return Int64(n)
            case ZIP_SOURCE_CLOSE:
                return 0
            case ZIP_SOURCE_STAT:
                guard let data, len >= UInt64(MemoryLayout<zip_stat_t>.size) else { return fail(ZIP_ER_INVAL) }
                let stat = data.assumingMemoryBound(to: zip_stat_t.self)
                zip_stat_init(stat)
                stat.pointee.size = writable ? writeEnd : length
                stat.pointee.valid |= UInt64(ZIP_STAT_SIZE)
                return Int64(MemoryLayout<zip_stat_t>.size)
            case ZIP_SOURCE_ERROR:
                return zip_error_to_data(&error, data, len)
            case ZIP_SOURCE_SEEK:
                guard let target = seekTarget(data, len, current: readPosition, end: length) else { return fail(ZIP_ER_INVAL) }
                readPosition = target
                return 0
            case ZIP_SOURCE_TELL:
                return Int64(readPosition)
            case ZIP_SOURCE_SUPPORTS:
                return Self.supportedCommands(writable: writable)
            case ZIP_SOURCE_BEGIN_WRITE:
                try Sys.ftruncate(fd, 0, path: path)
                writePosition = 0
                writeEnd = 0
                pendingCount = 0
                return 0
            case ZIP_SOURCE_WRITE:
                guard let data else { return fail(ZIP_ER_INVAL) }
                try write(UnsafeRawPointer(data), Int(len))
                return Int64(len)
            case ZIP_SOURCE_SEEK_WRITE:
                try flush()
                guard let target = seekTarget(data, len, current: writePosition, end: writeEnd) else { return fail(ZIP_ER_INVAL) }
                writePosition = target
                return 0
            case ZIP_SOURCE_TELL_WRITE:
                return Int64(writePosition)
            case ZIP_SOURCE_COMMIT_WRITE:
                try flush()
                length = writeEnd
                return 0
            case ZIP_SOURCE_ROLLBACK_WRITE:
                pendingCount = 0
                try Sys.ftruncate(fd, 0, path: path)
                writeEnd = 0
                return 0
            case ZIP_SOURCE_REMOVE:
                removeRequested = true
                return 0
            default:
                return fail(ZIP_ER_OPNOTSUPP)
            }
        } catch {
            failure = error
            let code = command == ZIP_SOURCE_READ ? ZIP_ER_READ : ZIP_ER_WRITE
            zip_error_set(&self.error, code, error.errno)
            return -1
        }
    }

    private func fail(_ code: Int32) -> Int64 {
        zip_error_set(&error, code, 0)
        return -1
    }

    private func seekTarget(_ data: UnsafeMutableRawPointer?, _ len: UInt64, current: UInt64, end: UInt64) -> UInt64? {
        guard let data, let args = yiana_zip_seek_args(data, len)?.pointee else { return nil }
        let base: Int64
        switch args.whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = Int64(current)
        case SEEK_END: base = Int64(end)
        default: return nil
        }
        let (target, overflow) = base.addingReportingOverflow(args.offset)
        guard !overflow, target >= 0, writable || UInt64(target) <= end else { return nil }
        return UInt64(target)
    }

    private func write(_ bytes: UnsafeRawPointer, _ count: Int) throws(SystemError) {
        if pendingCount > 0, pendingStart + UInt64(pendingCount) != writePosition { try flush() }
        if pendingCount + count > Self.pendingCapacity { try flush() }
        if count >= Self.pendingCapacity {
            try Sys.pwriteAll(fd, bytes, count, writePosition, path: path)
        } else {
            if pending == nil {
                pending = UnsafeMutableRawPointer.allocate(byteCount: Self.pendingCapacity, alignment: 16)
            }
            if pendingCount == 0 { pendingStart = writePosition }
            (pending! + pendingCount).copyMemory(from: bytes, byteCount: count)
            pendingCount += count
        }
        writePosition += UInt64(count)
        writeEnd = max(writeEnd, writePosition)
    }

    private func flush() throws(SystemError) {
        guard pendingCount > 0, let pending else { return }
        try Sys.pwriteAll(fd, pending, pendingCount, pendingStart, path: path)
        pendingCount = 0
    }

    private static func supportedCommands(writable: Bool) -> Int64 {
        var commands = [ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR,
                        ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS]
        if writable {
            commands += [ZIP_SOURCE_BEGIN_WRITE, ZIP_SOURCE_COMMIT_WRITE, ZIP_SOURCE_ROLLBACK_WRITE,
                         ZIP_SOURCE_WRITE, ZIP_SOURCE_SEEK_WRITE, ZIP_SOURCE_TELL_WRITE, ZIP_SOURCE_REMOVE]
        }
        return commands.reduce(0) { $0 | (Int64(1) << Int64($1.rawValue)) }
    }
}

private func fileDescriptorSourceCallback(
    _ userdata: UnsafeMutableRawPointer?, _ data: UnsafeMutableRawPointer?, _ len: zip_uint64_t, _ command: zip_source_cmd_t
) -> zip_int64_t {
    guard let userdata else { return -1 }
    let source = Unmanaged<FileDescriptorSource>.fromOpaque(userdata)
    if command == ZIP_SOURCE_FREE {
        // Balances the retain taken in makeSource(); libzip never calls the source again.
        source.release()
        return 0
    }
    return source.takeUnretainedValue().handle(data, len, command)
}

internal import CZip
import YianaSystem

/// A read-only libzip source over a file descriptor the caller owns.
///
/// It serves the file by `pread`, so libzip reads exactly the file that was opened (and
/// locked), not whatever the path names by the time libzip would open it itself.
final class FileDescriptorSource {
    let fd: Int32
    let path: String
    private let start: UInt64
    private let length: UInt64
    private var readPosition: UInt64 = 0
    private var error = zip_error_t()

    /// The system error behind a failed read, for a message naming the real cause.
    private(set) var failure: SystemError?

    /// A read-only source of `count` bytes from `offset` (default: the whole file).
    init(readingFD fd: Int32, path: String, offset: UInt64 = 0, count: UInt64? = nil) throws(SystemError) {
        self.fd = fd
        self.path = path
        self.start = offset
        if let count {
            self.length = count
        } else {
            let size = UInt64(try Sys.fstat(fd, path: path).st_size)
            self.length = size > offset ? size - offset : 0
        }
        yiana_zip_error_init(&error)
    }

    deinit {
        yiana_zip_error_fini(&error)
    }

    /// Wraps this object in a `zip_source_t`; libzip keeps it alive until it frees the source.
    func makeSource() throws(ArchiveError) -> OpaquePointer {
        let retained = Unmanaged.passRetained(self)
        var openError = zip_error_t()
        yiana_zip_error_init(&openError)
        defer { yiana_zip_error_fini(&openError) }
        guard let source = yiana_zip_source_function_create(fileDescriptorSourceCallback, retained.toOpaque(), &openError) else {
            retained.release()
            throw ArchiveError(.zip(ZipErrorCode(rawValue: yiana_zip_error_code_zip(&openError)),
                                    message: String(cString: yiana_zip_error_strerror(&openError))), path: path)
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
                yiana_zip_stat_init(stat)
                stat.pointee.size = length
                stat.pointee.valid |= UInt64(ZIP_STAT_SIZE)
                return Int64(MemoryLayout<zip_stat_t>.size)
            case ZIP_SOURCE_ERROR:
                return yiana_zip_error_to_data(&error, data, len)
            case ZIP_SOURCE_SEEK:
                guard let target = seekTarget(data, len, current: readPosition) else { return fail(ZIP_ER_INVAL) }
                readPosition = target
                return 0
            case ZIP_SOURCE_TELL:
                return Int64(readPosition)
            case ZIP_SOURCE_SUPPORTS:
                return Self.supportedCommands
            default:
                return fail(ZIP_ER_OPNOTSUPP)
            }
        } catch {
            failure = error
            yiana_zip_error_set(&self.error, ZIP_ER_READ, error.errno)
            return -1
        }
    }

    private func fail(_ code: Int32) -> Int64 {
        yiana_zip_error_set(&error, code, 0)
        return -1
    }

    private func seekTarget(_ data: UnsafeMutableRawPointer?, _ len: UInt64, current: UInt64) -> UInt64? {
        guard let data, let args = yiana_zip_seek_args(data, len)?.pointee else { return nil }
        let base: Int64
        switch args.whence {
        case SEEK_SET: base = 0
        case SEEK_CUR: base = Int64(current)
        case SEEK_END: base = Int64(length)
        default: return nil
        }
        let (target, overflow) = base.addingReportingOverflow(args.offset)
        guard !overflow, target >= 0, UInt64(target) <= length else { return nil }
        return UInt64(target)
    }

    /// A seekable read source: libzip opens it read-only.
    private static let supportedCommands: Int64 = [
        ZIP_SOURCE_OPEN, ZIP_SOURCE_READ, ZIP_SOURCE_CLOSE, ZIP_SOURCE_STAT, ZIP_SOURCE_ERROR,
        ZIP_SOURCE_FREE, ZIP_SOURCE_SEEK, ZIP_SOURCE_TELL, ZIP_SOURCE_SUPPORTS,
    ].reduce(0) { $0 | (Int64(1) << Int64($1.rawValue)) }
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

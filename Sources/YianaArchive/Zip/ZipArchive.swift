internal import CZip
import Foundation

/// A libzip archive open for reading; owns its `zip_t` and frees it in `deinit`.
final class ZipArchive {
    private let handle: OpaquePointer
    /// The source libzip reads through, kept to report the system error behind a read error.
    private let reader: FileDescriptorSource
    let path: String

    /// Opens the ZIP held by `fd` (which the caller keeps open for the archive's life).
    init(fd: Int32, path: String) throws {
        self.path = path
        if let failure = yiana_zip_load() {
            throw ArchiveError(.zip(.open, message: "the ZIP library could not be loaded (\(String(cString: failure))); install libzip4"), path: path)
        }
        reader = try FileDescriptorSource(readingFD: fd, path: path)
        let source = try reader.makeSource()
        var error = zip_error_t()
        yiana_zip_error_init(&error)
        defer { yiana_zip_error_fini(&error) }
        guard let archive = yiana_zip_open_from_source(source, ZIP_RDONLY | ZIP_CHECKCONS, &error) else {
            yiana_zip_source_free(source)
            // A read that failed (an I/O error) is said as such, never as damage.
            if let failure = reader.failure { throw ArchiveError(.system(failure), path: path) }
            throw ArchiveError(.zip(ZipErrorCode(rawValue: yiana_zip_error_code_zip(&error)),
                                    message: String(cString: yiana_zip_error_strerror(&error))), path: path)
        }
        handle = archive
    }

    deinit {
        // Read-only: nothing to write, so discard rather than close.
        yiana_zip_discard(handle)
    }

    var entryCount: Int { Int(yiana_zip_get_num_entries(handle, 0)) }

    func name(at index: Int) -> String? {
        guard let name = yiana_zip_get_name(handle, UInt64(index), ZIP_FL_ENC_RAW) else { return nil }
        return String(cString: name)
    }

    /// Streams entry `index` to `body` in chunks, reading until libzip reports the end so
    /// that it checks the CRC (libzip 1.7 checks it only there), and checks the length.
    /// `allowShorter`: `expectedSize` is a bound, not the length (an entry whose length is not known).
    func read(index: Int, name: String, expectedSize: UInt64, chunkSize: Int = 1 << 20, allowShorter: Bool = false,
              _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let file = yiana_zip_fopen_index(handle, UInt64(index), 0) else {
            throw zipError(yiana_zip_get_error(handle), entry: name)
        }
        defer { yiana_zip_fclose(file) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var total: UInt64 = 0
        while true {
            let n = yiana_zip_fread(file, buffer.baseAddress, UInt64(chunkSize))
            if n < 0 { throw zipError(yiana_zip_file_get_error(file), entry: name) }
            if n == 0 { break }
            total += UInt64(n)
            guard total <= expectedSize else { throw ArchiveError(.damagedStructure("\(name) is longer than declared"), path: path) }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<Int(n)]))
        }
        guard total == expectedSize || allowShorter else {
            if let failure = reader.failure { throw ArchiveError(.system(failure), path: path) }
            throw ArchiveError(.entryTruncated(name), path: path)
        }
    }

    /// Reads a small entry whole, refusing one over `limit` bytes without allocating it.
    func readSmall(index: Int, name: String, expectedSize: UInt64, limit: UInt64) throws -> Data {
        guard expectedSize <= limit else { throw ArchiveError(.entryTooLarge(name, limit: limit), path: path) }
        var data = Data()
        try read(index: index, name: name, expectedSize: expectedSize, chunkSize: 64 << 10) { chunk in
            data.append(contentsOf: chunk)
        }
        return data
    }

    private func zipError(_ error: UnsafeMutablePointer<zip_error_t>?, entry: String) -> ArchiveError {
        guard let error else { return ArchiveError(.zip(.read, message: "unknown libzip error"), path: path) }
        let code = ZipErrorCode(rawValue: yiana_zip_error_code_zip(error))
        // Whatever libzip makes of it (a short entry, a CRC it could not finish), a read
        // that failed is an I/O error, never damage.
        if let failure = reader.failure {
            return ArchiveError(.system(failure), path: path)
        }
        switch code {
        case .crc: return ArchiveError(.crcMismatch(entry: entry), path: path)
        case .prematureEOF: return ArchiveError(.entryTruncated(entry), path: path)
        default: return ArchiveError(.zip(code, message: "\(entry): \(String(cString: yiana_zip_error_strerror(error)))"), path: path)
        }
    }
}

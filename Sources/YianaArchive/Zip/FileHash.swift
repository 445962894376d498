import Crypto
import Foundation
import YianaSystem

/// SHA-256 of file contents, streamed in 1 MiB blocks (swift-crypto: BoringSSL, which uses
/// the CPU's SHA extensions where present). A document's `pdfHash` is this of its PDF.
public enum FileHash {
    /// The lower-case hex SHA-256 of the whole file open as `fd`, read from offset 0.
    /// - Throws: ``SystemError`` on a read error.
    public static func sha256(fd: Int32, path: String) throws -> String {
        let size = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var offset: UInt64 = 0
        while true {
            let n = try Sys.pread(fd, buffer.baseAddress!, size, offset, path: path)
            if n == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += UInt64(n)
        }
        return hex(hasher.finalize())
    }

    /// A string as long as every hex SHA-256, for laying out a file before the hash is known.
    static let standIn = String(repeating: "0", count: 64)

    /// The lower-case hex SHA-256 of the file at `url`.
    /// - Throws: ``ArchiveError`` when it is not a regular file or cannot be opened,
    ///   ``SystemError`` when it cannot be read.
    public static func sha256(of url: URL) throws -> String {
        let fd = try RegularFile.openForReading(url.path)
        defer { Sys.close(fd) }
        return try sha256(fd: fd, path: url.path)
    }

    /// The hex SHA-256 of a stream of chunks, e.g. a PDF read out of an archive.
    public static func sha256(_ produce: ((UnsafeRawBufferPointer) -> Void) throws -> Void) rethrows -> String {
        var hasher = SHA256()
        try produce { hasher.update(bufferPointer: $0) }
        return hex(hasher.finalize())
    }

    package static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in digest {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

extension DocumentReader {
    /// The PDF (``pdfBytes(observing:)``) and its lower-case hex SHA-256, in one pass.
    public func pdfBytesAndSHA256() throws -> (PDFBytes, String) {
        var bytes: PDFBytes? = nil
        let hash = try FileHash.sha256 { update in bytes = try pdfBytes(observing: update) }
        return (bytes!, hash)
    }
}

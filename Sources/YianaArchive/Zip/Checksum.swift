internal import CZip
import Foundation

/// CRC-32 as ZIP defines it (the checksum libzip verifies entries with).
///
/// On x86-64 CPUs with PCLMULQDQ the bulk is computed by carry-less multiplication (several
/// times zlib's speed, which matters when a 1 GB PDF is checksummed twice on its way into
/// an archive); zlib's `crc32` does the rest, and everything on other CPUs.
enum Checksum {
    private static let fast = yiana_crc32_fast_available() != 0

    /// `crc` continued over `count` bytes at `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawPointer?, _ count: Int) -> UInt32 {
        guard let bytes, count > 0 else { return crc }
        var crc = crc
        var start = bytes.assumingMemoryBound(to: UInt8.self)
        var left = count
        if fast, left >= 64 {
            let blocks = left & ~15
            crc = yiana_crc32_fold(crc, start, blocks)
            start += blocks
            left -= blocks
        }
        if left > 0 {
            crc = UInt32(truncatingIfNeeded: CZip.crc32(uLong(crc), start, uInt(left)))
        }
        return crc
    }

    static func crc32(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { raw in update(initial, raw.baseAddress, raw.count) }
    }

    /// zlib's own CRC-32, to check the fast path against.
    static func zlibCRC32(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { raw in
            UInt32(truncatingIfNeeded: CZip.crc32(0, raw.bindMemory(to: Bytef.self).baseAddress, uInt(raw.count)))
        }
    }

    /// The CRC-32 of nothing, to start from.
    static let initial: UInt32 = 0

    /// The CRC-32 of the bytes of `fd` in `range`, read in 1 MiB blocks.
    /// - Throws: ``ArchiveError`` `.sourceChanged` if the file ends early, or `.system`.
    static func crc32(fd: Int32, range: Range<UInt64>, path: String) throws -> UInt32 {
        try update(initial, fd: fd, range: range, path: path)
    }

    /// `crc` continued over the bytes of `fd` in `range`.
    static func update(_ start: UInt32, fd: Int32, range: Range<UInt64>, path: String) throws -> UInt32 {
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var crc = start
        var offset = range.lowerBound
        while offset < range.upperBound {
            let n: Int
            do {
                n = try Sys.pread(fd, buffer, Int(min(UInt64(size), range.upperBound - offset)), offset, path: path)
            } catch {
                throw ArchiveError(.system(error), path: path)
            }
            guard n > 0 else { throw ArchiveError(.sourceChanged(path), path: path) }
            crc = update(crc, buffer, n)
            offset += UInt64(n)
        }
        return crc
    }
}

/// CRC-32 as ZIP defines it, for code outside the archive module (repair's evidence checks).
public enum ZipCRC {
    /// `crc` continued over `bytes` (start from 0).
    public static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        Checksum.update(crc, bytes.baseAddress, bytes.count)
    }
}

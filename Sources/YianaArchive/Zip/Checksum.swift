import Foundation
import YianaSystem

/// CRC-32 as ZIP defines it, over memory and over ranges of files (the fast path is the
/// system layer's ``CRC32``).
enum Checksum {
    /// `crc` continued over `count` bytes at `bytes`.
    static func update(_ crc: UInt32, _ bytes: UnsafeRawPointer?, _ count: Int) -> UInt32 {
        CRC32.update(crc, bytes, count)
    }

    static func crc32(_ data: Data) -> UInt32 {
        data.withUnsafeBytes { raw in update(initial, raw.baseAddress, raw.count) }
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

import Foundation
import YianaSystem

/// CRC-32 as ZIP defines it, over memory (the fast path is the system layer's ``CRC32``).
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
}

import CYiana

/// CRC-32 as ZIP defines it (the checksum libzip verifies entries with).
///
/// It runs in the toolkit's own C (`Sources/CYiana`) because Swift cannot call the CPU's
/// carry-less multiply: on x86-64 CPUs with PCLMULQDQ the bulk is folded several times
/// faster than zlib (which matters when a 1 GB PDF is checksummed on its way into an
/// archive); zlib's `crc32` does the rest, and everything on other CPUs. It lives in the
/// system layer so that each C library sits behind exactly one Swift module.
package enum CRC32 {
    /// The CRC-32 of nothing, to start from.
    package static let initial: UInt32 = 0

    /// `crc` continued over `count` bytes at `bytes`.
    package static func update(_ crc: UInt32, _ bytes: UnsafeRawPointer?, _ count: Int) -> UInt32 {
        guard let bytes, count > 0 else { return crc }
        return yiana_crc32(crc, bytes, count)
    }

    /// zlib's CRC-32 alone, to check the fast path against.
    package static func reference(_ crc: UInt32, _ bytes: UnsafeRawPointer?, _ count: Int) -> UInt32 {
        guard let bytes, count > 0 else { return crc }
        return yiana_crc32_reference(crc, bytes, count)
    }

    /// True when ``update(_:_:_:)`` folds with PCLMULQDQ on this CPU.
    package static var isAccelerated: Bool { yiana_crc32_accelerated() != 0 }
}

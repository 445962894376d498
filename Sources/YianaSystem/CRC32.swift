import CYiana

/// CRC-32 as ZIP defines it (the checksum libzip verifies entries with).
///
/// It runs in the toolkit's own C (`Sources/CYiana/crc32.c`) because Swift cannot call the
/// CPU's carry-less multiply: on x86-64 CPUs with PCLMULQDQ the bulk is folded several times
/// faster than zlib, and about five times faster again with VPCLMULQDQ and AVX-512 (which
/// matters when a 1 GB PDF is checksummed on its way into an archive, and on every read
/// that checks it); zlib's `crc32` does the rest, and everything on other CPUs. It lives in
/// the system layer so that each C library sits behind exactly one Swift module.
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

    /// How ``update(_:_:_:)`` computes on this CPU, widest first.
    package enum Folding: Int32, Comparable, CaseIterable, Sendable {
        /// zlib's table-driven `crc32` alone.
        case none = 0
        /// 128-bit lanes, PCLMULQDQ and SSE4.1.
        case narrow = 1
        /// 512-bit registers, VPCLMULQDQ and AVX-512F.
        case wide = 2

        package static func < (a: Folding, b: Folding) -> Bool { a.rawValue < b.rawValue }
    }

    /// The widest folding this CPU allows, the one ``update(_:_:_:)`` takes.
    package static var folding: Folding { Folding(rawValue: yiana_crc32_accelerated()) ?? .none }

    /// ``update(_:_:_:)`` held to `folding` or narrower, to test each path on a CPU that has
    /// a wider one.
    package static func update(_ crc: UInt32, _ bytes: UnsafeRawPointer?, _ count: Int, foldingAtMost folding: Folding) -> UInt32 {
        guard let bytes, count > 0 else { return crc }
        return yiana_crc32_using(folding.rawValue, crc, bytes, count)
    }
}

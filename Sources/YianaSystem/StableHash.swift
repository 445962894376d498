/// FNV-1a, 64 bits: a short hash that is the same in every run and on every machine (Swift's
/// `hashValue` is seeded per process), for file names, identifiers and buckets; not for security.
public enum StableHash {
    public static let seed: UInt64 = 0xCBF2_9CE4_8422_2325

    /// `bytes` folded into `hash` (start from ``seed``).
    public static func fold<Bytes: Sequence<UInt8>>(_ bytes: Bytes, into hash: UInt64 = seed) -> UInt64 {
        var hash = hash
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        return hash
    }

    /// The hash of `text`'s UTF-8 bytes.
    public static func of(_ text: String) -> UInt64 { fold(text.utf8) }

    /// The hash of `text` in lower-case hexadecimal, without leading zeros.
    public static func hex(_ text: String) -> String { String(of(text), radix: 16) }
}

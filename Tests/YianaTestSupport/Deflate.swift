/// Raw deflate streams (RFC 1951) made by hand, for archives with compressed entries: one
/// block with the fixed Huffman codes, holding literal bytes and then runs of the last one
/// as length-258, distance-1 matches (about 159:1, the shape of a compression bomb).
public enum Deflate {
    /// `prefix` followed by `count` more copies of its last byte (`prefix` must not be
    /// empty when `count` > 0). With `count` 0, every byte is a literal: a valid stream
    /// of any data, a little larger than the data.
    public static func stream(_ prefix: [UInt8], repeatingLast count: Int = 0) -> [UInt8] {
        var bits = BitWriter()
        // 9 bits a literal at most, 13 a run of 258, the headers and the end of block.
        bits.bytes.reserveCapacity((prefix.count * 9 + (count / 258) * 13 + 258 * 9 + 10) / 8 + 1)
        bits.append(1, count: 1)  // BFINAL
        bits.append(1, count: 2)  // BTYPE 01: fixed Huffman codes
        for byte in prefix { bits.literal(byte) }
        var left = count
        while left >= 258 {
            bits.code(0xC5, length: 8)  // length symbol 285: 258 bytes
            bits.code(0, length: 5)  // distance symbol 0: 1 byte back
            left -= 258
        }
        for _ in 0..<left { bits.literal(prefix.last!) }
        bits.code(0, length: 7)  // end of block
        return bits.bytes
    }

    /// The CRC-32 of what ``stream(_:repeatingLast:)`` inflates to, without making it.
    public static func crc(_ prefix: [UInt8], repeatingLast count: Int = 0) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in prefix { c = TableCRC32.table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        if count > 0, let last = prefix.last {
            for _ in 0..<count { c = TableCRC32.table[Int((c ^ UInt32(last)) & 0xFF)] ^ (c >> 8) }
        }
        return c ^ 0xFFFF_FFFF
    }

    struct BitWriter {
        var bytes: [UInt8] = []
        var used = 8

        /// `count` bits of `value`, least significant first (header fields, extra bits).
        mutating func append(_ value: UInt32, count: Int) {
            for i in 0..<count {
                if used == 8 { bytes.append(0); used = 0 }
                if value >> i & 1 == 1 { bytes[bytes.count - 1] |= 1 << used }
                used += 1
            }
        }

        /// A Huffman code, most significant bit first.
        mutating func code(_ value: UInt32, length: Int) {
            for i in (0..<length).reversed() { append(value >> i & 1, count: 1) }
        }

        mutating func literal(_ byte: UInt8) {
            if byte < 144 { code(0x30 + UInt32(byte), length: 8) } else { code(0x190 + UInt32(byte) - 144, length: 9) }
        }
    }
}

extension ZipBuilder.Entry {
    /// A deflated entry holding `prefix` and then `count` more copies of its last byte.
    public static func deflated(_ name: String, _ prefix: [UInt8], repeatingLast count: Int = 0) -> ZipBuilder.Entry {
        var entry = ZipBuilder.Entry(name: name, data: Deflate.stream(prefix, repeatingLast: count))
        entry.method = 8
        entry.crc = Deflate.crc(prefix, repeatingLast: count)
        entry.uncompressedSize = UInt32(prefix.count + count)
        return entry
    }
}

/// Builds ZIP files byte by byte, so tests can make every hostile or damaged shape.
public struct ZipBuilder {
    public struct Entry {
        public var name: String
        public var data: [UInt8]
        public var rawName: [UInt8]? = nil
        public var method: UInt16 = 0
        public var flags: UInt16 = 0
        public var madeBy: UInt16 = 0x031E
        public var externalAttributes: UInt32 = 0o100644 << 16
        public var crc: UInt32? = nil
        public var compressedSize: UInt32? = nil
        public var uncompressedSize: UInt32? = nil
        /// Point the central directory at another entry's local header.
        public var centralOffset: UInt32? = nil

        public init(name: String, data: [UInt8]) {
            self.name = name
            self.data = data
        }
    }

    public var entries: [Entry] = []

    public init() {}

    public static func document(metadata: String = validMetadata, pdf: [UInt8]? = Array("%PDF-1.4\nhello\n%%EOF\n".utf8)) -> ZipBuilder {
        var builder = ZipBuilder()
        builder.entries.append(Entry(name: "metadata.json", data: Array(metadata.utf8)))
        if let pdf { builder.entries.append(Entry(name: "content.pdf", data: pdf)) }
        builder.entries.append(Entry(name: "format.json", data: Array(#"{"formatVersion":2}"#.utf8)))
        return builder
    }

    public static let validMetadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"Test","created":800000000,"modified":800000001.5,"pageCount":1,"tags":[],"ocrCompleted":false}"#

    public func build() -> [UInt8] {
        // Sized once (the fuzzer builds archives of megabytes thousands of times): the
        // harness's own garbage is not the reader's memory.
        let names = entries.reduce(0) { $0 + ($1.rawName?.count ?? $1.name.utf8.count) }
        var out: [UInt8] = []
        out.reserveCapacity(entries.reduce(0) { $0 + $1.data.count } + 2 * names + 76 * entries.count + 22)
        var central: [UInt8] = []
        central.reserveCapacity(names + 46 * entries.count)
        var offsets: [UInt32] = []
        for entry in entries {
            let name = entry.rawName ?? Array(entry.name.utf8)
            let crc = entry.crc ?? TableCRC32.checksum(entry.data)
            let compressed = entry.compressedSize ?? UInt32(entry.data.count)
            let uncompressed = entry.uncompressedSize ?? UInt32(entry.data.count)
            offsets.append(UInt32(out.count))
            out += le32(0x0403_4B50) + le16(20) + le16(entry.flags) + le16(entry.method) + le16(0) + le16(0x5A21)
            out += le32(crc) + le32(compressed) + le32(uncompressed) + le16(UInt16(name.count)) + le16(0) + name
            out += entry.data
        }
        for (index, entry) in entries.enumerated() {
            let name = entry.rawName ?? Array(entry.name.utf8)
            central += le32(0x0201_4B50) + le16(entry.madeBy) + le16(20) + le16(entry.flags) + le16(entry.method)
            central += le16(0) + le16(0x5A21) + le32(entry.crc ?? TableCRC32.checksum(entry.data))
            central += le32(entry.compressedSize ?? UInt32(entry.data.count)) + le32(entry.uncompressedSize ?? UInt32(entry.data.count))
            central += le16(UInt16(name.count)) + le16(0) + le16(0) + le16(0) + le16(0) + le32(entry.externalAttributes)
            central += le32(entry.centralOffset ?? offsets[index]) + name
        }
        let cdOffset = UInt32(out.count)
        out += central
        out += le32(0x0605_4B50) + le16(0) + le16(0) + le16(UInt16(entries.count)) + le16(UInt16(entries.count))
        out += le32(UInt32(central.count)) + le32(cdOffset) + le16(0)
        return out
    }

    private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
    private func le32(_ value: UInt32) -> [UInt8] { le16(UInt16(value & 0xFFFF)) + le16(UInt16(value >> 16)) }
}

public enum TableCRC32 {
    public static let table: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for byte in bytes { c = table[Int((c ^ UInt32(byte)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}

import YianaSystem
/// One entry as the ZIP central directory and its local header describe it.
public struct ZipEntryLayout: Sendable, Equatable {
    /// The entry name decoded as UTF-8 (or CP437 where the name is not UTF-8).
    public let name: String
    /// The name's bytes as stored.
    public let rawName: [UInt8]
    /// Compression method: 0 stored, 8 deflated.
    public let method: UInt16
    /// General purpose flags.
    public let flags: UInt16
    public let crc32: UInt32
    public let compressedSize: UInt64
    public let uncompressedSize: UInt64
    /// Where the entry's local header starts.
    public let localHeaderOffset: UInt64
    /// Where the entry's data starts (after the local header, name and extra field).
    public let dataOffset: UInt64
    /// The host system that made the entry (3 is Unix).
    public let madeBy: UInt8
    public let externalAttributes: UInt32
    /// The bytes of the data descriptor after the data (flag bit 3): 12 or 16 (with its
    /// signature), 20 or 24 with ZIP64 sizes; 0 without one.
    public var descriptorLength: UInt64 = 0

    public var isEncrypted: Bool { flags & 1 != 0 }
    /// A Unix symlink entry: made on Unix with S_IFLNK in the high attribute bits.
    public var isSymlink: Bool { madeBy == 3 && (externalAttributes >> 16) & 0o170000 == 0o120000 }
    /// The bytes the entry occupies, from its local header to the end of its data
    /// (including a data descriptor when the flags announce one).
    public var span: Range<UInt64> {
        localHeaderOffset..<(dataOffset + compressedSize + descriptorLength)
    }
    /// The data's byte range in the file.
    public var dataRange: Range<UInt64> { dataOffset..<(dataOffset + compressedSize) }
}

/// Bytes of a ZIP file that no part of the archive accounts for.
public struct ZipGap: Sendable, Equatable {
    public let offset: UInt64
    public let length: UInt64
}

/// The structure of a ZIP file: its entries and where the central directory lies.
struct ZipLayout {
    var entries: [ZipEntryLayout]
    var centralDirectoryOffset: UInt64
    var endOfCentralDirectoryOffset: UInt64
    var fileSize: UInt64
    var centralDirectorySize: UInt64 = 0
    /// Where the end record (with its comment) ends.
    var endOfCentralDirectoryEnd: UInt64 = 0
    /// The ZIP64 end record and its locator, when the archive has them.
    var zip64Records: [Range<UInt64>] = []

    /// The largest central directory read; a `.yianazip` has three entries, so a
    /// directory this large is hostile, and the limit keeps memory bounded.
    static let maximumCentralDirectorySize: UInt64 = 4 << 20
    /// The most entries read: a document has three, and a hostile file's tens of thousands
    /// would cost memory and time in every check that follows.
    static let maximumEntryCount: UInt64 = 64
    /// The end of a file the end record is looked for in: its 22 bytes and the longest comment.
    static let tailLimit: UInt64 = 22 + 65_535

    enum Problem: Error, Equatable {
        case noEndOfCentralDirectory
        case centralDirectoryOutOfBounds
        case centralDirectoryTooLarge
        case tooManyEntries(UInt64)
        case badCentralHeader(index: Int)
        case badLocalHeader(name: String)
        case multiDisk
    }

    /// Reads the layout of the ZIP that `reader` reads (and may hold bytes of already),
    /// without trusting any declared size beyond `fileSize`, the file's real size.
    static func read(_ given: ByteReader, fileSize: UInt64) throws -> ZipLayout {
        var reader = given

        // The end-of-central-directory record is in the last 22 + 65535 bytes.
        let tailLength = min(fileSize, tailLimit)
        let tailStart = fileSize - tailLength
        let tail = try reader.bytes(at: tailStart, count: Int(tailLength))
        if reader.cache == nil { reader.cache = (tailStart, tail) }
        guard tail.count >= 22 else { throw Problem.noEndOfCentralDirectory }
        var eocdIndex: Int? = nil
        var index = tail.count - 22
        while index >= 0 {
            if tail.u32(index) == 0x0605_4B50 {
                let commentLength = Int(tail.u16(index + 20))
                if index + 22 + commentLength <= tail.count { eocdIndex = index; break }
            }
            index -= 1
        }
        guard let eocd = eocdIndex else { throw Problem.noEndOfCentralDirectory }
        let eocdOffset = tailStart + UInt64(eocd)
        if tail.u16(eocd + 4) != tail.u16(eocd + 6) { throw Problem.multiDisk }
        var entryCount = UInt64(tail.u16(eocd + 10))
        var cdSize = UInt64(tail.u32(eocd + 12))
        var cdOffset = UInt64(tail.u32(eocd + 16))

        // ZIP64: the locator sits just before the classic record.
        var zip64Records: [Range<UInt64>] = []
        if eocdOffset >= 20, entryCount == 0xFFFF || cdSize == 0xFFFF_FFFF || cdOffset == 0xFFFF_FFFF {
            let locator = try reader.bytes(at: eocdOffset - 20, count: 20)
            if locator.count == 20, locator.u32(0) == 0x0706_4B50 {
                let zip64Offset = locator.u64(8)
                guard zip64Offset + 56 <= eocdOffset else { throw Problem.centralDirectoryOutOfBounds }
                let record = try reader.bytes(at: zip64Offset, count: 56)
                guard record.count == 56, record.u32(0) == 0x0606_4B50 else { throw Problem.noEndOfCentralDirectory }
                entryCount = record.u64(32)
                cdSize = record.u64(40)
                cdOffset = record.u64(48)
                let recordLength = record.u64(4) < eocdOffset ? 12 + record.u64(4) : 56
                zip64Records = [zip64Offset..<min(zip64Offset + recordLength, eocdOffset - 20), (eocdOffset - 20)..<eocdOffset]
            }
        }

        guard cdOffset <= eocdOffset, cdSize <= eocdOffset - cdOffset else { throw Problem.centralDirectoryOutOfBounds }
        guard cdSize <= maximumCentralDirectorySize else { throw Problem.centralDirectoryTooLarge }
        // Each central header takes at least 46 bytes: a larger count is a lie.
        guard entryCount <= cdSize / 46 else { throw Problem.badCentralHeader(index: Int(cdSize / 46)) }
        guard entryCount <= maximumEntryCount else { throw Problem.tooManyEntries(entryCount) }

        let directory = try reader.bytes(at: cdOffset, count: Int(cdSize))
        var entries: [ZipEntryLayout] = []
        var position = 0
        for entryIndex in 0..<Int(entryCount) {
            let (entry, end) = try centralEntry(directory, at: position, index: entryIndex, directoryOffset: cdOffset, reader: reader)
            entries.append(entry)
            position = end
        }
        var layout = ZipLayout(entries: entries, centralDirectoryOffset: cdOffset,
                               endOfCentralDirectoryOffset: eocdOffset, fileSize: fileSize)
        layout.centralDirectorySize = cdSize
        layout.endOfCentralDirectoryEnd = eocdOffset + 22 + UInt64(tail.u16(eocd + 20))
        layout.zip64Records = zip64Records
        return layout
    }

    /// The entry whose central header starts at `position` of `directory`, checked against
    /// its local header; and where the next central header starts.
    private static func centralEntry(_ directory: [UInt8], at position: Int, index entryIndex: Int, directoryOffset cdOffset: UInt64,
                                     reader: ByteReader) throws -> (ZipEntryLayout, end: Int) {
        guard position + 46 <= directory.count, directory.u32(position) == 0x0201_4B50 else {
            throw Problem.badCentralHeader(index: entryIndex)
        }
        let nameLength = Int(directory.u16(position + 28))
        let extraLength = Int(directory.u16(position + 30))
        let commentLength = Int(directory.u16(position + 32))
        let end = position + 46 + nameLength + extraLength + commentLength
        guard end <= directory.count else { throw Problem.badCentralHeader(index: entryIndex) }
        let flags = directory.u16(position + 8)
        var compressed = UInt64(directory.u32(position + 20))
        var uncompressed = UInt64(directory.u32(position + 24))
        var offset = UInt64(directory.u32(position + 42))
        let rawName = Array(directory[(position + 46)..<(position + 46 + nameLength)])

        // ZIP64 extra field: the 64-bit values appear in this order, each only if its
        // 32-bit field is saturated.
        var extra = position + 46 + nameLength
        let extraEnd = extra + extraLength
        while extra + 4 <= extraEnd {
            let tag = directory.u16(extra)
            let size = Int(directory.u16(extra + 2))
            let body = extra + 4
            guard body + size <= extraEnd else { break }
            if tag == 0x0001 {
                var field = body
                if uncompressed == 0xFFFF_FFFF, field + 8 <= body + size { uncompressed = directory.u64(field); field += 8 }
                if compressed == 0xFFFF_FFFF, field + 8 <= body + size { compressed = directory.u64(field); field += 8 }
                if offset == 0xFFFF_FFFF, field + 8 <= body + size { offset = directory.u64(field) }
            }
            extra = body + size
        }

        let name = ZipName.decode(rawName, utf8Flag: flags & 0x0800 != 0)
        guard offset + 30 <= cdOffset else { throw Problem.badLocalHeader(name: name) }
        let local = try reader.bytes(at: offset, count: 30)
        guard local.count == 30, local.u32(0) == 0x0403_4B50 else { throw Problem.badLocalHeader(name: name) }
        let dataOffset = offset + 30 + UInt64(local.u16(26)) + UInt64(local.u16(28))

        var entry = ZipEntryLayout(
            name: name, rawName: rawName, method: directory.u16(position + 10), flags: flags,
            crc32: directory.u32(position + 16), compressedSize: compressed,
            uncompressedSize: uncompressed, localHeaderOffset: offset, dataOffset: dataOffset,
            madeBy: UInt8(directory.u16(position + 4) >> 8),
            externalAttributes: directory.u32(position + 38))
        if flags & 8 != 0 {
            // A data descriptor follows the data: CRC and two sizes (8 bytes each in
            // ZIP64), with or without its optional signature.
            let sizes: UInt64 = compressed >= 0xFFFF_FFFF || uncompressed >= 0xFFFF_FFFF ? 16 : 8
            let signature = try reader.bytes(at: dataOffset &+ compressed, count: 4)
            entry.descriptorLength = 4 + sizes + (signature.count == 4 && signature.u32(0) == 0x0807_4B50 ? 4 : 0)
        }
        return (entry, end)
    }

    /// The bytes no part of the archive accounts for: local entries (header, data,
    /// descriptor), the central directory, the ZIP64 records and the end record must tile
    /// the file; anything between or around them is a gap (inserted data, a second end
    /// record after appended data, junk before or after).
    func gaps() -> [ZipGap] {
        let parts = (entries.map(\.span) + [centralDirectoryOffset..<(centralDirectoryOffset + centralDirectorySize)] + zip64Records
            + [endOfCentralDirectoryOffset..<endOfCentralDirectoryEnd]).sorted { $0.lowerBound < $1.lowerBound }
        var gaps: [ZipGap] = []
        var covered: UInt64 = 0
        for part in parts {
            if part.lowerBound > covered { gaps.append(ZipGap(offset: covered, length: part.lowerBound - covered)) }
            covered = max(covered, part.upperBound)
        }
        if fileSize > covered { gaps.append(ZipGap(offset: covered, length: fileSize - covered)) }
        return gaps
    }

    /// The first pair of entries whose bytes overlap, or that reach into the central
    /// directory: the shape of a zip bomb or of a hand-crafted hostile file.
    func firstOverlap() -> (ZipEntryLayout, ZipEntryLayout?)? {
        let sorted = entries.sorted { $0.localHeaderOffset < $1.localHeaderOffset }
        for (index, entry) in sorted.enumerated() {
            if entry.span.upperBound > centralDirectoryOffset { return (entry, nil) }
            if index + 1 < sorted.count, entry.span.upperBound > sorted[index + 1].localHeaderOffset {
                return (entry, sorted[index + 1])
            }
        }
        return nil
    }
}

/// Reads ranges of a file by `pread`, never more than the file holds.
struct ByteReader {
    let fd: Int32
    let path: String
    /// Bytes already read from `start`: reads inside them are served from memory (a small
    /// document is read whole with its end record, and its headers then cost no more calls).
    var cache: (start: UInt64, bytes: [UInt8])? = nil

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    func bytes(at offset: UInt64, count: Int) throws -> [UInt8] {
        if let bytes = cached(at: offset, count: count) { return bytes }
        return try Sys.pread(fd, count: count, at: offset, path: path)
    }

    /// The bytes at `offset` if the cache holds all of them.
    func cached(at offset: UInt64, count: Int) -> [UInt8]? {
        guard let (start, bytes) = cache, offset >= start, count >= 0, offset - start <= UInt64(bytes.count),
              UInt64(count) <= UInt64(bytes.count) - (offset - start) else { return nil }
        let from = Int(offset - start)
        return Array(bytes[from..<(from + count)])
    }
}

extension Array where Element == UInt8 {
    func u16(_ at: Int) -> UInt16 { UInt16(self[at]) | UInt16(self[at + 1]) << 8 }
    func u32(_ at: Int) -> UInt32 { UInt32(u16(at)) | UInt32(u16(at + 2)) << 16 }
    func u64(_ at: Int) -> UInt64 { UInt64(u32(at)) | UInt64(u32(at + 4)) << 32 }
}

enum ZipName {
    /// Decodes an entry name: UTF-8 when flagged or valid, else CP437 as PKZIP defines.
    static func decode(_ bytes: [UInt8], utf8Flag: Bool) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        if utf8Flag { return String(decoding: bytes, as: UTF8.self) }
        return String(bytes.map { Character(Unicode.Scalar(cp437[Int($0)]) ?? "?") })
    }

    private static let cp437: [UInt32] = Array(0..<128) + [
        0xC7, 0xFC, 0xE9, 0xE2, 0xE4, 0xE0, 0xE5, 0xE7, 0xEA, 0xEB, 0xE8, 0xEF, 0xEE, 0xEC, 0xC4, 0xC5,
        0xC9, 0xE6, 0xC6, 0xF4, 0xF6, 0xF2, 0xFB, 0xF9, 0xFF, 0xD6, 0xDC, 0xA2, 0xA3, 0xA5, 0x20A7, 0x192,
        0xE1, 0xED, 0xF3, 0xFA, 0xF1, 0xD1, 0xAA, 0xBA, 0xBF, 0x2310, 0xAC, 0xBD, 0xBC, 0xA1, 0xAB, 0xBB,
        0x2591, 0x2592, 0x2593, 0x2502, 0x2524, 0x2561, 0x2562, 0x2556, 0x2555, 0x2563, 0x2551, 0x2557, 0x255D, 0x255C, 0x255B, 0x2510,
        0x2514, 0x2534, 0x252C, 0x251C, 0x2500, 0x253C, 0x255E, 0x255F, 0x255A, 0x2554, 0x2569, 0x2566, 0x2560, 0x2550, 0x256C, 0x2567,
        0x2568, 0x2564, 0x2565, 0x2559, 0x2558, 0x2552, 0x2553, 0x256B, 0x256A, 0x2518, 0x250C, 0x2588, 0x2584, 0x258C, 0x2590, 0x2580,
        0x3B1, 0xDF, 0x393, 0x3C0, 0x3A3, 0x3C3, 0xB5, 0x3C4, 0x3A6, 0x398, 0x3A9, 0x3B4, 0x221E, 0x3C6, 0x3B5, 0x2229,
        0x2261, 0xB1, 0x2265, 0x2264, 0x2320, 0x2321, 0xF7, 0x2248, 0xB0, 0x2219, 0xB7, 0x221A, 0x207F, 0xB2, 0x25A0, 0xA0,
    ]
}

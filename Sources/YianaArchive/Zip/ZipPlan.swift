import Foundation
import YianaSystem

/// The layout of a stored-only ZIP, planned before a byte is written: every entry's size
/// is known, so every offset is too, and the PDF can be copied straight to its place.
/// ZIP64 fields are written exactly where sizes or offsets reach `zip64Limit`.
struct Plan {
    struct Entry {
        let name: [UInt8]
        let size: UInt64
        var crc: UInt32 = 0
        let localOffset: UInt64
        let sizesNeedZip64: Bool
        let offsetNeedsZip64: Bool

        var localHeaderSize: Int { 30 + name.count + (sizesNeedZip64 ? 20 : 0) }
        var dataOffset: UInt64 { localOffset + UInt64(localHeaderSize) }
        var versionNeeded: UInt16 { sizesNeedZip64 || offsetNeedsZip64 ? 45 : 20 }
    }

    let zip64Limit: UInt64
    /// The file being written, named in errors.
    let path: String
    private(set) var entries: [Entry] = []
    private var end: UInt64 = 0

    init(zip64Limit: UInt64, path: String) {
        self.zip64Limit = zip64Limit
        self.path = path
    }

    mutating func add(_ name: String, size: UInt64) {
        let entry = Entry(name: Array(name.utf8), size: size, localOffset: end,
                          sizesNeedZip64: size >= zip64Limit, offsetNeedsZip64: end >= zip64Limit)
        entries.append(entry)
        end = entry.dataOffset + size
    }

    mutating func setCRC(_ crc: UInt32, at index: Int) {
        entries[index].crc = crc
    }

    /// Writes an entry held in memory: its local header and its bytes.
    mutating func writeSmall(_ index: Int, _ data: Data, fd: Int32, stamp: DOSTimestamp) throws {
        entries[index].crc = Checksum.crc32(data)
        try writeLocalHeader(index, fd: fd, stamp: stamp)
        try data.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return }
            try Sys.pwriteAll(fd, base, raw.count, entries[index].dataOffset, path: path)
        }
    }

    func writeLocalHeader(_ index: Int, fd: Int32, stamp: DOSTimestamp) throws {
        let entry = entries[index]
        var bytes = LittleEndianBytes()
        bytes.u32(0x0403_4B50)
        bytes.entryFields(entry, stamp)
        bytes.u16(entry.sizesNeedZip64 ? 20 : 0)
        bytes.append(entry.name)
        if entry.sizesNeedZip64 {
            bytes.u16(0x0001)
            bytes.u16(16)
            bytes.u64(entry.size)
            bytes.u64(entry.size)
        }
        try bytes.write(to: fd, at: entry.localOffset, path: path)
    }

    /// Writes the central directory and the end records after the last entry.
    /// Writes the central directory and the end records after the entries; returns where the file ends.
    @discardableResult
    func writeCentralDirectory(fd: Int32, stamp: DOSTimestamp) throws -> UInt64 {
        var bytes = LittleEndianBytes()
        for entry in entries {
            var extra = LittleEndianBytes()
            if entry.sizesNeedZip64 { extra.u64(entry.size); extra.u64(entry.size) }
            if entry.offsetNeedsZip64 { extra.u64(entry.localOffset) }
            bytes.u32(0x0201_4B50)
            bytes.u16(0x0300 | entry.versionNeeded)  // made by Unix
            bytes.entryFields(entry, stamp)
            bytes.u16(extra.count == 0 ? 0 : UInt16(4 + extra.count))
            bytes.u16(0)  // comment
            bytes.u16(0)  // disk
            bytes.u16(0)  // internal attributes
            bytes.u32(0o100644 << 16)  // a regular file, rw-r--r--
            bytes.u32(entry.offsetNeedsZip64 ? 0xFFFF_FFFF : UInt32(entry.localOffset))
            bytes.append(entry.name)
            if extra.count > 0 {
                bytes.u16(0x0001)
                bytes.u16(UInt16(extra.count))
                bytes.append(extra.bytes)
            }
        }
        let cdOffset = end
        let cdSize = UInt64(bytes.count)
        let needsZip64End = cdOffset >= zip64Limit || cdSize >= zip64Limit || entries.contains { $0.sizesNeedZip64 || $0.offsetNeedsZip64 }
        if needsZip64End {
            let recordOffset = cdOffset + cdSize
            bytes.u32(0x0606_4B50)
            bytes.u64(44)
            bytes.u16(0x032D)
            bytes.u16(45)
            bytes.u32(0)
            bytes.u32(0)
            bytes.u64(UInt64(entries.count))
            bytes.u64(UInt64(entries.count))
            bytes.u64(cdSize)
            bytes.u64(cdOffset)
            bytes.u32(0x0706_4B50)
            bytes.u32(0)
            bytes.u64(recordOffset)
            bytes.u32(1)
        }
        bytes.u32(0x0605_4B50)
        bytes.u16(0)
        bytes.u16(0)
        bytes.u16(UInt16(entries.count))
        bytes.u16(UInt16(entries.count))
        bytes.u32(needsZip64End ? 0xFFFF_FFFF : UInt32(cdSize))
        bytes.u32(needsZip64End ? 0xFFFF_FFFF : UInt32(cdOffset))
        bytes.u16(0)
        try bytes.write(to: fd, at: cdOffset, path: path)
        return cdOffset + UInt64(bytes.count)
    }
}

/// A ZIP (MS-DOS) timestamp in local time, as ZIP tools write it.
struct DOSTimestamp {
    let time: UInt16
    let date: UInt16

    static var now: DOSTimestamp { DOSTimestamp(LocalTime.now) }

    /// Seconds to even ones (the format's precision); years before 1980 as 1980, after
    /// 2107 as 2107.
    init(_ local: LocalTime) {
        let year = min(max(0, local.year - 1980), 127)
        time = UInt16(local.hour) << 11 | UInt16(local.minute) << 5 | UInt16(min(local.second, 59) / 2)
        date = UInt16(year) << 9 | UInt16(local.month) << 5 | UInt16(local.day)
    }
}

struct LittleEndianBytes {
    private(set) var bytes: [UInt8] = []
    var count: Int { bytes.count }

    mutating func u16(_ value: UInt16) { bytes += [UInt8(value & 0xFF), UInt8(value >> 8)] }
    mutating func u32(_ value: UInt32) { u16(UInt16(value & 0xFFFF)); u16(UInt16(value >> 16)) }
    mutating func u64(_ value: UInt64) { u32(UInt32(value & 0xFFFF_FFFF)); u32(UInt32(value >> 32)) }
    mutating func append(_ other: [UInt8]) { bytes += other }

    /// The fields local and central headers share, from "version needed" to the name length.
    mutating func entryFields(_ entry: Plan.Entry, _ stamp: DOSTimestamp) {
        u16(entry.versionNeeded)
        u16(0)  // flags: ASCII names, no data descriptor
        u16(0)  // stored
        u16(stamp.time)
        u16(stamp.date)
        u32(entry.crc)
        u32(entry.sizesNeedZip64 ? 0xFFFF_FFFF : UInt32(entry.size))  // compressed
        u32(entry.sizesNeedZip64 ? 0xFFFF_FFFF : UInt32(entry.size))  // uncompressed
        u16(UInt16(entry.name.count))
    }

    func write(to fd: Int32, at offset: UInt64, path: String) throws {
        try bytes.withUnsafeBytes { raw in
            try Sys.pwriteAll(fd, raw.baseAddress!, raw.count, offset, path: path)
        }
    }
}

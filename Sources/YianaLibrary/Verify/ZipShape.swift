import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What the first and last bytes of a file say about it as a ZIP, before any parsing:
/// enough to tell "not a ZIP" from "a ZIP cut off" (which every common tool calls "not a
/// zip"), and to find junk before or after the archive.
struct ZipShape {
    enum Kind: Equatable {
        /// The end-of-central-directory record is where it should be.
        case complete
        /// It starts as a ZIP but has no end record: cut off by an interrupted write or sync.
        case truncated
        /// No sign of a ZIP at all.
        case notAZip
    }

    var kind: Kind
    /// Bytes before the first local header (0 for a clean archive).
    var junkBefore: UInt64 = 0
    /// Bytes after the end record and its comment.
    var junkAfter: UInt64 = 0
    /// Where the end record is.
    var endOfCentralDirectory: UInt64?

    /// Reads at most the first 64 KiB and the last 64 KiB + 22 bytes of the file.
    static func read(fd: Int32, size: UInt64) -> ZipShape {
        let headLength = Int(min(size, 65_536))
        var head = [UInt8](repeating: 0, count: headLength)
        _ = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, headLength, 0) }
        let tailLength = Int(min(size, 65_557))
        var tail = [UInt8](repeating: 0, count: tailLength)
        _ = tail.withUnsafeMutableBytes { pread(fd, $0.baseAddress, tailLength, off_t(size) - off_t(tailLength)) }

        let localMagic: [UInt8] = [0x50, 0x4B, 0x03, 0x04]
        let firstLocal = head.indices.dropLast(3).first { head[$0] == 0x50 && Array(head[$0..<($0 + 4)]) == localMagic }
        var eocd: Int? = nil
        var index = tail.count - 22
        while index >= 0 {
            if tail[index] == 0x50, tail[index + 1] == 0x4B, tail[index + 2] == 0x05, tail[index + 3] == 0x06 {
                eocd = index
                break
            }
            index -= 1
        }
        guard let eocd else {
            return ZipShape(kind: firstLocal == nil ? .notAZip : .truncated, junkBefore: UInt64(firstLocal ?? 0))
        }
        let eocdOffset = size - UInt64(tailLength) + UInt64(eocd)
        let commentLength = UInt64(tail[eocd + 20]) | UInt64(tail[eocd + 21]) << 8
        let end = eocdOffset + 22 + commentLength
        return ZipShape(kind: .complete, junkBefore: UInt64(firstLocal ?? 0),
                        junkAfter: size > end ? size - end : 0, endOfCentralDirectory: eocdOffset)
    }
}

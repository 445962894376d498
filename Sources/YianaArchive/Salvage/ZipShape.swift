import YianaSystem

/// What the first and last bytes of a file say about it as a ZIP, before any parsing:
/// enough to tell "not a ZIP" from "a ZIP cut off" (which every common tool calls "not a
/// zip"), and to find junk before or after the archive.
public struct ZipShape: Sendable {
    public enum Kind: Sendable, Equatable {
        /// The end-of-central-directory record is where it should be.
        case complete
        /// It starts as a ZIP but has no end record: cut off by an interrupted write or sync.
        case truncated
        /// No sign of a ZIP at all.
        case notAZip
    }

    public var kind: Kind
    /// Bytes before the first local header (0 for a clean archive).
    public var junkBefore: UInt64 = 0
    /// Bytes after the end record and its comment.
    public var junkAfter: UInt64 = 0
    /// Where the end record is.
    public var endOfCentralDirectory: UInt64?

    public init(kind: Kind, junkBefore: UInt64 = 0, junkAfter: UInt64 = 0, endOfCentralDirectory: UInt64? = nil) {
        self.kind = kind
        self.junkBefore = junkBefore
        self.junkAfter = junkAfter
        self.endOfCentralDirectory = endOfCentralDirectory
    }

    /// Reads at most the first 64 KiB and the last 64 KiB + 22 bytes of the file open as
    /// `fd`, of `size` bytes; what cannot be read counts as absent.
    public static func read(fd: Int32, size: UInt64) -> ZipShape {
        let head = (try? Sys.pread(fd, count: Int(min(size, 65_536)), at: 0, path: "")) ?? []
        let tailLength = Int(min(size, 65_557))
        let tail = (try? Sys.pread(fd, count: tailLength, at: size - UInt64(tailLength), path: "")) ?? []
        guard tail.count == tailLength else { return ZipShape(kind: .notAZip) }

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
        let commentLength = UInt64(tail.u16(eocd + 20))
        let end = eocdOffset + 22 + commentLength
        return ZipShape(kind: .complete, junkBefore: UInt64(firstLocal ?? 0),
                        junkAfter: size > end ? size - end : 0, endOfCentralDirectory: eocdOffset)
    }
}

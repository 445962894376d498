#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Which version of a file is at a path: writers always rename a new file into place, so
/// another write gives another inode (and times). A replacing write can require the
/// document to still be the version its caller read (see `CoordinatedDocument`).
public struct FileIdentity: Sendable, Equatable, CustomStringConvertible {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: timespec
    let changed: timespec
    /// The file's number of names: the keeper's hard links add and remove names, and each
    /// moves the file's ctime without touching its bytes.
    let links: UInt64

    /// The file at `path` now, or nil when there is none.
    public init?(path: String) {
        guard let st = try? Sys.lstat(path) else { return nil }
        self.init(st)
    }

    /// No file at the path: expecting it, a write creates the document only if no other
    /// process has put one there meanwhile.
    public static let absent = FileIdentity(device: 0, inode: 0, size: -1, modified: timespec(), changed: timespec(), links: 0)

    /// The file at `path` now, or ``absent``.
    public static func current(at path: String) -> FileIdentity {
        FileIdentity(path: path) ?? .absent
    }

    private init(device: UInt64, inode: UInt64, size: Int64, modified: timespec, changed: timespec, links: UInt64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.changed = changed
        self.links = links
    }

    package init(_ st: FileStatus) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modified = st.st_mtim
        changed = st.st_ctim
        links = UInt64(st.st_nlink)
    }

    /// The same file at the same version: same inode, size and modification time, and the
    /// same ctime unless the number of names changed (a link made or removed moves the ctime,
    /// the bytes stay; the keeper links documents it keeps).
    public static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && (a.links != b.links || (a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec))
    }

    public var description: String { "inode \(inode), \(size) bytes" }

    /// When its inode last changed (its bytes, names or permissions), in seconds since 1970:
    /// set by the kernel, never by a program.
    package var changedSeconds: Double { Double(changed.tv_sec) + Double(changed.tv_nsec) / 1e9 }

    /// Every field, as one line of text (read back by ``matches(fingerprint:)``).
    package var fingerprint: String {
        // Written byte by byte: a listing writes one for every state it shows.
        var text = [UInt8]()
        text.reserveCapacity(96)
        text.appendDecimal(device); text.append(UInt8(ascii: " "))
        text.appendDecimal(inode); text.append(UInt8(ascii: " "))
        text.appendDecimal(size); text.append(UInt8(ascii: " "))
        text.appendDecimal(Int64(modified.tv_sec)); text.append(UInt8(ascii: "."))
        text.appendDecimal(Int64(modified.tv_nsec)); text.append(UInt8(ascii: " "))
        text.appendDecimal(Int64(changed.tv_sec)); text.append(UInt8(ascii: "."))
        text.appendDecimal(Int64(changed.tv_nsec)); text.append(UInt8(ascii: " "))
        text.appendDecimal(links)
        return String(decoding: text, as: UTF8.self)
    }

    /// True when `fingerprint` (from ``fingerprint``) names this version by the rule of `==`:
    /// a ctime moved by a link made or removed is the same version.
    package func matches(fingerprint: Substring) -> Bool {
        let fields = fingerprint.split(separator: " ")
        let mine = self.fingerprint.split(separator: " ")
        guard fields.count == mine.count else { return false }
        if fields == mine { return true }
        return fields.prefix(4) == mine.prefix(4) && fields[5] != mine[5]
    }
}

package struct FileID: Equatable, Sendable {
    package let device: UInt64
    package let inode: UInt64
}

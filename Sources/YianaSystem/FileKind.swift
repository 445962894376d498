#if canImport(Glibc)
import Glibc
#endif

/// What is at a path, without following a symbolic link.
///
/// A document is a regular file and nothing else. The toolkit never follows a symbolic link
/// (named on the command line or found in a folder it walks): a link can leave the library,
/// loop, or name one document twice, and a write through it would replace the link by a
/// file. Such a path is reported with ``refusal`` instead, and the command exits 1.
public enum FileKind: Sendable, Equatable {
    case regular
    case missing
    case folder
    case fifo
    case socket
    case device
    /// A symbolic link, with where it points (nil when that cannot be read) and whether
    /// following it ends in a loop.
    case symlink(target: String?, loops: Bool)

    /// The kind a `stat` mode says.
    public init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .folder
        case S_IFIFO: self = .fifo
        case S_IFSOCK: self = .socket
        case S_IFLNK: self = .symlink(target: nil, loops: false)
        default: self = .device
        }
    }

    /// The kind a folder entry's `d_type` says, or nil when it does not say (`DT_UNKNOWN`:
    /// some file systems leave it to `stat`).
    init?(directoryType: UInt8) {
        switch Int32(directoryType) {
        case Int32(DT_REG): self = .regular
        case Int32(DT_DIR): self = .folder
        case Int32(DT_FIFO): self = .fifo
        case Int32(DT_SOCK): self = .socket
        case Int32(DT_LNK): self = .symlink(target: nil, loops: false)
        case Int32(DT_CHR), Int32(DT_BLK): self = .device
        default: return nil
        }
    }

    /// What is at `path` now (`lstat`: a link is a link, whatever it points to).
    public static func at(_ path: String) -> FileKind {
        guard let st = try? Sys.lstat(path) else { return .missing }
        guard case .symlink = st.kind else { return st.kind }
        var loops = false
        do { _ = try Sys.stat(path) } catch { loops = error.code == .loop }
        return .symlink(target: Sys.readLink(path), loops: loops)
    }

    /// Why a file of this kind is not read as a document, in words that say what to do;
    /// nil for a regular file (and for nothing at all, which is "not found").
    public var refusal: String? {
        switch self {
        case .regular, .missing: nil
        case .folder: "a folder, not a document file (a .yianazip is a single ZIP file)"
        case .fifo: "a named pipe (FIFO), not a document file; it is never opened for reading"
        case .socket: "a socket, not a document file"
        case .device: "a device, not a document file"
        case .symlink(let target, let loops):
            "a symbolic link\(loops ? " that loops" : "")\(target.map { " (to \($0))" } ?? ""); yiana never follows links: name the file itself, or replace the link by the file"
        }
    }
}

/// One entry of a folder, read with `readdir`: its name's bytes as stored, which need not be
/// UTF-8 (a name from an old Latin-1 system, bytes FF FE). Foundation's listing would replace
/// such bytes by U+FFFD and hand back a name that opens nothing.
public struct DirectoryEntry: Sendable {
    /// The name's bytes.
    public let bytes: [UInt8]
    /// The name, when its bytes are UTF-8 (nil otherwise: no String path reaches the file).
    public let name: String?
    /// What it is (`lstat`: links not followed).
    public let kind: FileKind
    /// Its size, modification time and inode as the listing found them (nil if it vanished).
    public let stamp: FileStamp?

    /// The name for people: invalid bytes shown as `\xFF`.
    public var escapedName: String { DirectoryEntry.escape(bytes) }

    /// `bytes` as UTF-8 with every byte that is not part of valid UTF-8 written `\xNN`.
    public static func escape(_ bytes: [UInt8]) -> String {
        var result = ""
        var index = 0
        while index < bytes.count {
            // The longest valid UTF-8 sequence starting here (1 to 4 bytes).
            var taken = 0
            for length in (1...min(4, bytes.count - index)).reversed() {
                if let text = String(validating: bytes[index..<(index + length)], as: UTF8.self), text.unicodeScalars.count == 1 {
                    result += text
                    taken = length
                    break
                }
            }
            if taken == 0 {
                result += "\\x" + String(bytes[index], radix: 16, uppercase: true).leftPadded(to: 2)
                taken = 1
            }
            index += taken
        }
        return result
    }

    /// The entries of the folder at `path` (less `.` and `..`), in byte order of their names.
    /// `stamps: false` takes each entry's kind from the folder itself (`d_type`) and `stat`s
    /// only where the file system does not say it: no ``stamp``; `sorted: false` leaves them
    /// in the order the file system gives. Both together take a fraction of the time for a
    /// folder of thousands of small files.
    /// - Throws: ``SystemError`` when the folder cannot be opened.
    public static func list(_ path: String, stamps: Bool = true, sorted: Bool = true) throws(SystemError) -> [DirectoryEntry] {
        var none: [String: FileStamp] = [:]
        return try list(path, stamps: stamps, sorted: sorted, leavingOut: &none)
    }

    /// ``list(_:stamps:sorted:)`` less the files the caller already holds as they are: `same`
    /// names files of the folder with the stamp the caller holds for each. An entry the folder
    /// says (`d_type`, `d_ino`: no `stat`, no entry built) is a regular file of that name with
    /// that inode is left out of the listing and taken out of `same`, so that what remains in
    /// `same` is what the folder no longer holds as the caller knew it: changed or gone. A
    /// folder of thousands changed by one file costs its `getdents` and one lookup a name. (A
    /// file rewritten in place keeps its inode: a caller that must see that does not pass it.)
    /// - Throws: ``SystemError`` when the folder cannot be opened (`same` untouched).
    public static func list(_ path: String, stamps: Bool = true, sorted: Bool = true,
                            leavingOut same: inout [String: FileStamp]) throws(SystemError) -> [DirectoryEntry] {
        guard let folder = opendir(path) else { throw Sys.lastError("open folder", path) }
        defer { closedir(folder) }
        let folderFD = dirfd(folder)
        var entries: [DirectoryEntry] = []
        while let entry = readdir(folder) {
            if !same.isEmpty, Int32(entry.pointee.d_type) == Int32(DT_REG) {
                let name = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                    pointer.withMemoryRebound(to: CChar.self, capacity: MemoryLayout.size(ofValue: entry.pointee.d_name)) {
                        String(validatingCString: $0)
                    }
                }
                if let name, let index = same.index(forKey: name),
                   same.values[index].inode == Int64(bitPattern: UInt64(entry.pointee.d_ino)) {
                    same.remove(at: index)
                    continue
                }
            }
            let bytes: [UInt8] = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                Array(raw.prefix { $0 != 0 })
            }
            if bytes == [0x2E] || bytes == [0x2E, 0x2E] { continue }
            if !stamps, let kind = FileKind(directoryType: entry.pointee.d_type) {
                entries.append(DirectoryEntry(bytes: bytes, name: String(validating: bytes, as: UTF8.self), kind: kind, stamp: nil))
                continue
            }
            var st = stat()
            let found: Bool = withUnsafePointer(to: entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: CChar.self, capacity: bytes.count + 1) { name in
                    fstatat(folderFD, name, &st, AT_SYMLINK_NOFOLLOW) == 0
                }
            }
            entries.append(DirectoryEntry(bytes: bytes, name: String(validating: bytes, as: UTF8.self),
                                          kind: found ? FileKind(mode: st.st_mode) : .missing, stamp: found ? FileStamp(st) : nil))
        }
        if sorted { entries.sort { $0.bytes.lexicographicallyPrecedes($1.bytes) } }
        return entries
    }
}

/// What tells one version of a file from another without reading it: size, modification
/// time and inode (writers rename a new file into place, so a new version has a new inode).
public struct FileStamp: Sendable, Equatable, Hashable {
    public let size: Int64
    /// Nanoseconds since 1970.
    public let modified: Int64
    public let inode: Int64

    public init(size: Int64, modified: Int64, inode: Int64) {
        self.size = size
        self.modified = modified
        self.inode = inode
    }

    package init(_ st: FileStatus) {
        self.init(size: Int64(st.st_size), modified: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                  inode: Int64(bitPattern: UInt64(st.st_ino)))
    }

    /// The file at `path` now (`lstat`), or nil.
    public init?(path: String) {
        guard let st = try? Sys.lstat(path) else { return nil }
        self.init(st)
    }

    /// The system's clock now as ``modified`` counts (nanoseconds since 1970): about what a
    /// file changed now shows, to the file system's tick.
    public static func now() -> Int64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Int64(time.tv_sec) * 1_000_000_000 + Int64(time.tv_nsec)
    }
}

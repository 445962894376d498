import Foundation
import Synchronization
import YianaSystem

/// The journal this process replayed last, kept with where its reading stopped, so that the
/// next look reads only the lines appended since: the journal is only ever appended to, or
/// replaced whole (a prune's rewrite, by rename: another file).
///
/// What was read is trusted only while the file is the same one (device and inode), no
/// shorter, and still holds, just before where the reading stopped, the bytes it held then;
/// anything else (a rewrite, a journal copied over this one, a truncation) reads it whole.
/// The reading stops after the last complete line: a line being written, or torn by a crash,
/// is read once it is ended.
final class CatalogCache: Sendable {
    static let shared = CatalogCache()

    private struct Entry {
        let path: String
        let device: UInt64
        let inode: UInt64
        /// The bytes read, all complete lines.
        var offset: UInt64
        /// The last line read whole (up to ``tailLength`` bytes), to tell the file is still the
        /// one read: a journal copied over it in place that ends alike (the same document seen
        /// again) still differs there, in the time each line begins with.
        var tail: [UInt8]
        var catalog: KeeperCatalog
    }

    private struct State {
        var entry: Entry?
        /// How many times a journal was read whole (for the tests).
        var wholeReads = 0
    }

    private static let tailLength = 4096
    private let state = Mutex(State())

    var wholeReads: Int { state.withLock(\.wholeReads) }

    /// The catalog of `journal` as it is now.
    func catalog(of journal: KeeperJournal) -> KeeperCatalog {
        let path = journal.url.path
        return state.withLock { state -> KeeperCatalog in
            guard let fd = try? Sys.open(path, [.readOnly]) else {
                state.entry = nil
                return KeeperCatalog([])
            }
            return Sys.closeAfter(fd) { fd -> KeeperCatalog in
                guard let status = try? Sys.fstat(fd, path: path) else { return KeeperCatalog([]) }
                let device = UInt64(status.st_dev), inode = UInt64(status.st_ino), size = status.size
                if var kept = state.entry, kept.path == path, kept.device == device, kept.inode == inode, size >= kept.offset,
                   (try? Sys.pread(fd, count: kept.tail.count, at: kept.offset - UInt64(kept.tail.count), path: path)) == kept.tail {
                    guard size > kept.offset, let (events, read, tail) = Self.lines(fd, path: path, from: kept.offset, to: size) else {
                        return kept.catalog
                    }
                    // Taken out first, so that the catalog is extended in place, not copied whole.
                    state.entry = nil
                    for event in events { kept.catalog.apply(event) }
                    kept.catalog.settle()
                    kept.catalog.events += events
                    kept.offset += read
                    if read > 0 { kept.tail = tail }
                    state.entry = kept
                    return kept.catalog
                }
                state.wholeReads += 1
                guard let (events, read, tail) = Self.lines(fd, path: path, from: 0, to: size) else {
                    state.entry = nil
                    return KeeperCatalog(journal.read())
                }
                let catalog = KeeperCatalog(events)
                state.entry = Entry(path: path, device: device, inode: inode, offset: read, tail: tail, catalog: catalog)
                return catalog
            }
        }
    }

    /// The events of the complete lines of bytes `from..<to`, how many bytes they take, and
    /// their last line (its last ``tailLength`` bytes); nil when the file cannot be read.
    private static func lines(_ fd: Int32, path: String, from: UInt64, to: UInt64) -> ([KeeperEvent], UInt64, [UInt8])? {
        guard let bytes = try? Sys.pread(fd, count: Int(to - from), at: from, path: path) else { return nil }
        guard let end = bytes.lastIndex(of: UInt8(ascii: "\n")) else { return ([], 0, []) }
        let complete = bytes[...end]
        let events = complete.split(separator: 0x0A, omittingEmptySubsequences: true).compactMap { line in
            KeeperEvent(line: Substring(decoding: line, as: UTF8.self))
        }
        let lastLine = complete.dropLast().lastIndex(of: UInt8(ascii: "\n")).map { complete.index(after: $0) } ?? complete.startIndex
        return (events, UInt64(complete.count), Array(complete[lastLine...].suffix(tailLength)))
    }
}

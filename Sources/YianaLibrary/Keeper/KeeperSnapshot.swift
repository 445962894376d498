import Foundation
import YianaArchive
import YianaSystem

/// What the keeper's last whole look found, item by item in the scan's order, so that a look
/// at an unchanged library (the usual case: every indexing run, every watcher pass) is one
/// read of a small file and one comparison per document, with no journal read.
///
/// Each item is 32 bytes: a hash of its path (and whether it is a placeholder), then its
/// inode, size and modification time. An item the journal does not hold as it is now (still
/// arriving, failed) is written with an inode of -1, which nothing matches: the next look
/// reads the journal and tries it again.
struct KeeperSnapshot {
    let url: URL

    private static let magic: UInt64 = 0x5949_414E_414B_5031  // "YIANAKP1"

    /// True when `items` are, in order, what the last look recorded.
    func matches(_ items: [Keeper.Entry]) -> Bool {
        guard let data = FileManager.default.contents(atPath: url.path), data.count == 16 + 32 * items.count else { return false }
        return data.withUnsafeBytes { raw -> Bool in
            guard raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == Self.magic,
                  raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == UInt64(items.count) else { return false }
            var offset = 16
            for item in items {
                guard let stamp = item.stamp,
                      raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == Self.hash(item.path, placeholder: item.placeholder),
                      raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self) == stamp.inode,
                      raw.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self) == stamp.size,
                      raw.loadUnaligned(fromByteOffset: offset + 24, as: Int64.self) == stamp.modified else { return false }
                offset += 32
            }
            return true
        }
    }

    /// Per item of `items`: true when the last look recorded it as it is now (wherever it was
    /// in that look's order); nil when there is no snapshot to tell.
    func recorded(_ items: [Keeper.Entry]) -> [Bool]? {
        guard let data = FileManager.default.contents(atPath: url.path), data.count >= 16, (data.count - 16) % 32 == 0 else { return nil }
        return data.withUnsafeBytes { raw -> [Bool]? in
            guard raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == Self.magic,
                  raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == UInt64((data.count - 16) / 32) else { return nil }
            var recorded: [UInt64: (inode: Int64, size: Int64, modified: Int64)] = [:]
            recorded.reserveCapacity((data.count - 16) / 32)
            for offset in stride(from: 16, to: data.count, by: 32) {
                let inode = raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self)
                guard inode != -1 else { continue }
                recorded[raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)] =
                    (inode, raw.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self), raw.loadUnaligned(fromByteOffset: offset + 24, as: Int64.self))
            }
            return items.map { item in
                guard let stamp = item.stamp, let seen = recorded[Self.hash(item.path, placeholder: item.placeholder)] else { return false }
                return seen.inode == stamp.inode && seen.size == stamp.size && seen.modified == stamp.modified
            }
        }
    }

    /// Records `items`; those for which `held` is false are written never to match. When the
    /// file holds the same paths in the same order (documents changed, none came or went), only
    /// the records that differ are written, in place: a change costs its 32 bytes, not the
    /// library's (3.2 MB at 100,000 documents). Torn by a crash, a record holds each 8-byte
    /// field old or new, and matches at most what the journal, written first, already holds.
    func write(_ items: [Keeper.Entry], held: (Int) -> Bool) {
        let data = Self.encoded(items, held: held)
        if let old = FileManager.default.contents(atPath: url.path), patch(old, to: data) { return }
        // Not synced: a snapshot lost in a crash only makes the next look read the journal.
        try? TemporaryFile.replace(url.path, with: data, mode: 0o600)
    }

    /// Writes the records of `new` that differ from `old` (the file's bytes) in place; false
    /// when the two do not hold the same paths in the same order, or a write failed.
    private func patch(_ old: Data, to new: Data) -> Bool {
        guard old.count == new.count, old.prefix(16) == new.prefix(16) else { return false }
        var differing: [Int] = []
        let same = old.withUnsafeBytes { before in
            new.withUnsafeBytes { after in
                for offset in stride(from: 16, to: new.count, by: 32) {
                    guard before.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == after.loadUnaligned(fromByteOffset: offset, as: UInt64.self) else { return false }
                    if !before[offset + 8 ..< offset + 32].elementsEqual(after[offset + 8 ..< offset + 32]) { differing.append(offset) }
                }
                return true
            }
        }
        guard same else { return false }
        guard !differing.isEmpty else { return true }
        guard let fd = try? Sys.open(url.path, [.writeOnly, .noFollow]) else { return false }
        return Sys.closeAfter(fd) { fd in
            new.withUnsafeBytes { bytes in
                differing.allSatisfy { offset in
                    (try? Sys.pwriteAll(fd, bytes.baseAddress! + offset + 8, 24, UInt64(offset + 8), path: url.path)) != nil
                }
            }
        }
    }

    private static func encoded(_ items: [Keeper.Entry], held: (Int) -> Bool) -> Data {
        var data = Data(capacity: 16 + 32 * items.count)
        func put<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        put(Self.magic)
        put(UInt64(items.count))
        for (index, item) in items.enumerated() {
            let stamp = held(index) ? item.stamp : nil
            put(Self.hash(item.path, placeholder: item.placeholder))
            put(stamp?.inode ?? -1)
            put(stamp?.size ?? -1)
            put(stamp?.modified ?? -1)
        }
        return data
    }

    /// FNV-1a, 64 bits, of the path's bytes and the placeholder flag.
    static func hash(_ path: String, placeholder: Bool) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in path.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3
        }
        return (hash ^ (placeholder ? 1 : 2)) &* 0x100_0000_01B3
    }
}

import Foundation
import YianaFolder
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

    /// What the file says of `items`, read once for the whole look: each path hashed once, and
    /// the records compared in order, as the file usually holds them (a dictionary by hash only
    /// when documents came, went or moved).
    func read(_ items: [Keeper.Entry]) -> Reading {
        let hashes = items.map { Self.hash($0.path, placeholder: $0.placeholder) }
        guard let data = FileManager.default.contents(atPath: url.path), data.count >= 16, (data.count - 16) % 32 == 0 else {
            return Reading(hashes: hashes)
        }
        let count = (data.count - 16) / 32
        return data.withUnsafeBytes { raw -> Reading in
            guard raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == Self.magic,
                  raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self) == UInt64(count) else { return Reading(hashes: hashes) }
            let inOrder = count == items.count && hashes.indices.allSatisfy { raw.loadUnaligned(fromByteOffset: 16 + 32 * $0, as: UInt64.self) == hashes[$0] }
            if inOrder {
                return Reading(hashes: hashes, file: data, inOrder: true, recorded: items.indices.map { Self.holds(raw, 16 + 32 * $0, items[$0].stamp) })
            }
            var offsets: [UInt64: Int] = [:]
            offsets.reserveCapacity(count)
            for offset in stride(from: 16, to: data.count, by: 32) {
                offsets[raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)] = offset
            }
            let recorded = items.indices.map { index in offsets[hashes[index]].map { Self.holds(raw, $0, items[index].stamp) } ?? false }
            return Reading(hashes: hashes, file: data, inOrder: false, recorded: recorded)
        }
    }

    /// The snapshot as one look read it (``read(_:)``).
    struct Reading {
        /// Each item's hash, in the items' order.
        let hashes: [UInt64]
        /// The file's bytes, when it was a snapshot.
        var file: Data?
        /// True when the file holds the items' paths, in their order.
        var inOrder = false
        /// Per item: true when the last look recorded it as it is now (wherever it was in that
        /// look's order); nil when there is no snapshot to tell.
        var recorded: [Bool]?

        /// True when the items are, in order, what the last look recorded.
        var matches: Bool { inOrder && recorded?.contains(false) == false }
    }

    /// A record's inode, size and modification time: what a stamp is written as, -1 for none
    /// (never matched: no file has inode -1).
    private typealias Fields = (inode: Int64, size: Int64, modified: Int64)

    private static func fields(_ stamp: FileStamp?) -> Fields {
        stamp.map { ($0.inode, $0.size, $0.modified) } ?? (-1, -1, -1)
    }

    private static func record(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> Fields {
        (raw.loadUnaligned(fromByteOffset: offset + 8, as: Int64.self), raw.loadUnaligned(fromByteOffset: offset + 16, as: Int64.self),
         raw.loadUnaligned(fromByteOffset: offset + 24, as: Int64.self))
    }

    /// True when the record at `offset` holds `stamp` (a file that is there).
    private static func holds(_ raw: UnsafeRawBufferPointer, _ offset: Int, _ stamp: FileStamp?) -> Bool {
        guard let stamp else { return false }
        return record(raw, offset) == fields(stamp)
    }

    /// Records `items` (as `reading` found them); those for which `held` is false are written
    /// never to match. When the file holds the same paths in the same order (documents
    /// changed, none came or went), only the records that differ are written, in place: a
    /// change costs its 32 bytes, not the library's (3.2 MB at 100,000 documents). Torn by a
    /// crash, a record holds each 8-byte field old or new, and matches at most what the
    /// journal, written first, already holds.
    func write(_ items: [Keeper.Entry], as reading: Reading, held: (Int) -> Bool) {
        let fields = items.indices.map { held($0) ? Self.fields(items[$0].stamp) : Self.fields(nil) }
        if reading.inOrder, let old = reading.file, patch(old, to: fields) { return }
        // Not synced: a snapshot lost in a crash only makes the next look read the journal.
        try? TemporaryFile.replace(url.path, with: Self.encoded(reading.hashes, fields), mode: 0o600)
    }

    /// Writes in place the records of `old` (the file's bytes, which hold the same paths in
    /// the same order) whose fields differ from `new`; false when a write failed.
    private func patch(_ old: Data, to new: [Fields]) -> Bool {
        var differing: [(offset: Int, fields: Fields)] = []
        old.withUnsafeBytes { raw in
            for (index, fields) in new.enumerated() {
                let offset = 16 + 32 * index
                if Self.record(raw, offset) != fields { differing.append((offset, fields)) }
            }
        }
        guard !differing.isEmpty else { return true }
        guard let fd = try? Sys.open(url.path, [.writeOnly, .noFollow]) else { return false }
        return Sys.closeAfter(fd) { fd in
            differing.allSatisfy { change in
                [change.fields.inode.littleEndian, change.fields.size.littleEndian, change.fields.modified.littleEndian].withUnsafeBytes { bytes in
                    (try? Sys.pwriteAll(fd, bytes.baseAddress!, 24, UInt64(change.offset + 8), path: url.path)) != nil
                }
            }
        }
    }

    private static func encoded(_ hashes: [UInt64], _ fields: [Fields]) -> Data {
        var data = Data(count: 16 + 32 * hashes.count)
        data.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: Self.magic.littleEndian, toByteOffset: 0, as: UInt64.self)
            raw.storeBytes(of: UInt64(hashes.count).littleEndian, toByteOffset: 8, as: UInt64.self)
            for (index, fields) in fields.enumerated() {
                let offset = 16 + 32 * index
                raw.storeBytes(of: hashes[index].littleEndian, toByteOffset: offset, as: UInt64.self)
                raw.storeBytes(of: fields.inode.littleEndian, toByteOffset: offset + 8, as: Int64.self)
                raw.storeBytes(of: fields.size.littleEndian, toByteOffset: offset + 16, as: Int64.self)
                raw.storeBytes(of: fields.modified.littleEndian, toByteOffset: offset + 24, as: Int64.self)
            }
        }
        return data
    }

    /// FNV-1a, 64 bits, of the path's bytes and the placeholder flag.
    static func hash(_ path: String, placeholder: Bool) -> UInt64 {
        StableHash.fold([placeholder ? 1 : 2], into: StableHash.of(path))
    }
}

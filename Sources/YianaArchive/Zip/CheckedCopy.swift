import Crypto
import Foundation
import YianaSystem

/// Copies a source file into an archive being written, reading the source once, and proves
/// every copied byte by reading it back from the new file.
///
/// The file's space is reserved first (a full disk shows at once, and the writes need not
/// allocate block by block). Then two threads, one per core:
/// - the **copier** reads the source in 1 MiB blocks into a small ring of buffers (running
///   ahead of its own writes as far as the ring allows), writes each block from its buffer
///   into the new file, reads it back through a descriptor of its own, compares it byte for
///   byte with the buffer, computes the CRC-32 of what it read back, and lets the kernel
///   start writing each 8 MiB to disk once they are done, so that the final `fsync` finds
///   little left to do;
/// - the **hasher**, when asked, computes the SHA-256 of the same buffers (the app's
///   `pdfHash`, the longest single job, so nothing else runs on its thread). Without a hash
///   to compute there is no hasher: the copier frees each buffer itself once it is written.
///
/// So one read of the source gives the copy, the hash and the CRC: the file's bytes are
/// proven equal to the bytes that were hashed, and the CRC in the ZIP is that of the file's
/// own bytes. A source that changes meanwhile fails here (it ends early) or at the writer's
/// final check that it is unchanged. Memory: the ring and one read-back buffer, whatever the
/// file's size.
enum CheckedCopy {
    static let blockSize = 1 << 20
    /// Blocks copied between requests to start writing them to disk: 8 MiB a request cost
    /// 1.4–3.7 ms less on a 200 MB import than a request per block (three interleaved runs
    /// of 25; 4 and 16 blocks were measured beside them and did less well).
    static let writebackBlocks = 8

    /// Copies the whole of `file` into `fd` at `offset` (the temporary file at `path`);
    /// returns the CRC-32 of the copy and, when `hashing` or given a `prefix`, a SHA-256 fed
    /// `prefix` (the bytes before the PDF in the file, for the file's own hash) and then the
    /// source's bytes, not finalized.
    /// - Throws: ``SystemError`` on a read or write error, ``ArchiveError`` `.sourceChanged`
    ///   or `.verificationFailed`.
    static func run(_ file: SourceFile, to fd: Int32, at offset: UInt64, path: String,
                    hashing: Bool, after prefix: [UInt8]? = nil) throws -> (crc: UInt32, hasher: SHA256?) {
        let ring = BlockRing(slots: 8, blockSize: blockSize)
        defer { ring.deallocate() }
        let hasher = hashing || prefix != nil ? BackgroundWork<SHA256> {
            var sha256 = SHA256()
            if let prefix { sha256.update(data: prefix) }
            while let block = ring.nextFilled() {
                sha256.update(bufferPointer: block)
                ring.release()
            }
            return sha256
        } : nil
        let copied = Result { try copyAndCheck(file, to: fd, at: offset, path: path, ring: ring, releasing: hasher == nil) }
        ring.end()
        // The hasher reads the ring until here, so it is waited for before anything is thrown.
        let hash = try hasher?.wait()
        return (try copied.get(), hash)
    }

    /// The copier: reads, writes, reads back and compares every block, handing each to the
    /// hasher as soon as it is read; returns the copy's CRC-32. Its reads run ahead of its
    /// writes as far as the ring allows, so the hasher (the longest job) is not kept waiting
    /// while a write or a read-back takes its time. With `releasing` (no hasher), it frees
    /// each buffer itself once the block is written and checked.
    private static func copyAndCheck(_ file: SourceFile, to fd: Int32, at offset: UInt64, path: String,
                                     ring: BlockRing, releasing: Bool) throws -> UInt32 {
        try Sys.preallocate(fd, offset + file.size, path: path)
        let readBackFD = try Sys.open(path, .readOnly)
        defer { Sys.close(readBackFD) }
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: ring.blockSize, alignment: 64)
        defer { buffer.deallocate() }
        let blockSize = UInt64(ring.blockSize)
        let blocks = Int((file.size + blockSize - 1) / blockSize)
        func extent(_ block: Int) -> (start: UInt64, count: Int) {
            let start = UInt64(block) * blockSize
            return (start, Int(min(blockSize, file.size - start)))
        }
        var crc = Checksum.initial
        var read = 0, written = 0
        while written < blocks {
            // Read on while a buffer is free (the hasher is done with it and so is the copy);
            // wait for one only when there is nothing to write meanwhile.
            while read < blocks, read - written < ring.slots, let slot = ring.slotToFill(wait: read == written) {
                let (start, count) = extent(read)
                guard try Sys.pread(file.fd, slot, count, start, path: file.path) == count else {
                    throw ArchiveError(.sourceChanged(file.path), path: path)
                }
                ring.publish(count)
                read += 1
            }
            let (start, count) = extent(written)
            let slot = ring.slot(written)
            try Sys.pwriteAll(fd, slot, count, offset + start, path: path)
            let n = try Sys.pread(readBackFD, buffer, count, offset + start, path: path)
            guard n == count, Sys.sameBytes(buffer, slot, count) else {
                throw ArchiveError(.verificationFailed("content.pdf read back from the new file differs from \(file.path) at byte \(start)"), path: path)
            }
            crc = Checksum.update(crc, buffer, count)
            // Writeback starts every `writebackBlocks` blocks (and after the last one) over
            // the blocks written since: fewer, larger requests to the disk.
            if (written + 1) % writebackBlocks == 0 || written == blocks - 1 {
                let from = UInt64(written - written % writebackBlocks) * blockSize
                Sys.startWriteback(fd, offset: offset + from, length: start + UInt64(count) - from)
            }
            if releasing { ring.release() }
            written += 1
        }
        return crc
    }
}

/// A few block buffers the copier fills in order and the hasher reads in the same order; a
/// buffer is filled again only once the hasher is done with it (or, without a hasher, once
/// the copier has released it) and the copier with its write, which the copier knows itself.
private final class BlockRing: @unchecked Sendable {
    // @unchecked: the counters are read and written only while holding `condition`; a slot's
    // bytes are written by the copier before it is published and not again until the hasher
    // has released it, and the lock orders the two.
    let blockSize: Int
    let slots: Int
    private let memory: UnsafeMutableRawPointer
    private let condition = NSCondition()
    private var lengths: [Int]
    private var filled = 0, released = 0
    private var ended = false

    init(slots: Int, blockSize: Int) {
        self.slots = slots
        self.blockSize = blockSize
        memory = UnsafeMutableRawPointer.allocate(byteCount: slots * blockSize, alignment: 64)
        lengths = Array(repeating: 0, count: slots)
    }

    /// Frees the buffers; call once both threads are done.
    func deallocate() { memory.deallocate() }

    /// Copier: the buffer for the next block once the hasher is done with it; with `wait`
    /// false, nil when it is not done yet.
    func slotToFill(wait: Bool) -> UnsafeMutableRawPointer? {
        condition.lock()
        defer { condition.unlock() }
        while filled - released >= slots {
            guard wait else { return nil }
            condition.wait()
        }
        return slot(filled)
    }

    /// The buffer of block `block` (in use from its filling until the hasher has released it
    /// and the copier has written and compared it).
    func slot(_ block: Int) -> UnsafeMutableRawPointer {
        memory + (block % slots) * blockSize
    }

    /// Copier: the next block is in its buffer, `count` bytes.
    func publish(_ count: Int) {
        condition.lock()
        lengths[filled % slots] = count
        filled += 1
        condition.broadcast()
        condition.unlock()
    }

    /// Copier: no more blocks will come (the copy is done, or failed).
    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    /// Hasher: the next block in order; nil once the copier has ended and every block is read.
    func nextFilled() -> UnsafeRawBufferPointer? {
        condition.lock()
        defer { condition.unlock() }
        while filled <= released && !ended { condition.wait() }
        guard filled > released else { return nil }
        return UnsafeRawBufferPointer(start: slot(released), count: lengths[released % slots])
    }

    /// Hasher (or, without one, the copier): done with the oldest block in use.
    func release() {
        condition.lock()
        released += 1
        condition.broadcast()
        condition.unlock()
    }
}

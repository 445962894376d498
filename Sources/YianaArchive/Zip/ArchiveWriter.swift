internal import CZip
import Foundation
import YianaSystem

/// Where the PDF of a document being written comes from.
public enum PDFPayload: Sendable {
    /// An open file, read from offset 0 to its end; the caller keeps it open.
    case file(SourceFile)
    /// Bytes in memory (small documents and tests).
    case data(Data)

    var size: UInt64 {
        switch self {
        case .file(let file): file.size
        case .data(let data): UInt64(data.count)
        }
    }
}

/// An open source file and its state when it was first looked at, so that a change made
/// to it later (while it is hashed or copied) is noticed before a document is placed.
public struct SourceFile: Sendable {
    public let fd: Int32
    public let path: String
    public let size: UInt64
    private let modified: timespec
    private let changed: timespec

    /// Records the state of the file open as `fd`.
    /// - Throws: ``SystemError`` if it cannot be examined.
    public init(fd: Int32, path: String) throws {
        let st = try Sys.fstat(fd, path: path)
        self.fd = fd
        self.path = path
        size = UInt64(st.st_size)
        modified = st.st_mtim
        changed = st.st_ctim
    }

    /// Throws ``ArchiveError`` `.sourceChanged` if the file's size or times moved since `init`.
    public func checkUnchanged(writing documentPath: String) throws {
        let st = try Sys.fstat(fd, path: path)
        if UInt64(st.st_size) != size || !Self.same(st.st_mtim, modified) || !Self.same(st.st_ctim, changed) {
            throw ArchiveError(.sourceChanged(path), path: documentPath)
        }
    }

    private static func same(_ a: timespec, _ b: timespec) -> Bool { a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec }
}

/// Writes a document's ZIP into an empty file: `metadata.json`, `content.pdf` (when given)
/// and `format.json`, all stored, in the app's order. It knows nothing of temporary files,
/// locks or renames (``CoordinatedDocument`` does that around it, and has every file this
/// writes checked by libzip — structure and every CRC — before it may replace a document).
///
/// Why not libzip's writer: it pulls stored data through user space in 8 KiB steps and
/// computes the CRC on the same thread, about three times the cost of copying the PDF.
/// Stored entries need no codec, so the layout is planned up front and the PDF is copied by
/// the kernel (`copy_file_range`, as `cp` does) while its CRC-32 is computed with zlib — the
/// checksum code libzip verifies with — and every copied block is read back and checked.
/// Memory use is constant whatever the PDF's size.
enum ArchiveWriter {
    static let formatJSON = Data(#"{"formatVersion":2}"#.utf8)

    /// Sizes and offsets from which ZIP64 fields are needed; lowered in tests.
    static let zip64Limit: UInt64 = 0xFFFF_FFFF

    static func write(metadata: Data, pdf: PDFPayload?, toFD fd: Int32, path: String,
                      zip64Limit: UInt64 = zip64Limit) throws {
        _ = try write(metadata: { _ in metadata }, pdf: pdf, hashingPDF: false, toFD: fd, path: path, zip64Limit: zip64Limit)
    }

    /// Writes the archive; `metadata(nil)` gives `metadata.json`. With `hashingPDF` (and a
    /// PDF), the PDF's SHA-256 is computed while it is copied, so the source is read once:
    /// `metadata` is called with a stand-in of the hash's length to lay the archive out, then
    /// with the hash once the copy is done; the two must be the same size. Returns the hash
    /// when it was computed.
    static func write(metadata: (_ pdfSHA256: String?) throws -> Data, pdf: PDFPayload?, hashingPDF: Bool,
                      toFD fd: Int32, path: String, zip64Limit: UInt64 = zip64Limit) throws -> String? {
        let hashing = hashingPDF && pdf != nil
        let laidOut = try metadata(hashing ? FileHash.standIn : nil)
        var plan = Plan(zip64Limit: zip64Limit, path: path)
        plan.add("metadata.json", size: UInt64(laidOut.count))
        if let pdf { plan.add("content.pdf", size: pdf.size) }
        plan.add("format.json", size: UInt64(formatJSON.count))
        let stamp = DOSTimestamp.now

        do {
            var hash: String? = nil
            if let pdf {
                let index = 1
                switch pdf {
                case .data(let bytes):
                    try plan.writeSmall(index, bytes, fd: fd, stamp: stamp)
                    if hashing { hash = bytes.withUnsafeBytes { raw in FileHash.sha256 { $0(raw) } } }
                case .file(let file):
                    let entry = plan.entries[index]
                    let copied = try copyAndChecksum(file, to: fd, at: entry.dataOffset, path: path, hashing: hashing)
                    hash = copied.sha256
                    plan.setCRC(copied.crc, at: index)
                    try plan.writeLocalHeader(index, fd: fd, stamp: stamp)
                }
            }
            let final = try hash.map(metadata) ?? laidOut
            guard final.count == laidOut.count else {
                throw ArchiveError(.verificationFailed("metadata.json changed size once the PDF's hash was known"), path: path)
            }
            try plan.writeSmall(0, final, fd: fd, stamp: stamp)
            try plan.writeSmall(plan.entries.count - 1, formatJSON, fd: fd, stamp: stamp)
            try plan.writeCentralDirectory(fd: fd, stamp: stamp)
            return hash
        } catch let error as SystemError {
            throw ArchiveError(.system(error), path: path)
        }
    }

    /// Copies the whole source into `fd` at `offset` and returns its CRC-32 (and, when
    /// `hashing`, its SHA-256), checking every copied byte on the way. While the kernel copies
    /// block n+1, block n is checksummed twice: from the source, and read back through a
    /// descriptor of its own on the new file (both still in the CPU cache from the copy). The
    /// two checksums must agree, so the bytes in the new file are proven to be the source's,
    /// read back from the file itself; a source that changes meanwhile fails here too (or at
    /// the writer's final check that the source is unchanged).
    ///
    /// The read-back runs on one thread. The source's checksum runs on another, and when
    /// `hashing`, the SHA-256 is computed there from the same read of each block.
    private static func copyAndChecksum(_ file: SourceFile, to fd: Int32, at offset: UInt64, path: String,
                                        hashing: Bool) throws -> (crc: UInt32, sha256: String?) {
        let progress = CopyProgress()
        let copy = BackgroundWork<Void> {
            defer { progress.finish() }
            try copyRange(file, to: fd, at: offset, documentPath: path, progress: progress)
        }
        let source = BackgroundWork<(crc: UInt32, sha256: String?)> {
            var crc = Checksum.initial
            let follow = { (done: UInt64) in progress.wait(beyond: done) }
            let observe = { (block: UnsafeRawBufferPointer) in crc = Checksum.update(crc, block.baseAddress, block.count) }
            if hashing {
                let sha256 = try FileHash.sha256(fd: file.fd, path: file.path, readableBeyond: follow, observing: observe)
                return (crc, sha256)
            }
            try FileHash.read(fd: file.fd, path: file.path, readableBeyond: follow, observing: observe)
            return (crc, nil)
        }
        let readBack: Result<UInt32, Error>
        do {
            readBack = .success(try checksumWhileCopied(file.size, of: path, at: offset, progress: progress))
        } catch {
            readBack = .failure(error)
            progress.finish()
        }
        // All three threads are waited for (two use `file.fd`) before an error is thrown; a
        // failed copy (a full disk, say) stops the others too: its cause is reported first.
        let copied = Result { try copy.wait() }
        let sourceSums = Result { try source.wait() }
        try copied.get()
        let checksums = (source: try sourceSums.get(), readBack: try readBack.get())
        guard checksums.readBack == checksums.source.crc else {
            throw ArchiveError(.verificationFailed("content.pdf read back from the new file differs from \(file.path)"), path: path)
        }
        return checksums.source
    }

    /// The CRC-32 of the copy in the file at `path` (`size` bytes from `offset`), block by
    /// block as the copy reports them done.
    private static func checksumWhileCopied(_ size: UInt64, of path: String, at offset: UInt64,
                                            progress: CopyProgress) throws -> UInt32 {
        let fd = try Sys.open(path, .readOnly)
        defer { Sys.close(fd) }
        var readBack = Checksum.initial
        var done: UInt64 = 0
        while done < size {
            guard let available = progress.wait(beyond: done) else {
                throw ArchiveError(.verificationFailed("the copy stopped after \(done) bytes"), path: path)
            }
            readBack = try Checksum.update(readBack, fd: fd, range: (offset + done)..<(offset + available), path: path)
            // Checked: let the kernel start writing it to disk now, so that the final
            // fsync finds little left to do.
            Sys.startWriteback(fd, offset: offset + done, length: available - done)
            done = available
        }
        return readBack
    }

    /// Copies the source in the kernel (`copy_file_range`, as `cp` does), 1 MiB at a time so
    /// that a block is still in the CPU's cache when it is checksummed,
    /// reporting each block to the thread that reads it back.
    private static func copyRange(_ file: SourceFile, to fd: Int32, at offset: UInt64, documentPath: String,
                                  progress: CopyProgress) throws {
        let block: UInt64 = 1 << 20
        var done: UInt64 = 0
        while done < file.size {
            var sourceOffset = Int64(done)
            var targetOffset = Int64(offset + done)
            let n: Int
            do {
                n = try Sys.copyFileRange(from: file.fd, at: &sourceOffset, to: fd, at: &targetOffset,
                                          count: Int(min(block, file.size - done)), path: documentPath)
            } catch {
                guard done == 0, Self.copyUnsupported.contains(error.code) else { throw error }
                // Older kernels and some file systems cannot copy between these files.
                try copyByHand(file, to: fd, at: offset, documentPath: documentPath, progress: progress)
                return
            }
            guard n > 0 else { throw ArchiveError(.sourceChanged(file.path), path: documentPath) }
            done += UInt64(n)
            progress.advance(to: done)
        }
    }

    private static let copyUnsupported: [SystemError.Code] = [.crossDevice, .invalidArgument, .noSuchSystemCall, .operationNotSupported, .badDescriptor]

    private static func copyByHand(_ file: SourceFile, to fd: Int32, at offset: UInt64, documentPath: String,
                                   progress: CopyProgress) throws {
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { buffer.deallocate() }
        var done: UInt64 = 0
        while done < file.size {
            let n = try Sys.pread(file.fd, buffer, Int(min(UInt64(size), file.size - done)), done, path: file.path)
            guard n > 0 else { throw ArchiveError(.sourceChanged(file.path), path: documentPath) }
            try Sys.pwriteAll(fd, buffer, n, offset + done, path: documentPath)
            done += UInt64(n)
            progress.advance(to: done)
        }
    }
}

/// How far a copy has got, for a reader that follows it.
private final class CopyProgress: @unchecked Sendable {
    // @unchecked: every field is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var copied: UInt64 = 0
    private var finished = false

    func advance(to bytes: UInt64) {
        condition.lock()
        copied = bytes
        condition.broadcast()
        condition.unlock()
    }

    /// Marks the copy as over (done or failed); waiters see how far it got.
    func finish() {
        condition.lock()
        finished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until more than `bytes` have been copied; nil if the copy ended before that.
    func wait(beyond bytes: UInt64) -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        while copied <= bytes && !finished { condition.wait() }
        return copied > bytes ? copied : nil
    }
}

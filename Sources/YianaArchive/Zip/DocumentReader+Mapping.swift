import Foundation
import YianaSystem

/// A document's PDF, CRC-checked, for a reader such as poppler, in constant memory: a range
/// of the archive for a stored entry (and the legacy format), or an unlinked scratch file
/// holding exactly the PDF for a compressed one. Nothing is held in memory: ``read(_:)``
/// streams the bytes (for hashes), ``wholeFile`` hands a scratch file to a reader that reads
/// a file itself, and ``mapped()`` maps the range only when a reader needs the bytes in memory
/// (only the pages it touches are read in).
public final class PDFBytes: @unchecked Sendable {
    // @unchecked: immutable after init but for the mapping, which `lock` guards.
    /// A descriptor of this object's own (duplicated, or the scratch file's), closed in deinit.
    private let fd: Int32
    private let offset: UInt64
    /// The PDF's size in bytes.
    public let count: Int
    private let isWholeFile: Bool
    private let path: String
    /// The bytes' CRC-32: checked against the archive's, or computed for the legacy format.
    public internal(set) var crc32: UInt32 = 0
    private let lock = NSLock()
    private var mapping: (base: UnsafeRawPointer, length: Int, start: Int)?

    init(ownedFD fd: Int32, offset: UInt64, count: Int, wholeFile: Bool, path: String) {
        self.fd = fd
        self.offset = offset
        self.count = count
        self.isWholeFile = wholeFile
        self.path = path
    }

    deinit {
        if let mapping { Sys.unmap(mapping.base, length: mapping.length) }
        Sys.close(fd)
    }

    /// A descriptor of a file that holds exactly the PDF (a compressed PDF's scratch file),
    /// valid while this object lives; nil when the PDF is a range of the archive.
    public var wholeFile: Int32? { isWholeFile ? fd : nil }

    /// Streams the bytes to `body` in chunks of up to 1 MiB (`pread`: the page cache, not
    /// this process's memory).
    public func read(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let chunk = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunk, alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < count {
            let n: Int
            do { n = try Sys.pread(fd, buffer.baseAddress!, min(chunk, count - done), offset + UInt64(done), path: path) } catch {
                throw ArchiveError(.system(error), path: path)
            }
            guard n > 0 else { throw ArchiveError(.entryTruncated("content.pdf"), path: path) }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            done += n
        }
    }

    /// The bytes in memory: a read-only mapping made on first use, valid while this object
    /// lives. The file is never changed under it: writers rename a new file over a document.
    public func mapped() throws -> UnsafeRawBufferPointer {
        lock.lock()
        defer { lock.unlock() }
        if let mapping { return UnsafeRawBufferPointer(start: mapping.base + mapping.start, count: count) }
        guard count > 0 else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let start = offset - offset % Sys.pageSize
        let length = Int(offset - start) + count
        let base: UnsafeRawPointer
        do { base = try Sys.mapReadOnly(fd, offset: start, length: length, path: path) } catch {
            throw ArchiveError(.system(error), path: path)
        }
        mapping = (base, length, Int(offset - start))
        return UnsafeRawBufferPointer(start: base + Int(offset - start), count: count)
    }
}

extension DocumentReader {
    /// The PDF, its CRC checked before it is handed out (``PDFBytes``): for a stored entry
    /// (and the legacy format) its range of the file this reader opened; a compressed entry is
    /// inflated through libzip into an unlinked scratch file.
    /// `observe` sees every byte once, in order, in the pass that checks the CRC (to hash
    /// the PDF without reading it again).
    /// - Throws: ``ArchiveError`` (`.missingPDF`, `.crcMismatch`, `.implausibleEntry`, `.system`).
    public func pdfBytes(observing observe: (UnsafeRawBufferPointer) -> Void = { _ in }) throws -> PDFBytes {
        guard let entry = pdf else { throw ArchiveError(.missingPDF, path: path) }
        guard let range = entry.byteRange else { return try inflatedPDF(entry, observe) }
        let own: Int32
        do { own = try Sys.dup(fd, path: path) } catch { throw ArchiveError(.system(error), path: path) }
        let bytes = PDFBytes(ownedFD: own, offset: range.lowerBound, count: Int(range.count), wholeFile: false, path: path)
        var crc = Checksum.initial
        try bytes.read { chunk in
            crc = Checksum.update(crc, chunk.baseAddress, chunk.count)
            observe(chunk)
        }
        bytes.crc32 = crc
        if let expected = entry.crc32, crc != expected {
            throw ArchiveError(.crcMismatch(entry: entry.name), path: path)
        }
        return bytes
    }

    /// A compressed PDF inflated (through libzip, CRC-checked) into an unlinked scratch file
    /// of this machine's cache folder: memory use does not grow with its size.
    private func inflatedPDF(_ entry: DocumentEntry, _ observe: (UnsafeRawBufferPointer) -> Void) throws -> PDFBytes {
        let folder = LocalFolders.cache().path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scratchPath = folder + "/inflated-pdf-\(UInt64.random(in: 0...UInt64.max))"
        let scratch: Int32
        do {
            scratch = try Sys.open(scratchPath, [.readWrite, .create, .exclusive], mode: 0o600)
        } catch {
            throw ArchiveError(.system(error), path: path)
        }
        Sys.removeIfPresent(scratchPath)  // gone when closed, even if this process is killed
        let bytes = PDFBytes(ownedFD: scratch, offset: 0, count: Int(entry.size), wholeFile: true, path: scratchPath)
        try readPDF { chunk in  // libzip checks the CRC
            do throws(SystemError) {
                try Sys.writeAll(scratch, chunk.baseAddress!, chunk.count, path: scratchPath)
            } catch {
                throw ArchiveError(.system(error), path: scratchPath)
            }
            observe(chunk)
        }
        bytes.crc32 = entry.crc32 ?? 0
        return bytes
    }
}

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A document's PDF held in memory for a reader such as poppler: mapped straight from the
/// archive for a stored entry (no copy, no temporary file), read out for a compressed one.
public final class PDFBytes: @unchecked Sendable {
    // @unchecked: the bytes are immutable once made; the mapping is released in deinit only.
    /// The PDF's bytes; valid as long as this object lives.
    public let bytes: UnsafeRawBufferPointer
    /// The bytes' CRC-32: checked against the archive's, or computed for the legacy format.
    public internal(set) var crc32: UInt32 = 0
    /// The mapping (or, with length -1, the heap copy) to release.
    private let mapping: (base: UnsafeMutableRawPointer, length: Int)?

    init(mapping base: UnsafeMutableRawPointer, length: Int, range: Range<Int>) {
        mapping = (base, length)
        bytes = UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    init(copy data: Data) {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { raw in
            if let source = raw.baseAddress { copy.copyMemory(from: source, byteCount: raw.count) }
        }
        mapping = (copy, -1)
        bytes = UnsafeRawBufferPointer(start: copy, count: data.count)
    }

    deinit {
        guard let mapping else { return }
        if mapping.length < 0 {
            mapping.base.deallocate()
        } else {
            munmap(mapping.base, mapping.length)
        }
    }
}

extension DocumentReader {
    /// The PDF as bytes in memory, its CRC checked before it is handed out: for a stored
    /// entry (and the legacy format) a read-only mapping of its range of the file, so a large
    /// PDF costs no copy; a compressed entry is read out through libzip.
    ///
    /// The mapping is of the file opened by this reader: a writer that replaces the document
    /// renames a new file over it and never changes this one. (A program that truncated the
    /// file in place while it is mapped would make reading it fault.)
    /// - Throws: ``ArchiveError`` (`.missingPDF`, `.crcMismatch`, `.system`).
    public func pdfBytes() throws -> PDFBytes {
        guard let entry = pdf else { throw ArchiveError(.missingPDF, path: path) }
        guard let range = entry.byteRange else { return try inflatedPDF(entry) }
        guard range.count > 0 else { return PDFBytes(copy: Data()) }
        let mapped = try Self.map(fd: fd, range, path: path)
        mapped.crc32 = Checksum.update(Checksum.initial, mapped.bytes.baseAddress, mapped.bytes.count)
        if let expected = entry.crc32, mapped.crc32 != expected {
            throw ArchiveError(.crcMismatch(entry: entry.name), path: path)
        }
        return mapped
    }

    /// A read-only mapping of `range` of the file open as `fd`.
    private static func map(fd: Int32, _ range: Range<UInt64>, path: String) throws -> PDFBytes {
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let start = range.lowerBound - range.lowerBound % pageSize
        let length = Int(range.upperBound - start)
        guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, fd, off_t(start)), base != MAP_FAILED else {
            throw ArchiveError(.system(Sys.lastError("map", path)), path: path)
        }
        _ = madvise(base, length, MADV_SEQUENTIAL)
        return PDFBytes(mapping: base, length: length, range: Int(range.lowerBound - start)..<length)
    }

    /// A compressed PDF inflated (through libzip, CRC-checked) into an unlinked scratch file
    /// of this machine's cache folder and mapped from there: memory use does not grow with
    /// its size, where holding it in memory would cost it twice.
    private func inflatedPDF(_ entry: DocumentEntry) throws -> PDFBytes {
        let folder = LocalFolders.cache().path
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scratchPath = folder + "/inflated-pdf-\(UInt64.random(in: 0...UInt64.max))"
        let scratch: Int32
        do {
            scratch = try Sys.open(scratchPath, O_RDWR | O_CREAT | O_EXCL, mode: 0o600)
        } catch {
            throw ArchiveError(.system(error), path: path)
        }
        unlink(scratchPath)  // gone when closed and unmapped, even if this process is killed
        defer { Sys.close(scratch) }
        try readPDF { chunk in  // libzip checks the CRC
            do throws(SystemError) {
                try Sys.writeAll(scratch, chunk.baseAddress!, chunk.count, path: scratchPath)
            } catch {
                throw ArchiveError(.system(error), path: scratchPath)
            }
        }
        guard entry.size > 0 else { return PDFBytes(copy: Data()) }
        let mapped = try Self.map(fd: scratch, 0..<entry.size, path: scratchPath)
        mapped.crc32 = entry.crc32 ?? Checksum.update(Checksum.initial, mapped.bytes.baseAddress, mapped.bytes.count)
        return mapped
    }
}

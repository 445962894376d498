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
        guard let range = entry.byteRange else {
            var data = Data()
            try readPDF { data.append(contentsOf: $0) }  // libzip checks the CRC
            let copy = PDFBytes(copy: data)
            copy.crc32 = entry.crc32 ?? Checksum.crc32(data)
            return copy
        }
        guard range.count > 0 else { return PDFBytes(copy: Data()) }
        let pageSize = UInt64(sysconf(Int32(_SC_PAGESIZE)))
        let start = range.lowerBound - range.lowerBound % pageSize
        let length = Int(range.upperBound - start)
        guard let base = mmap(nil, length, PROT_READ, MAP_SHARED, fd, off_t(start)), base != MAP_FAILED else {
            throw ArchiveError(.system(Sys.lastError("map", path)), path: path)
        }
        _ = madvise(base, length, MADV_SEQUENTIAL)
        let mapped = PDFBytes(mapping: base, length: length, range: Int(range.lowerBound - start)..<length)
        mapped.crc32 = Checksum.update(Checksum.initial, mapped.bytes.baseAddress, mapped.bytes.count)
        if let expected = entry.crc32, mapped.crc32 != expected {
            throw ArchiveError(.crcMismatch(entry: entry.name), path: path)
        }
        return mapped
    }
}

import Foundation
import YianaSystem

/// Reads one `.yianazip` file in any of its formats.
///
/// Opening checks the archive's layout strictly (only the three known entry names, no
/// hostile names, duplicates, links, encryption, size lies or overlaps), then has libzip
/// check it again (``Checks``); reading checks the CRC of every byte. It takes no lock: use
/// ``CoordinatedDocument/read(_:timeout:_:)`` for a document that another process may be
/// writing.
public final class DocumentReader {
    /// How much opening checks.
    public enum Checks: Sendable {
        /// The toolkit's own layout check, then libzip's (which also compares every local
        /// header with the central directory): a file that opens is one the app can open.
        case full
        /// The layout check only, with libzip's left to the first entry read through it (a
        /// compressed entry, `readEntry`, `verifyContents`): for scans that only need the
        /// metadata and the central directory's facts of thousands of files. The metadata
        /// read this way is still checked against its CRC.
        case layout
    }

    public let path: String
    public private(set) var format: DocumentFormat
    /// The entries present, in file order.
    public let entries: [DocumentEntry]
    /// The size of the whole file.
    public let fileSize: UInt64
    /// Bytes of a ZIP file that no entry, central directory or end record accounts for
    /// (empty for a clean archive and for the legacy formats).
    public let gaps: [ZipGap]

    let fd: Int32
    /// libzip's view of the file, opened by ``archive()``; nil until then and for legacy files.
    private var zip: ZipArchive?
    private let zipIndex: [String: Int]
    /// Reads the file (from memory where it was read whole).
    private let bytes: ByteReader

    /// The largest `metadata.json` read; the app's, with OCR text of a long book, stays far below.
    public static let metadataLimit: UInt64 = 16 << 20
    static let knownNames: Set<String> = ["metadata.json", "content.pdf", "format.json"]

    /// Opens and checks the file at `path`.
    /// - Throws: ``ArchiveError`` naming the file and, for each kind of refusal, its own case.
    public init(path: String, checks: Checks = .full) throws {
        self.path = path
        let (fd, size) = try RegularFile.openForReadingWithSize(path)
        self.fd = fd
        fileSize = size
        // Once every property is set, a throw runs deinit, which closes `fd`: the catch
        // below must not close it too (a second close would shut whatever file another
        // thread had opened under that number meanwhile).
        var built = false
        do {
            // A document of up to 64 KiB is read whole, once: its headers and small entries
            // then come from memory.
            var reader = ByteReader(fd: fd, path: path)
            if fileSize <= ZipLayout.tailLimit {
                let whole = try reader.bytes(at: 0, count: Int(fileSize))
                if whole.count == fileSize { reader.cache = (0, whole) }
            }
            let head = try reader.bytes(at: 0, count: Int(min(64, fileSize)))
            if let first = head.first(where: { !Self.isJSONWhitespace($0) }), first == UInt8(ascii: "{") {
                let legacy = try Self.readLegacyLayout(fd: fd, path: path, fileSize: fileSize)
                // Nothing after the separator: the app read no PDF (`pdfData = nil`), not an empty one.
                let pdfRange = legacy.pdf.flatMap { $0.isEmpty ? nil : $0 }
                format = legacy.pdf == nil ? .legacyMetadataOnly : pdfRange == nil ? .legacySeparatorNoPDF : .legacySeparator
                var found = [DocumentEntry(name: "metadata.json", size: UInt64(legacy.metadata.count), storedSize: UInt64(legacy.metadata.count),
                                           compressionMethod: nil, crc32: nil, byteRange: legacy.metadata)]
                if let pdf = pdfRange {
                    found.append(DocumentEntry(name: "content.pdf", size: UInt64(pdf.count), storedSize: UInt64(pdf.count),
                                               compressionMethod: nil, crc32: nil, byteRange: pdf))
                }
                entries = found
                zip = nil
                zipIndex = [:]
                gaps = []
                bytes = reader
                return
            }
            if head.starts(with: Array("%PDF-".utf8)) { throw ArchiveError(.barePDF, path: path) }
            guard head.count >= 4 else {
                throw ArchiveError(.notADocument(reason: head.isEmpty ? "the file is empty" : "the file is too short"), path: path)
            }
            let layout = try Self.checkedLayout(reader, fileSize: fileSize)
            bytes = reader
            gaps = layout.gaps()
            var index: [String: Int] = [:]
            for (i, entry) in layout.entries.enumerated() { index[entry.name] = i }
            zipIndex = index
            entries = layout.entries.map { entry in
                DocumentEntry(name: entry.name, size: entry.uncompressedSize, storedSize: entry.compressedSize,
                              compressionMethod: entry.method, crc32: entry.crc32,
                              byteRange: entry.method == 0 ? entry.dataRange : nil)
            }
            format = .zip(formatVersion: 0, hasFormatFile: false)
            built = true
            if checks == .full { _ = try archive() }
            guard index["metadata.json"] != nil else { throw ArchiveError(.missingMetadata, path: path) }
            let formatData = try entry("format.json").map { try smallEntry($0, limit: Self.formatLimit) }
            format = .zip(formatVersion: try Self.formatVersion(formatData, path: path), hasFormatFile: formatData != nil)
        } catch {
            if !built { Sys.close(fd) }
            throw error
        }
    }

    deinit {
        Sys.close(fd)
    }

    /// libzip's view of the file, opened (and cross-checked with the toolkit's layout) on
    /// first use.
    private func archive() throws -> ZipArchive {
        if let zip { return zip }
        let archive = try ZipArchive(fd: fd, path: path)
        guard archive.entryCount == zipIndex.count else {
            throw ArchiveError(.damagedStructure("libzip sees \(archive.entryCount) entries, the central directory \(zipIndex.count)"), path: path)
        }
        zip = archive
        return archive
    }

    /// A small entry read whole, refusing one over `limit` bytes without allocating it. A
    /// stored entry is read directly and checked against its CRC; a compressed one through libzip.
    private func smallEntry(_ entry: DocumentEntry, limit: UInt64) throws -> Data {
        guard let index = zipIndex[entry.name] else {
            var data = Data()
            try readRange(entry.byteRange!) { data.append(contentsOf: $0) }
            return data
        }
        guard entry.size <= limit else { throw ArchiveError(.entryTooLarge(entry.name, limit: limit), path: path) }
        guard let range = entry.byteRange, let expected = entry.crc32 else {
            return try archive().readSmall(index: index, name: entry.name, expectedSize: entry.size, limit: limit)
        }
        var data: Data
        if let cached = bytes.cached(at: range.lowerBound, count: Int(range.count)) {
            data = Data(cached)
        } else {
            data = Data(count: Int(range.count))
            try data.withUnsafeMutableBytes { try readExactly($0, at: range.lowerBound, entry: entry.name) }
        }
        let crc = data.withUnsafeBytes { Checksum.update(Checksum.initial, $0.baseAddress, $0.count) }
        guard crc == expected else { throw ArchiveError(.crcMismatch(entry: entry.name), path: path) }
        return data
    }

    /// Fills `buffer` from `offset`; a file that ends first has `entry` truncated.
    private func readExactly(_ buffer: UnsafeMutableRawBufferPointer, at offset: UInt64, entry: String) throws {
        var filled = 0
        while filled < buffer.count {
            let n: Int
            do { n = try Sys.pread(fd, buffer.baseAddress! + filled, buffer.count - filled, offset + UInt64(filled), path: path) } catch {
                throw ArchiveError(.system(error), path: path)
            }
            guard n > 0 else { throw ArchiveError(.entryTruncated(entry), path: path) }
            filled += n
        }
    }

    /// The entry named `name`, if present.
    public func entry(_ name: String) -> DocumentEntry? {
        entries.first { $0.name == name }
    }

    /// The PDF entry, if the document has a PDF.
    public var pdf: DocumentEntry? { entry("content.pdf") }

    /// True when `format.json` names a version this toolkit can rewrite without loss.
    public var isSupportedVersion: Bool {
        if case .zip(let version, _) = format { return version <= DocumentFormat.currentVersion }
        return true
    }

    /// The raw bytes of `metadata.json`, CRC-checked.
    public func metadataData() throws -> Data {
        guard let entry = entry("metadata.json") else { throw ArchiveError(.missingMetadata, path: path) }
        return try smallEntry(entry, limit: Self.metadataLimit)
    }

    /// The decoded metadata, without reading the PDF.
    /// - Throws: ``ArchiveError`` with ``ArchiveError/Kind/metadata(_:)`` naming the key at fault.
    public func metadata() throws -> DocumentMetadata {
        let data = try metadataData()
        do {
            return try DocumentMetadata(jsonData: data, file: path)
        } catch {
            throw ArchiveError(.metadata(error), path: path)
        }
    }

    /// Streams `content.pdf` to `body` in chunks of up to 1 MiB, checking the CRC; memory
    /// use does not grow with the PDF's size.
    public func readPDF(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard let entry = pdf else { throw ArchiveError(.missingPDF, path: path) }
        try readEntry(entry, body)
    }

    /// Streams any entry to `body`, checking its CRC. A compressed `content.pdf` must start
    /// as a PDF does: its first inflated chunk is checked before any more is inflated.
    public func readEntry(_ entry: DocumentEntry, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let index = zipIndex[entry.name] {
            let zip = try archive()
            var first = entry.name == "content.pdf" && entry.compressionMethod != 0
            try zip.read(index: index, name: entry.name, expectedSize: entry.size) { chunk in
                if first {
                    first = false
                    let head = chunk.prefix(1024)
                    let marker = Array("%PDF-".utf8)
                    guard head.count >= marker.count, (0...(head.count - marker.count)).contains(where: { offset in
                        marker.indices.allSatisfy { head[head.startIndex + offset + $0] == marker[$0] }
                    }) else {
                        throw ArchiveError(.implausibleEntry(entry.name, reason: "does not start as a PDF (no %PDF- in its first bytes)"), path: path)
                    }
                }
                try body(chunk)
            }
        } else if let range = entry.byteRange {
            try readRange(range, body)
        }
    }

    /// Writes `content.pdf` to the file descriptor `out`.
    public func writePDF(toFD out: Int32, outPath: String) throws {
        try readPDF { chunk in
            do {
                try Sys.writeAll(out, chunk.baseAddress!, chunk.count, path: outPath)
            } catch let error as SystemError {
                throw ArchiveError(.system(error), path: outPath)
            }
        }
    }

    /// Reads every entry to its end (so every CRC is checked), decodes the metadata and
    /// checks the format version: the core of `verify`, and what the writer runs on each
    /// file before it replaces a document.
    ///
    /// With `pdfBytesChecked`, the PDF's bytes are not read again: for a file whose writer
    /// has already read every copied PDF byte back and checked it against the source's CRC.
    /// Its entry is still checked by structure (libzip's consistency check of local and
    /// central headers, sizes, overlaps).
    @discardableResult
    public func verifyContents(pdfBytesChecked: Bool = false) throws -> DocumentMetadata {
        if !zipIndex.isEmpty { _ = try archive() }
        for entry in entries where entry.name != "metadata.json" {
            if pdfBytesChecked, entry.name == "content.pdf" { continue }
            try readEntry(entry) { _ in }
        }
        guard isSupportedVersion else {
            if case .zip(let version, _) = format { throw ArchiveError(.unsupportedFormatVersion(version), path: path) }
            return try metadata()
        }
        return try metadata()
    }

    private func readRange(_ range: Range<UInt64>, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        let chunkSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var offset = range.lowerBound
        while offset < range.upperBound {
            let want = Int(min(UInt64(chunkSize), range.upperBound - offset))
            let n: Int
            do { n = try Sys.pread(fd, buffer.baseAddress!, want, offset, path: path) } catch {
                throw ArchiveError(.system(error), path: path)
            }
            guard n > 0 else { throw ArchiveError(.entryTruncated("the file"), path: path) }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            offset += UInt64(n)
        }
    }

    private static func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0xEF || byte == 0xBB || byte == 0xBF
    }
}

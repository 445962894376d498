import Crypto
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
    /// The CRC-32 of its bytes, when it is known before they are read (a PDF exported,
    /// CRC-checked, from a document): the writer can then lay out what comes before the PDF
    /// first and hash the whole new file in the pass that copies it (``ArchiveWriter``).
    public var crc32: UInt32?
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
/// Stored entries need no codec, so the layout is planned up front and the PDF is copied to
/// its place in 1 MiB blocks, each read back and checked (``CheckedCopy``), with its hash on
/// a second core. Memory use is constant whatever the PDF's size.
enum ArchiveWriter {
    static let formatJSON = Data(#"{"formatVersion":2}"#.utf8)

    /// Sizes and offsets from which ZIP64 fields are needed; lowered in tests.
    static let zip64Limit: UInt64 = 0xFFFF_FFFF

    static func write(metadata: Data, pdf: PDFPayload?, toFD fd: Int32, path: String,
                      zip64Limit: UInt64 = zip64Limit) throws {
        _ = try write(metadata: { _ in metadata }, pdf: pdf, hashingPDF: false, toFD: fd, path: path, zip64Limit: zip64Limit)
    }

    /// What a write computed on the way.
    struct Hashes {
        /// The PDF's SHA-256 (with `hashingPDF`).
        var pdf: String?
        /// The whole file's SHA-256, when it could be had in the pass that copied the PDF
        /// (a PDF file whose CRC-32 was known beforehand, and no PDF hash to compute).
        var file: String?
    }

    /// Writes the archive; `metadata(nil)` gives `metadata.json`. With `hashingPDF` (and a
    /// PDF), the PDF's SHA-256 is computed while it is copied, so the source is read once:
    /// `metadata` is called with a stand-in of the hash's length to lay the archive out, then
    /// with the hash once the copy is done; the two must be the same size.
    ///
    /// Without `hashingPDF`, a PDF file whose CRC-32 is known (``SourceFile/crc32``) lets the
    /// whole file be hashed in the same pass: what precedes the PDF (metadata and the local
    /// headers) is written first and hashed, then the PDF's blocks as they are copied, then
    /// what follows; the copy's CRC must be the one announced. The metadata and the PDF
    /// placed otherwise (the PDF's hash in `metadata.json`, its CRC in its local header, both
    /// before it) can be hashed in file order only by reading the file again. Only with
    /// `hashingFile` (someone wants the file's hash: the keeper).
    static func write(metadata: (_ pdfSHA256: String?) throws -> Data, pdf: PDFPayload?, hashingPDF: Bool, hashingFile: Bool = true,
                      toFD fd: Int32, path: String, zip64Limit: UInt64 = zip64Limit) throws -> Hashes {
        let hashing = hashingPDF && pdf != nil
        let laidOut = try metadata(hashing ? FileHash.standIn : nil)
        var plan = Plan(zip64Limit: zip64Limit, path: path)
        plan.add("metadata.json", size: UInt64(laidOut.count))
        if let pdf { plan.add("content.pdf", size: pdf.size) }
        plan.add("format.json", size: UInt64(formatJSON.count))
        let stamp = DOSTimestamp.now

        do {
            var hashes = Hashes()
            var fileHash: SHA256?
            if let pdf {
                let index = 1
                switch pdf {
                case .data(let bytes):
                    try plan.writeSmall(index, bytes, fd: fd, stamp: stamp)
                    if hashing { hashes.pdf = bytes.withUnsafeBytes { raw in FileHash.sha256 { $0(raw) } } }
                case .file(let file):
                    let entry = plan.entries[index]
                    var prefix: [UInt8]? = nil
                    if !hashing, hashingFile, let crc = file.crc32 {
                        plan.setCRC(crc, at: index)
                        try plan.writeSmall(0, laidOut, fd: fd, stamp: stamp)
                        try plan.writeLocalHeader(index, fd: fd, stamp: stamp)
                        prefix = try readBack(path, 0..<entry.dataOffset)
                    }
                    let copied = try CheckedCopy.run(file, to: fd, at: entry.dataOffset, path: path, hashing: hashing, after: prefix)
                    if prefix != nil {
                        guard copied.crc == file.crc32 else {
                            throw ArchiveError(.verificationFailed("content.pdf copied from \(file.path) has another CRC-32 than the one it was exported with"), path: path)
                        }
                        fileHash = copied.hasher
                    } else {
                        hashes.pdf = copied.hasher.map { FileHash.hex($0.finalize()) }
                    }
                    plan.setCRC(copied.crc, at: index)
                    try plan.writeLocalHeader(index, fd: fd, stamp: stamp)
                }
            }
            let final = try hashes.pdf.map(metadata) ?? laidOut
            guard final.count == laidOut.count else {
                throw ArchiveError(.verificationFailed("metadata.json changed size once the PDF's hash was known"), path: path)
            }
            try plan.writeSmall(0, final, fd: fd, stamp: stamp)
            try plan.writeSmall(plan.entries.count - 1, formatJSON, fd: fd, stamp: stamp)
            let end = try plan.writeCentralDirectory(fd: fd, stamp: stamp)
            if var fileHash {
                let after = plan.entries[1].dataOffset + plan.entries[1].size
                fileHash.update(data: try readBack(path, after..<end))
                hashes.file = FileHash.hex(fileHash.finalize())
            }
            return hashes
        } catch let error as SystemError {
            throw ArchiveError(.system(error), path: path)
        }
    }

    /// The bytes of `range` of the file being written at `path`, read back through a
    /// descriptor of their own (what will be hashed is what the file holds).
    private static func readBack(_ path: String, _ range: Range<UInt64>) throws -> [UInt8] {
        let fd = try Sys.open(path, .readOnly)
        defer { Sys.close(fd) }
        let bytes = try Sys.pread(fd, count: Int(range.count), at: range.lowerBound, path: path)
        guard bytes.count == range.count else {
            throw ArchiveError(.verificationFailed("the new file holds \(bytes.count) of the \(range.count) bytes written at \(range.lowerBound)"), path: path)
        }
        return bytes
    }
}

import YianaSystem
/// How a `.yianazip` file stores its document.
public enum DocumentFormat: Sendable, Equatable, CustomStringConvertible {
    /// The current ZIP format. `formatVersion` comes from `format.json` (2 when absent).
    case zip(formatVersion: Int, hasFormatFile: Bool)
    /// Legacy: metadata JSON, the bytes FF FF FF FF, then the PDF.
    case legacySeparator
    /// Legacy: the metadata JSON alone, no PDF.
    case legacyMetadataOnly
    /// Legacy: metadata JSON and the separator with nothing after it. The app read this as a
    /// document without a PDF (`pdfData = nil`), not as an empty PDF.
    case legacySeparatorNoPDF

    /// The newest `formatVersion` this toolkit reads and writes.
    public static let currentVersion = 2

    /// A short stable name for scripts.
    public var name: String {
        switch self {
        case .zip: "zip"
        case .legacySeparator: "legacy-separator"
        case .legacyMetadataOnly: "legacy-metadata-only"
        case .legacySeparatorNoPDF: "legacy-separator-no-pdf"
        }
    }

    /// True for the two legacy formats, which `repair` can migrate.
    public var isLegacy: Bool {
        if case .zip = self { return false }
        return true
    }

    public var description: String {
        switch self {
        case .zip(let version, let hasFormatFile):
            "ZIP archive, format version \(version)\(hasFormatFile ? "" : " (no format.json; read as version 2)")"
        case .legacySeparator: "legacy format: metadata, FF FF FF FF separator, PDF"
        case .legacyMetadataOnly: "legacy format: metadata JSON only, no PDF"
        case .legacySeparatorNoPDF: "legacy format: metadata and FF FF FF FF separator with nothing after it (a document without a PDF)"
        }
    }
}

/// One part of a document as stored in its file.
public struct DocumentEntry: Sendable, Equatable {
    /// `metadata.json`, `content.pdf` or `format.json`.
    public let name: String
    /// The entry's content size in bytes.
    public let size: UInt64
    /// Bytes it takes in the file (equal to `size` when stored).
    public let storedSize: UInt64
    /// 0 stored, 8 deflated; nil for the legacy formats.
    public let compressionMethod: UInt16?
    /// The CRC-32 the archive records; nil for the legacy formats, which have none.
    public let crc32: UInt32?
    /// Where the content lies in the file when it is stored uncompressed, so it can be
    /// read (or memory-mapped) in place without a copy; nil when compressed.
    public let byteRange: Range<UInt64>?
}

extension DocumentReader {
    /// Identifies a document's content without reading it: the CRC-32s of `metadata.json`
    /// and `content.pdf` and the PDF's size, from the central directory. Two documents with
    /// equal keys have the same metadata and PDF bytes. Nil for the legacy formats, which
    /// record no checksums.
    public var contentKey: String? {
        guard !format.isLegacy, let metadata = entry("metadata.json"), let metadataCRC = metadata.crc32 else { return nil }
        return String(metadataCRC, radix: 16).leftPadded(to: 8) + "-" + Self.pdfKey(crc32: pdf?.crc32 ?? 0, size: pdf?.size ?? 0)
    }

    /// The part of a ``contentKey`` that a PDF of this CRC-32 and size gives (its end).
    public static func pdfKey(crc32: UInt32, size: UInt64) -> String {
        String(crc32, radix: 16).leftPadded(to: 8) + "-\(size)"
    }
}

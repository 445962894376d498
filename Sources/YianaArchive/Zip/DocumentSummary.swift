import Foundation

/// What `yiana info` shows of a document: its format, entries and metadata, read without
/// touching the PDF. Metadata that does not decode is reported, not thrown.
public struct DocumentSummary: Encodable, Sendable {
    public struct Entry: Encodable, Sendable {
        public let name: String
        public let size: UInt64
        public let storedSize: UInt64
        /// `stored`, `deflated` or `method N`; nil for the legacy format.
        public let compression: String?
        /// Hex, as `unzip -v` shows it.
        public let crc32: String?
        public let offset: UInt64?
    }

    public let path: String
    public let format: String
    public let formatVersion: Int?
    public let formatDescription: String
    public let fileSize: UInt64
    public let entries: [Entry]
    /// metadata.json as written, every key (known or not).
    public let metadata: JSONValue?
    /// Why the metadata does not decode, if it does not.
    public let metadataError: String?
    public let created: Date?
    public let modified: Date?
    public let readingNotes: [String]
    /// What the app's decoder refuses: it cannot open the document.
    public let appRefusals: [String]
    public let unknownKeys: [String]
}

extension DocumentReader {
    /// The document's summary (``DocumentSummary``).
    public func summary() -> DocumentSummary {
        var metadataError: String? = nil
        var metadata: DocumentMetadata? = nil
        var raw: JSONValue? = nil
        do {
            let data = try metadataData()
            raw = try? JSONValue.decode(data)
            metadata = try self.metadata()
        } catch {
            metadataError = "\(error)"
        }
        var version: Int? = nil
        if case .zip(let formatVersion, _) = format { version = formatVersion }
        return DocumentSummary(
            path: path, format: format.name, formatVersion: version, formatDescription: format.description, fileSize: fileSize,
            entries: entries.map { entry in
                DocumentSummary.Entry(name: entry.name, size: entry.size, storedSize: entry.storedSize,
                                      compression: entry.compressionMethod.map { $0 == 0 ? "stored" : $0 == 8 ? "deflated" : "method \($0)" },
                                      crc32: entry.crc32.map { String(format: "%08x", $0) }, offset: entry.byteRange?.lowerBound)
            },
            metadata: raw, metadataError: metadataError, created: metadata?.created, modified: metadata?.modified,
            readingNotes: metadata?.readingNotes ?? [], appRefusals: metadata?.appRefusals ?? [],
            unknownKeys: metadata.map { Array($0.unknownFields.keys).sorted() } ?? [])
    }
}

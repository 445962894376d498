import Foundation

/// The contents of a document's `metadata.json`, as the Yiana app writes it.
///
/// Optional keys are omitted on encoding exactly as the app omits them, dates are seconds
/// since 2001-01-01 as JSON numbers, and keys the toolkit does not know are kept in
/// ``unknownFields`` so that a rewrite does not drop fields of newer app versions.
public struct DocumentMetadata: Sendable, Equatable {
    public var id: UUID
    public var title: String
    public var created: Date
    public var modified: Date
    public var pageCount: Int
    public var tags: [String]
    public var ocrCompleted: Bool
    public var fullText: String?
    public var ocrProcessedAt: Date?
    /// OCR confidence, 0…1.
    public var ocrConfidence: Double?
    /// `embedded`, `service` or `onDevice` (``ocrSources``); any other value is read (and
    /// noted in ``appRefusals``: the app cannot open the document) and kept as it is.
    public var ocrSource: String?
    /// Written only when true.
    public var hasPendingTextPage: Bool
    /// Written only when non-empty.
    public var pageProcessingStates: [PageProcessingState]
    /// Lower-case hex SHA-256 of `content.pdf`.
    public var pdfHash: String?
    /// Keys this version of the toolkit does not know, kept verbatim on rewrite.
    public var unknownFields: [String: JSONValue]
    /// What was unusual about how the file stored its values (e.g. ISO-8601 date strings),
    /// in words; empty for files the app wrote. Not encoded.
    public var readingNotes: [String]
    /// What the app's own decoder (`DocumentMetadata` in lh/Yiana) refuses in the file it was
    /// read from, in words: the app cannot open such a document until it is rewritten. Not encoded.
    public var appRefusals: [String]
    /// Dates that read but lie in the future or before 2001 (a device whose clock was
    /// wrong), in words; kept as they are. Not encoded.
    public var suspiciousDates: [String]

    /// Metadata for a new document, as the app makes it on import.
    public init(
        id: UUID = UUID(), title: String, created: Date = Date(), modified: Date? = nil,
        pageCount: Int, tags: [String] = [], ocrCompleted: Bool = false, pdfHash: String? = nil
    ) {
        self.id = id
        self.title = title
        self.created = created
        self.modified = modified ?? created
        self.pageCount = pageCount
        self.tags = tags
        self.ocrCompleted = ocrCompleted
        self.fullText = nil
        self.ocrProcessedAt = nil
        self.ocrConfidence = nil
        self.ocrSource = nil
        self.hasPendingTextPage = false
        self.pageProcessingStates = []
        self.pdfHash = pdfHash
        self.unknownFields = [:]
        self.readingNotes = []
        self.appRefusals = []
        self.suspiciousDates = []
    }

    public static func == (lhs: DocumentMetadata, rhs: DocumentMetadata) -> Bool {
        lhs.id == rhs.id && lhs.title == rhs.title && lhs.created == rhs.created
            && lhs.modified == rhs.modified && lhs.pageCount == rhs.pageCount && lhs.tags == rhs.tags
            && lhs.ocrCompleted == rhs.ocrCompleted && lhs.fullText == rhs.fullText
            && lhs.ocrProcessedAt == rhs.ocrProcessedAt && lhs.ocrConfidence == rhs.ocrConfidence
            && lhs.ocrSource == rhs.ocrSource && lhs.hasPendingTextPage == rhs.hasPendingTextPage
            && lhs.pageProcessingStates == rhs.pageProcessingStates && lhs.pdfHash == rhs.pdfHash
            && lhs.unknownFields == rhs.unknownFields
    }
}

/// One entry of `pageProcessingStates`.
public struct PageProcessingState: Sendable, Equatable {
    /// 1-based page number.
    public var pageNumber: Int
    public var needsOCR: Bool
    public var needsExtraction: Bool
    public var ocrProcessedAt: Date?
    public var addressExtractedAt: Date?
    /// Keys of this item the toolkit does not know, kept on rewrite.
    public var unknownFields: [String: JSONValue]

    public init(pageNumber: Int, needsOCR: Bool, needsExtraction: Bool,
                ocrProcessedAt: Date? = nil, addressExtractedAt: Date? = nil) {
        self.pageNumber = pageNumber
        self.needsOCR = needsOCR
        self.needsExtraction = needsExtraction
        self.ocrProcessedAt = ocrProcessedAt
        self.addressExtractedAt = addressExtractedAt
        self.unknownFields = [:]
    }
}

extension DocumentMetadata {
    /// The keys the app writes, in the order it writes them.
    static let knownKeys = [
        "id", "title", "created", "modified", "pageCount", "tags", "ocrCompleted", "fullText",
        "ocrProcessedAt", "ocrConfidence", "ocrSource", "hasPendingTextPage",
        "pageProcessingStates", "pdfHash",
    ]

    /// The top-level keys whose values are dates (seconds since 2001, as the app writes them).
    public static let dateKeys: Set<String> = ["created", "modified", "ocrProcessedAt"]

    /// A metadata value as JSON text made readable: a date key's number as a UTC date and
    /// time; anything else as it is.
    public static func readableValue(of key: String, _ json: String) -> String {
        guard dateKeys.contains(key), let seconds = Double(json) else { return json }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss.SSS 'Z'"
        return formatter.string(from: Date(timeIntervalSinceReferenceDate: seconds))
    }
}

extension PageProcessingState {
    static let knownKeys = ["pageNumber", "needsOCR", "needsExtraction", "ocrProcessedAt", "addressExtractedAt"]
}

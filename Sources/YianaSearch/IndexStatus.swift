/// What indexing made of one document.
public enum IndexStatus: String, Codable, Sendable, CaseIterable {
    /// Text was indexed (from the PDF's text layer or, for pages without one, from OCR).
    case ok
    /// The PDF has no text layer and the metadata no OCR text: only title, tags and folder.
    case noTextLayer = "no-text-layer"
    /// OCR ran and found no words on its pages without a text layer (an image with no text,
    /// a blank page): only title, tags and folder are indexed, and running OCR again will not help.
    case noWordsFound = "no-words-found"
    /// The PDF needs a password.
    case encrypted
    /// The archive or the PDF is damaged (CRC mismatch, bad structure, unreadable PDF).
    case damaged
    /// An evicted placeholder: its name is indexed (and any text indexed before it was
    /// evicted is kept); it is never downloaded by indexing.
    case notDownloaded = "not-downloaded"
    /// Damaged as it stands, but a sync program is still writing it (``Arrival``): indexed
    /// on a later run.
    case stillArriving = "still-arriving"
    /// Anything else; the reason says what.
    case failed

    /// Statuses worth showing a person (`yiana index --problems`).
    public var isProblem: Bool { self != .ok }
}

/// Where a page's indexed text came from.
public enum TextSource: String, Codable, Sendable {
    /// The PDF's own text layer.
    case pdf
    /// The OCR text in the document's metadata (`fullText`).
    case ocr
    /// No text (title, tags and folder only).
    case none
    /// The names, addresses and postcodes in the app's address files for the document
    /// (extraction and corrections, as the app resolves them): not a page of the PDF.
    case addresses
}

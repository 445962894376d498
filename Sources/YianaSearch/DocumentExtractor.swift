import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// A file's identity and state, to tell an unchanged document without opening it.
/// What tells one version of a document file from another (``FileStamp``).
typealias FileState = FileStamp

/// The text of one page, ready for the index.
public struct PageText: Sendable {
    /// 1-based; 0 for the app's OCR text of the whole document.
    public let number: Int
    public let text: String
    public let source: TextSource

    public init(number: Int, text: String, source: TextSource) {
        self.number = number
        self.text = text
        self.source = source
    }
}

/// What one document contributes to the index.
public struct ExtractedDocument: Sendable {
    public enum Pages: Sendable {
        /// Newly extracted pages.
        case extracted([PageText])
        /// The same PDF bytes are already indexed under another document: copy its pages.
        case reuse(contentKey: String)
        /// A placeholder: keep whatever was indexed for this document before.
        case keepExisting
    }

    public let path: String  // relative to the library
    public let folder: String
    public let file: FileStamp
    /// The file went away after the library was listed (moved or removed by another
    /// process): it is not indexed, as if it had never been listed.
    public internal(set) var vanished = false
    public internal(set) var documentID: String?
    public internal(set) var title: String
    public internal(set) var tags: [String] = []
    public internal(set) var created: Double?
    public internal(set) var modified: Double?
    public internal(set) var contentKey: String?
    public internal(set) var status: IndexStatus
    public internal(set) var reason: String?
    public internal(set) var pageCount = 0
    public internal(set) var pages: Pages = .extracted([])
    /// The words it adds to the index's vocabulary (``Vocabulary/words(of:)``): of its title,
    /// tags, folder and newly extracted pages, found where it was extracted (on the
    /// extraction's threads, not the index's one writer).
    public internal(set) var words: Set<String> = []

    /// The pages with text to index (a page without any is not one).
    public var textPages: [PageText] {
        guard case .extracted(let pages) = pages else { return [] }
        return pages.filter { $0.source != .none }
    }

    /// How many pages have text from the PDF, and how many from OCR.
    public var pageCounts: (text: Int, ocr: Int) {
        guard case .extracted(let pages) = pages else { return (0, 0) }
        return (pages.filter { $0.source == .pdf }.count, pages.filter { $0.source == .ocr }.count)
    }
}

/// Reads one library item into an ``ExtractedDocument``. Never throws: every failure
/// becomes a status with a reason, so a bad PDF never stops a run.
struct DocumentExtractor: Sendable {
    let library: Library
    /// Content keys already indexed with status ok; their pages can be copied.
    let indexedContent: Set<String>
    /// Threads that share out the pages of long documents.
    let pageHelpers: PageHelpers

    init(library: Library, indexedContent: Set<String>, pageHelpers: PageHelpers = PageHelpers(count: 0)) {
        self.library = library
        self.indexedContent = indexedContent
        self.pageHelpers = pageHelpers
    }

    /// `damaged` for what is wrong with the file, `failed` when reading it failed for a
    /// reason outside it (an I/O error, a lock): that document is tried again next run.
    static func status(for error: Error) -> IndexStatus {
        if let error = error as? ArchiveError, error.isEnvironmental { return .failed }
        if error is SystemError { return .failed }
        return .damaged
    }

    /// Every page's text: the text layer, and the app's OCR text for the pages without one
    /// (by page when its OCR results say which page, else for the whole document, page 0).
    private func pageTexts(_ pdf: PDFDocument, bytes: PDFBytes, metadata: DocumentMetadata, document: URL, source: String) -> [PageText] {
        var pages: [PageText] = []
        pages.reserveCapacity(pdf.pageCount)
        for (index, text) in pageHelpers.pageTexts(pdf, bytes: bytes, source: source).enumerated() {
            let hasText = text.contains { $0.isLetter || $0.isNumber }
            pages.append(PageText(number: index + 1, text: hasText ? text : "", source: hasText ? .pdf : .none))
        }
        let textPages = Set(pages.filter { $0.source == .pdf }.map(\.number))
        for page in ocrPages(metadata, document: document, pageCount: pdf.pageCount, textPages: textPages) {
            if page.number >= 1, page.number <= pages.count { pages[page.number - 1] = page } else { pages.append(page) }
        }
        return pages
    }

    /// The key ``extract(_:file:)`` will give `item`'s PDF (``ExtractedDocument/contentKey``),
    /// from the archive's directory alone; nil for a placeholder, an archive that cannot be
    /// opened, one without a PDF, and the legacy formats (whose CRC-32 is computed as they are read).
    static func contentKey(of item: LibraryItem) -> String? {
        guard item.kind != .placeholder, let reader = try? DocumentReader(path: item.path),
              let entry = reader.pdf, let crc = entry.crc32 else { return nil }
        return DocumentReader.pdfKey(crc32: crc, size: entry.size)
    }

    func extract(_ item: LibraryItem, file: FileState) -> ExtractedDocument {
        var document = read(item, file: file)
        guard SearchIndex.keepsVocabulary else { return document }
        document.words = Vocabulary.words(of: [document.title, document.tags.joined(separator: " "), document.folder] + document.textPages.map(\.text))
        return document
    }

    private func read(_ item: LibraryItem, file: FileState) -> ExtractedDocument {
        // The walk's own string where it has one: a report of 100,000 documents holds their
        // paths, shared with the walk's, not copies.
        let path = library.documentPath(of: item) ?? item.documentFilePath
        let folder = (path as NSString).deletingLastPathComponent
        let name = (item.documentName as NSString).deletingPathExtension
        var result = ExtractedDocument(path: path, folder: folder, file: file, title: name, status: .ok)

        if item.kind == .placeholder {
            result.status = .notDownloaded
            result.reason = "evicted to iCloud; only its name is indexed until it is downloaded"
            result.pages = .keepExisting
            return result
        }

        let reader: DocumentReader
        let metadata: DocumentMetadata
        do {
            reader = try DocumentReader(path: item.path)
            metadata = try reader.metadata()
        } catch {
            result.status = Self.status(for: error)
            result.reason = "\(error)"
            result.vanished = !FileManager.default.fileExists(atPath: item.path)
            return result
        }
        result.documentID = metadata.id.uuidString
        result.title = metadata.title
        result.tags = metadata.tags
        result.created = metadata.created.timeIntervalSinceReferenceDate
        result.modified = metadata.modified.timeIntervalSinceReferenceDate
        result.pageCount = metadata.pageCount

        guard let entry = reader.pdf else {
            let ocr = ocrPages(metadata, document: item.documentURL, pageCount: metadata.pageCount, textPages: [])
            result.pages = .extracted(ocr)
            if ocr.isEmpty {
                result.status = .noTextLayer
                result.reason = "the document has no PDF yet"
            }
            return result
        }

        do {
            let bytes = try reader.pdfBytes()  // CRC-checked
            result.contentKey = DocumentReader.pdfKey(crc32: bytes.crc32, size: entry.size)
            if let key = result.contentKey, indexedContent.contains(key) {
                result.pages = .reuse(contentKey: key)
                return result
            }
            let pdf = try bytes.document(source: path)
            result.pageCount = pdf.pageCount
            let pages = pageTexts(pdf, bytes: bytes, metadata: metadata, document: item.documentURL, source: path)
            if !pages.contains(where: { $0.source != .none }) {
                (result.status, result.reason) = Self.noText(metadata)
            }
            result.pages = .extracted(pages)
        } catch let error as PDFError {
            switch error.kind {
            case .encrypted: result.status = .encrypted
            case .damaged, .notAPDF: result.status = .damaged
            case .unreadable: result.status = .failed
            }
            result.reason = error.description
        } catch let error as ArchiveError {
            result.status = error.kind == .missingPDF ? .noTextLayer : Self.status(for: error)
            result.reason = error.description
        } catch {
            result.status = .failed
            result.reason = "\(error)"
        }
        if result.status == .failed || result.status == .damaged {
            result.vanished = !FileManager.default.fileExists(atPath: item.path)
        }
        return result
    }

    /// The status of a document with no text to index: OCR has not run yet, or it ran and
    /// found no words (then running it again will not help).
    static func noText(_ metadata: DocumentMetadata) -> (IndexStatus, String) {
        guard metadata.ocrCompleted, let when = metadata.ocrProcessedAt else {
            return (.noTextLayer, "the PDF has no text layer and the document has no OCR text yet; `yiana ocr` recognises it")
        }
        return (.noWordsFound, "OCR (\(InternetTime.string(when))) found no words on it, as in an image without text or a blank page: "
                + "only its title, tags and folder can be searched")
    }

    /// The app's OCR text for the pages not in `textPages` (those with a text layer already
    /// indexed). From its OCR service's results beside the library
    /// (`.ocr_results/<folder>/<name>.json`), which give each page's text, when they exist;
    /// else the metadata's `fullText`, one text for the whole document: as page 1 of a
    /// one-page document, else as page 0, the document as a whole.
    private func ocrPages(_ metadata: DocumentMetadata, document: URL, pageCount: Int, textPages: Set<Int>) -> [PageText] {
        func hasWords(_ text: String) -> Bool { text.contains { $0.isLetter || $0.isNumber } }
        if let results = OCRResults.read(for: document, in: library), !results.isEmpty {
            return results.filter { (1...max(1, pageCount)).contains($0.number) && !textPages.contains($0.number) }.compactMap { page in
                let text = TextNormalizer.normalize(page.text)
                return hasWords(text) ? PageText(number: page.number, text: text, source: .ocr) : nil
            }
        }
        guard textPages.count < pageCount || pageCount == 0, let fullText = metadata.fullText else { return [] }
        let text = TextNormalizer.normalize(fullText)
        guard hasWords(text) else { return [] }
        return [PageText(number: pageCount == 1 ? 1 : 0, text: text, source: .ocr)]
    }
}

extension DocumentExtractor {
    /// Extracts a document again from its file, without reusing any indexed pages.
    func extractAgain(_ document: ExtractedDocument) -> ExtractedDocument {
        let url = library.root.appendingPathComponent(document.path)
        return extract(LibraryItem(kind: .document, url: url, documentURL: url), file: document.file)
    }
}

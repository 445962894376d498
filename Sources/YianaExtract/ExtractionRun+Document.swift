import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

extension ExtractionRun {
    /// The name the app gives a document's address file (its `documentId`): the document's
    /// title; its file name where the title cannot name a file (empty, with a `/`, hidden).
    public static func addressKey(title: String?, documentURL: URL) -> String {
        if let title, !title.isEmpty, !title.contains("/"), !title.hasPrefix("."), title.utf8.count <= 200, !title.contains("\0") { return title }
        return documentURL.deletingPathExtension().lastPathComponent
    }

    /// `.addresses/<key>.json`, relative to the library.
    public static func addressPath(key: String) -> String { "\(CompanionFile.addressesFolder)/\(key).json" }

    /// The largest address file read back (a file of many pages' people stays far below).
    static let addressFileLimit = 16 << 20

    private static func stamp(_ url: URL) -> String {
        FileStamp(path: url.path).map { "\($0.size)-\($0.modified)-\($0.inode)" } ?? "-"
    }

    func extract(_ url: URL, path: String, known: ExtractedState?) -> (ExtractionResult, ExtractedState?) {
        let ocrURL = OCRResults.url(for: url, in: library)
        let source = "\(Self.rulesVersion)|\(Self.stamp(url))|\(ocrURL.map(Self.stamp) ?? "-")"
        if let known, known.source == source, known.addressFile == Self.stamp(library.fileURL(Self.addressPath(key: known.key))) {
            var result = ExtractionResult(path: path, status: .upToDate)
            result.addressFile = known.key.isEmpty ? nil : Self.addressPath(key: known.key)
            return (result, nil)
        }
        do {
            let reader = try DocumentReader(path: url.path)
            let metadata = try reader.metadata()
            let key = Self.addressKey(title: metadata.title, documentURL: url)
            let (texts, pageCount) = try pageTexts(reader, metadata: metadata, document: url, path: path)
            var result = ExtractionResult(path: path, status: .failed)
            result.pagesRead = texts.count
            guard !texts.isEmpty else {
                result.status = .noText
                result.error = metadata.ocrCompleted
                    ? "OCR found no words on its pages (an image without text, a blank page?): no one to find"
                    : "no page has text yet: `yiana ocr \"\(path)\"` recognises it, then it is extracted"
                return (result, ExtractedState(source: source, key: "", addressFile: "-"))
            }
            result.addressFile = Self.addressPath(key: key)
            let pages = cascade.document(key, pages: texts.sorted { $0.key < $1.key }.map { (number: $0.key, text: $0.value.text, layout: $0.value.layout) })
            result.people = pages.map { ExtractionResult.Person(page: $0.pageNumber, name: $0.patient?.fullName, postcode: $0.address?.postcode,
                                                                 method: $0.extraction?.method, role: $0.addressType) }
            let file = AddressFileText(documentID: key, pageCount: pageCount, pages: pages)
            let fileURL = library.fileURL(Self.addressPath(key: key))
            result.status = try write(file, to: fileURL)
            return (result, dryRun ? nil : ExtractedState(source: source, key: key, addressFile: Self.stamp(fileURL)))
        } catch {
            var result = ExtractionResult(path: path, status: .failed, error: "\(error)")
            if !FileManager.default.fileExists(atPath: url.path) { result.error = "it went away while it was read (moved or deleted)" }
            return (result, nil)
        }
    }

    /// The document's address key and each page's text, as `extract` reads them (for
    /// `yiana-bench letter-texts`, which makes the suite's letter fixtures).
    public func pageTexts(ofDocumentAt url: URL) throws -> (key: String, pages: [(number: Int, text: String)]) {
        let reader = try DocumentReader(path: url.path)
        let metadata = try reader.metadata()
        let (texts, _) = try pageTexts(reader, metadata: metadata, document: url, path: url.lastPathComponent)
        return (Self.addressKey(title: metadata.title, documentURL: url), texts.sorted { $0.key < $1.key }.map { (number: $0.key, text: $0.value.text) })
    }

    /// ``pageTexts(ofDocumentAt:)`` with each page's words and their places, as `extract` lays
    /// them out (for `yiana-bench layout-pages`, which makes the suite's layout fixtures).
    public func laidOutPages(ofDocumentAt url: URL) throws -> (key: String, pages: [(number: Int, text: String, words: [PlacedWord])]) {
        let reader = try DocumentReader(path: url.path)
        let metadata = try reader.metadata()
        let (texts, _) = try pageTexts(reader, metadata: metadata, document: url, path: url.lastPathComponent)
        return (Self.addressKey(title: metadata.title, documentURL: url),
                texts.sorted { $0.key < $1.key }.map { (number: $0.key, text: $0.value.text, words: $0.value.layout?.words ?? []) })
    }

    /// A page's text and, where its words' places are known, its layout.
    typealias PageText = (text: String, layout: PageLayout?)

    /// Each page's text (1-based) and layout: its OCR results where there are some (their
    /// words' boxes), else its text layer (poppler's); and how many pages the document has.
    private func pageTexts(_ reader: DocumentReader, metadata: DocumentMetadata, document: URL, path: String) throws -> ([Int: PageText], Int) {
        func hasWords(_ text: String) -> Bool { text.contains { $0.isLetter || $0.isNumber } }
        var texts: [Int: PageText] = [:]
        for page in OCRResults.read(for: document, in: library) ?? [] where page.number >= 1 && hasWords(page.text) {
            if page.blocks.allSatisfy({ $0.lines.allSatisfy(\.words.isEmpty) }) {
                texts[page.number] = (page.text, nil)  // no boxes for its words: its layout is the PDF's
            } else if page.isOwnTextLayer {
                // A page's own text layer, its words' boxes kept by `yiana ocr`: its text is the PDF's, read as it was.
                texts[page.number] = (page.text, PageLayout(ocrBlocks: page.blocks))
            } else {
                // OCR reads straight across a page's columns: the text is read from where its words are, column by column.
                let layout = PageLayout(ocrBlocks: page.blocks)
                texts[page.number] = (layout.readingText(isLabel: FieldReader.isLabel), layout)
            }
        }
        var pageCount = max(metadata.pageCount, texts.keys.max() ?? 0)
        let needsText = texts.count < max(1, metadata.pageCount)
        guard reader.pdf != nil, needsText || texts.values.contains(where: { $0.layout == nil }) else { return (texts, pageCount) }
        // The PDF only for its words' places: a PDF that does not open leaves the pages read from their text alone.
        guard let pdf = needsText ? try reader.pdfBytes().document(source: path) : try? reader.pdfBytes().document(source: path) else {
            return (texts, pageCount)
        }
        for (number, page) in texts where page.layout == nil && number <= pdf.pageCount {
            texts[number]?.layout = PageLayout(pdfWords: pdf.words(ofPage: number - 1))
        }
        guard needsText else { return (texts, pageCount) }
        pageCount = pdf.pageCount
        for index in 0..<pdf.pageCount where texts[index + 1] == nil {
            let (text, words) = pdf.textAndWords(ofPage: index)
            if hasWords(text) {
                texts[index + 1] = (text, words.isEmpty ? nil : PageLayout(pdfWords: words))
            }
        }
        return (texts.filter { $0.key <= pageCount }, pageCount)
    }

    /// Writes `file` at `url` unless it holds the same pages already; the file it replaces is
    /// kept in the version store first, and another process's write meanwhile is read again.
    private func write(_ file: AddressFileText, to url: URL) throws -> ExtractionResult.Status {
        for _ in 0..<3 {
            let identity = FileIdentity.current(at: url.path)
            let existing = identity == .absent ? nil : try Self.read(url)
            if file.isSame(as: existing) { return .unchanged }
            if dryRun { return .wouldExtract }
            let data = try file.data(keeping: AddressFileText.Kept(existing: existing), extractedAt: Date())
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            if identity != .absent { try VersionStore(library: library).keep(url, reason: "replaced by extraction") }
            do {
                try CoordinatedDocument.replace(at: url.path, with: data, expecting: identity, recording: false) { temp in
                    let failures = (try? CompanionContent.json(at: URL(fileURLWithPath: temp)).get()).map { CompanionShape.documentAddressFile.failures($0) }
                    guard let failures, failures.isEmpty else {
                        throw ExtractionError.unreadableOutput(url.lastPathComponent, failures?.first.map { "\($0.key): \($0.reason)" } ?? "not JSON")
                    }
                }
                return .extracted
            } catch let error as ArchiveError where error.kind == .documentChanged {
                continue  // another process wrote it meanwhile: read it again
            }
        }
        throw ExtractionError.keepsChanging(url.lastPathComponent)
    }

    private static func read(_ url: URL) throws -> Data? {
        guard FileKind.at(url.path) == .regular, let size = FileStamp(path: url.path)?.size, size <= addressFileLimit else { return nil }
        return try Data(contentsOf: url)
    }
}

/// Why an address file was not written.
public enum ExtractionError: Error, CustomStringConvertible {
    case unreadableOutput(String, String)
    case keepsChanging(String)

    public var description: String {
        switch self {
        case .unreadableOutput(let name, let why): "\(name) would not read in the app (\(why)); nothing was written. Please report this."
        case .keepsChanging(let name): "\(name) was changed by another process three times while it was written; run again."
        }
    }
}

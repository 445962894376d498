import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

extension OCRRunner {
    /// The engine version written into results and metadata (`ocrEngineVersion`), and the
    /// service's for text taken from the PDF itself.
    static var engineVersion: String { "tesseract \(TesseractEngine.version ?? "5")" }
    static let embeddedEngineVersion = "embedded-text"

    /// The languages in the results' `options`: the two-letter codes of tesseract's
    /// three-letter ones where known (the service writes `en-US`), else as given.
    static func languageTags(_ languages: String) -> [String] {
        let known = ["eng": "en", "deu": "de", "fra": "fr", "spa": "es", "ita": "it", "nld": "nl", "por": "pt",
                     "pol": "pl", "swe": "sv", "dan": "da", "nor": "no", "fin": "fi", "ces": "cs", "rus": "ru"]
        return languages.split(separator: "+").map { known[String($0)] ?? String($0) }
    }

    /// Writes the document with what was recognised: the PDF with the text layer, the
    /// metadata keys the service sets, then the results files.
    func write(_ prepared: PreparedDocument, recognized: [Int: RecognizedPage]) throws -> OCRDocumentResult {
        let now = Date()
        let result = makeResult(prepared, recognized: recognized, at: now)
        let embeddedOnly = prepared.toRecognize.isEmpty

        var pdfFile = prepared.pdf
        var pdfHash = prepared.metadata.pdfHash
        let layers = recognized.compactMapValues(\.textLayer)
        if options.textLayer, !layers.isEmpty {
            let layered = URL(fileURLWithPath: prepared.pdf.path + "-layered.pdf")
            try TextLayer.overlay(prepared.pdf, layers: layers, to: layered)
            let check = try PDFDocument(path: layered.path)
            guard check.pageCount == prepared.pageCount else {
                throw OCRError(.textLayer, "the PDF with its text layer has \(check.pageCount) pages, not \(prepared.pageCount); the document is left as it was")
            }
            pdfFile = layered
            pdfHash = try FileHash.sha256(of: layered)
        }

        var metadata = prepared.metadata
        metadata.ocrCompleted = true
        metadata.fullText = result.fullText
        metadata.ocrProcessedAt = now
        metadata.ocrConfidence = result.confidence
        metadata.ocrSource = embeddedOnly ? "embedded" : "service"
        metadata.unknownFields["ocrEngineVersion"] = .string(result.engineVersion)
        metadata.modified = now
        metadata.pageCount = prepared.pageCount
        metadata.pdfHash = pdfHash
        metadata.pageProcessingStates = Self.pageStates(prepared.metadata, pageCount: prepared.pageCount, at: now)

        // The results files first, the document last: a run killed between the two leaves
        // the document not done, and the next run recognises it again and writes both (the
        // other order would leave a done document whose results must be made from its text,
        // without the words' boxes).
        try ResultFiles(library: library).write(result, hocrPages: recognized.mapValues(\.hocr), for: prepared.url)
        options.beforeWrite?(prepared.url)
        _ = try VersionStore(library: library).keep(prepared.url, reason: "before OCR")
        try DocumentRewrite(library: library).write(metadata, pdfFile: pdfFile, to: prepared.url, replacing: true, expecting: prepared.identity)
        if let key = try? DocumentReader(path: prepared.url.path).contentKey {
            try? DocumentHistory(library: library).record(documentID: metadata.id.uuidString, key: key,
                                                          parents: prepared.parent.map { [$0] } ?? [], what: "ocr")
        }
        let wordless = prepared.toRecognize.filter { number in
            !(result.pages.first { $0.pageNumber == number }?.text ?? "").contains { $0.isLetter || $0.isNumber }
        }.sorted()
        var outcome = OCRDocumentResult(path: prepared.path, status: embeddedOnly ? .embedded : .recognized,
                                        pagesRecognized: prepared.toRecognize.count, pagesWithText: prepared.ownText.count,
                                        confidence: wordless.count == prepared.toRecognize.count ? nil : result.confidence)
        outcome.pagesWithoutWords = wordless
        return outcome
    }

    /// Every page done, as the app marks pages when its own OCR completes (`needsOCR` false,
    /// `ocrProcessedAt` now); `needsExtraction` and `addressExtractedAt` kept, as are keys of
    /// newer app versions.
    static func pageStates(_ metadata: DocumentMetadata, pageCount: Int, at now: Date) -> [PageProcessingState] {
        let existing = Dictionary(metadata.pageProcessingStates.map { ($0.pageNumber, $0) }, uniquingKeysWith: { first, _ in first })
        return (0..<pageCount).map { index in
            var state = existing[index + 1] ?? PageProcessingState(pageNumber: index + 1, needsOCR: false, needsExtraction: false)
            state.needsOCR = false
            state.ocrProcessedAt = now
            return state
        }
    }

    func makeResult(_ prepared: PreparedDocument, recognized: [Int: RecognizedPage], at now: Date) -> OCRResult {
        let pages: [OCRPage] = (1..<prepared.pageCount + 1).compactMap { number in
            recognized[number]?.page ?? prepared.ownText[number].map { Self.embeddedPage(number, text: $0, words: prepared.ownWords[number] ?? []) }
        }
        let confidence = pages.isEmpty ? 0 : pages.map(\.confidence).reduce(0, +) / Double(pages.count)
        let embeddedOnly = prepared.toRecognize.isEmpty
        return OCRResult(
            id: UUID(), processedAt: now, documentId: prepared.metadata.id,
            engineVersion: embeddedOnly ? Self.embeddedEngineVersion : Self.engineVersion,
            pages: pages, confidence: confidence,
            metadata: ProcessingMetadata(
                processingTime: now.timeIntervalSince(prepared.started), pageCount: prepared.pageCount,
                detectedLanguages: embeddedOnly ? [] : Self.languageTags(options.languages), warnings: [],
                options: ProcessingOptions(recognitionLevel: "accurate", languages: Self.languageTags(options.languages),
                                           useLanguageCorrection: true, extractFormData: false, extractDemographics: false)))
    }

    /// A document already done whose results files are missing (written by the app on a
    /// device, or a run killed between the document and its results): written from the
    /// PDF's text, as the service does (`generateMissingResultFiles`). `prepared` is the
    /// document as read; its pages with text are the results.
    func writeMissingResults(_ prepared: PreparedDocument) throws {
        guard !prepared.ownText.isEmpty else { return }
        var result = makeResult(prepared, recognized: [:], at: prepared.metadata.ocrProcessedAt ?? Date())
        result.engineVersion = Self.embeddedEngineVersion
        result.confidence = 1
        try ResultFiles(library: library).write(result, hocrPages: [:], for: prepared.url)
    }

    /// A page whose text came from the PDF, as the service records one: one block on the whole
    /// page and a line per line of text, confidence 1; each line with its words and their boxes
    /// (`words`, the page's words in the order of its text) where they are known, so that
    /// `extract` reads the page's layout from the results without opening its PDF. Where the
    /// words do not match the lines' words one for one, the lines keep none.
    static func embeddedPage(_ number: Int, text: String, words: [Word] = []) -> OCRPage {
        var remaining = words[...]
        var matched = !words.isEmpty
        let lines = text.split(separator: "\n").map { line -> TextLine in
            let tokens = line.split(whereSeparator: \.isWhitespace)
            guard matched, remaining.count >= tokens.count, zip(tokens, remaining).allSatisfy({ $0 == $1.text }) else {
                matched = false
                return TextLine(text: String(line), boundingBox: .page, words: [])
            }
            let own = Array(remaining.prefix(tokens.count))
            remaining = remaining.dropFirst(tokens.count)
            return TextLine(text: String(line), boundingBox: BoundingBox(around: own.map(\.boundingBox)) ?? .page, words: own)
        }
        return OCRPage(pageNumber: number, text: text,
                       textBlocks: [TextBlock(text: text, boundingBox: .page, confidence: 1, lines: lines)], confidence: 1)
    }
}

internal import CTesseract
import Foundation
import YianaPDF

/// Why OCR could not run or a page could not be recognised.
public struct OCRError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// libtesseract could not be loaded.
        case engineMissing
        /// A language's trained data is not installed.
        case languageMissing
        /// A page could not be recognised or its text layer not made.
        case recognition
        /// The text layer could not be added to the PDF (qpdf).
        case textLayer
    }

    public let kind: Kind
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var code: String {
        switch kind {
        case .engineMissing: "ocr-engine-missing"
        case .languageMissing: "ocr-language-missing"
        case .recognition: "ocr-failed"
        case .textLayer: "text-layer-failed"
        }
    }

    public var description: String { detail }
}

/// What tesseract found on one page image.
public struct RecognizedPage: Sendable {
    public var page: OCRPage
    /// tesseract's own hOCR of the page (one `ocr_page` element).
    public var hocr: String
    /// A one-page PDF holding only the page's text, invisible, placed where it was read
    /// (tesseract's text-only PDF renderer), or nil when the page had no text.
    public var textLayer: URL?
}

/// One tesseract engine: not thread-safe, one per worker thread.
public final class TesseractEngine {
    private let handle: OpaquePointer
    public let languages: String

    /// The tesseract library's version, or nil when it cannot be loaded.
    public static var version: String? {
        guard yiana_tesseract_load() == nil, let text = yiana_tess().pointee.TessVersion() else { return nil }
        return String(cString: text)
    }

    /// The folder tesseract looks for `<lang>.traineddata` in: `$TESSDATA_PREFIX`, else where
    /// Debian's `tesseract-ocr-<lang>` packages put them.
    public static func dataFolder(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let prefix = environment["TESSDATA_PREFIX"], !prefix.isEmpty { return prefix }
        let base = "/usr/share/tesseract-ocr"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).sorted().reversed()
        for version in versions where FileManager.default.fileExists(atPath: "\(base)/\(version)/tessdata") {
            return "\(base)/\(version)/tessdata"
        }
        return nil
    }

    /// The languages (`eng`, `deu`, …) whose trained data is installed.
    public static func installedLanguages() -> [String] {
        guard let folder = dataFolder() else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".traineddata") && $0 != "osd.traineddata" }
            .map { String($0.dropLast(".traineddata".count)) }.sorted()
    }

    /// Starts an engine for `languages` (tesseract's `eng+deu` form).
    /// - Throws: ``OCRError`` `.engineMissing` or `.languageMissing`, saying what to install.
    public init(languages: String) throws {
        // The workers are the parallelism: tesseract's own OpenMP threads on top of them
        // would put several threads on each core (tesseract's documentation advises the same
        // for parallel runs). Read by libgomp when libtesseract first loads; a value the
        // user set is kept.
        setenv("OMP_THREAD_LIMIT", "1", 0)
        if let why = yiana_tesseract_load() {
            throw OCRError(.engineMissing, "tesseract cannot be loaded (\(String(cString: why))); install it: apt-get install libtesseract5 tesseract-ocr-eng")
        }
        let wanted = languages.split(separator: "+").map(String.init)
        let installed = Set(Self.installedLanguages())
        if let missing = wanted.first(where: { !installed.contains($0) }) {
            throw OCRError(.languageMissing, "no trained data for language '\(missing)' (installed: \(installed.sorted().joined(separator: ", "))); install it: apt-get install tesseract-ocr-\(missing)")
        }
        let api = yiana_tess().pointee
        guard let handle = api.TessBaseAPICreate() else { throw OCRError(.engineMissing, "tesseract could not start") }
        // tesseract prints "Estimating resolution…" and the like on stderr unless told not to.
        _ = api.TessBaseAPISetVariable(handle, "debug_file", "/dev/null")
        guard api.TessBaseAPIInit3(handle, Self.dataFolder(), languages) == 0 else {
            api.TessBaseAPIDelete(handle)
            throw OCRError(.languageMissing, "tesseract could not load the trained data for '\(languages)' from \(Self.dataFolder() ?? "its default folder")")
        }
        // The library's default layout is one uniform block of text (PSM_SINGLE_BLOCK), which
        // reads across the columns of a two-column page; the tesseract command, and the app's
        // service (Vision's reading order), find the columns and blocks first: PSM_AUTO.
        api.TessBaseAPISetPageSegMode(handle, PSM_AUTO)
        self.handle = handle
        self.languages = languages
    }

    deinit {
        yiana_tess().pointee.TessBaseAPIDelete(handle)
    }

    /// Recognises `image` as page `number` (1-based) and, with `layerBase`, writes the page's
    /// invisible text as `<layerBase>.pdf`.
    public func recognize(_ image: GrayImage, pageNumber number: Int, layerBase: String?) throws -> RecognizedPage {
        let api = yiana_tess().pointee
        api.TessBaseAPIClear(handle)
        image.pixels.withUnsafeBufferPointer { pixels in
            api.TessBaseAPISetImage(handle, pixels.baseAddress, Int32(image.width), Int32(image.height), 1, Int32(image.width))
        }
        api.TessBaseAPISetSourceResolution(handle, Int32(image.dpi))
        api.TessBaseAPISetInputName(handle, "page \(number)")
        guard api.TessBaseAPIRecognize(handle, nil) == 0 else {
            throw OCRError(.recognition, "tesseract could not recognise page \(number)")
        }
        let page = readPage(number: number, width: image.width, height: image.height)
        var hocr = ""
        if let text = api.TessBaseAPIGetHOCRText(handle, Int32(number - 1)) {
            hocr = String(cString: text)
            api.TessDeleteText(text)
        }
        var layer: URL?
        if let layerBase, !page.textBlocks.isEmpty {
            layer = try writeTextLayer(base: layerBase, pageNumber: number)
        }
        return RecognizedPage(page: page, hocr: hocr, textLayer: layer)
    }

    /// The recognised text as the service's blocks, lines and words (boxes as fractions of
    /// the image). Confidence: a word's is tesseract's (0…100, scaled to 0…1); a block's and
    /// the page's, the mean of their lines' (the service averages Vision's line confidences).
    private func readPage(number: Int, width: Int, height: Int) -> OCRPage {
        let api = yiana_tess().pointee
        guard let iterator = api.TessBaseAPIGetIterator(handle) else {
            return OCRPage(pageNumber: number, text: "", textBlocks: [], confidence: 0)
        }
        defer { api.TessResultIteratorDelete(iterator) }
        let pageIterator = api.TessResultIteratorGetPageIterator(iterator)

        func box(_ level: TessPageIteratorLevel) -> BoundingBox {
            var left: Int32 = 0, top: Int32 = 0, right: Int32 = 0, bottom: Int32 = 0
            _ = api.TessPageIteratorBoundingBox(pageIterator, level, &left, &top, &right, &bottom)
            return BoundingBox(left: Int(left), top: Int(top), right: Int(right), bottom: Int(bottom), width: width, height: height)
        }
        func text(_ level: TessPageIteratorLevel) -> String {
            guard let raw = api.TessResultIteratorGetUTF8Text(iterator, level) else { return "" }
            defer { api.TessDeleteText(raw) }
            return String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        var blocks: [TextBlock] = []
        var blockBox = BoundingBox.page
        var lines: [TextLine] = [], lineConfidences: [Double] = [], allLineConfidences: [Double] = []
        var lineBox = BoundingBox.page, lineConfidence = 0.0
        var words: [Word] = []

        func endLine() {
            guard !words.isEmpty else { return }
            lines.append(TextLine(text: words.map(\.text).joined(separator: " "), boundingBox: lineBox, words: words))
            lineConfidences.append(lineConfidence)
            allLineConfidences.append(lineConfidence)
            words = []
        }
        func endBlock() {
            endLine()
            guard !lines.isEmpty else { return }
            let confidence = lineConfidences.reduce(0, +) / Double(lineConfidences.count)
            blocks.append(TextBlock(text: lines.map(\.text).joined(separator: "\n"), boundingBox: blockBox, confidence: confidence, lines: lines))
            lines = []
            lineConfidences = []
        }

        repeat {
            if api.TessPageIteratorIsAtBeginningOf(pageIterator, RIL_BLOCK) != 0 {
                endBlock()
                blockBox = box(RIL_BLOCK)
            }
            if api.TessPageIteratorIsAtBeginningOf(pageIterator, RIL_TEXTLINE) != 0 {
                endLine()
                lineBox = box(RIL_TEXTLINE)
                lineConfidence = Double(api.TessResultIteratorConfidence(iterator, RIL_TEXTLINE)) / 100
            }
            let word = text(RIL_WORD)
            if !word.isEmpty {
                let confidence = Double(api.TessResultIteratorConfidence(iterator, RIL_WORD)) / 100
                words.append(Word(text: word, boundingBox: box(RIL_WORD), confidence: min(max(confidence, 0), 1)))
            }
        } while api.TessResultIteratorNext(iterator, RIL_WORD) != 0
        endBlock()

        let confidence = allLineConfidences.isEmpty ? 0 : allLineConfidences.reduce(0, +) / Double(allLineConfidences.count)
        let pageText = blocks.flatMap(\.lines).map(\.text).joined(separator: "\n")
        return OCRPage(pageNumber: number, text: pageText, textBlocks: blocks, confidence: min(max(confidence, 0), 1))
    }

    /// tesseract's PDF renderer in text-only mode on the page just recognised: a page the
    /// image's size at its resolution, holding the words in an invisible (render mode 3)
    /// glyph-less font, each scaled to its box.
    private func writeTextLayer(base: String, pageNumber: Int) throws -> URL {
        let api = yiana_tess().pointee
        guard let datapath = api.TessBaseAPIGetDatapath(handle),
              let renderer = api.TessPDFRendererCreate(base, datapath, 1) else {
            throw OCRError(.recognition, "tesseract's PDF renderer could not start for page \(pageNumber)")
        }
        defer { api.TessDeleteResultRenderer(renderer) }
        guard api.TessResultRendererBeginDocument(renderer, "yiana ocr") != 0,
              api.TessResultRendererAddImage(renderer, handle) != 0,
              api.TessResultRendererEndDocument(renderer) != 0 else {
            throw OCRError(.recognition, "tesseract could not write the text layer of page \(pageNumber) (\(base).pdf)")
        }
        return URL(fileURLWithPath: base + ".pdf")
    }
}

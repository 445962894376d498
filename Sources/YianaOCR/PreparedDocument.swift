import Foundation
import YianaArchive
import YianaPDF
import YianaSystem

/// A document read and ready to recognise: its metadata, a scratch copy of its PDF, the
/// pages with their own text (kept as they are, the service's "embedded" text) and the
/// pages to recognise.
final class PreparedDocument: @unchecked Sendable {
    // @unchecked: `results` and `remaining` are only touched under `lock`; the rest is set once.
    let url: URL
    let path: String
    let identity: FileIdentity
    let parent: String?
    let metadata: DocumentMetadata
    let pdf: URL
    let pageCount: Int
    /// Page number (1-based) → the page's own text.
    let ownText: [Int: String]
    /// Page number (1-based) → the words of its own text with their boxes, as fractions of the page.
    let ownWords: [Int: [Word]]
    /// 1-based page numbers.
    let toRecognize: [Int]
    let options: OCROptions
    let started = Date()
    var attempt = 1

    private let lock = NSLock()
    private var results: [Int: Result<RecognizedPage, Error>] = [:]
    private let allDone = DispatchSemaphore(value: 0)

    init(url: URL, path: String, identity: FileIdentity, parent: String?, metadata: DocumentMetadata, pdf: URL, options: OCROptions) throws {
        self.url = url
        self.path = path
        self.identity = identity
        self.parent = parent
        self.metadata = metadata
        self.pdf = pdf
        self.options = options
        do {
            let document = try PDFDocument(path: pdf.path)
            pageCount = document.pageCount
            var own: [Int: String] = [:], ownWords: [Int: [Word]] = [:], recognize: [Int] = []
            for index in 0..<pageCount {
                // One reading of the page gives its text and where its words are (what `extract` lays a page out from).
                let (raw, words) = document.textAndWords(ofPage: index)
                let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
                if text.isEmpty { recognize.append(index + 1); continue }
                own[index + 1] = text
                if let size = document.pageSize(index), size.width > 0, size.height > 0 {
                    ownWords[index + 1] = words.map {
                        Word(text: $0.text, boundingBox: BoundingBox(x: $0.x / size.width, y: $0.y / size.height, width: $0.width / size.width,
                                                                     height: $0.height / size.height), confidence: 1)
                    }
                }
            }
            ownText = own
            self.ownWords = ownWords
            toRecognize = recognize
        } catch let error as PDFError {
            Sys.removeIfPresent(pdf.path)
            // Name the document, not the scratch copy.
            throw PDFError(error.kind, source: path)
        }
    }

    /// The scratch file the text layer of page `number` is written to (without `.pdf`).
    func layerBase(_ number: Int) -> String { pdf.path + "-layer-\(number)" }

    func submit(to workers: PageWorkers) {
        if toRecognize.isEmpty { allDone.signal(); return }
        for number in toRecognize {
            workers.submit(PageTask(pdf: pdf.path, index: number - 1, dpi: options.dpi,
                                    layerBase: options.textLayer ? layerBase(number) : nil) { [self] outcome in
                lock.lock()
                results[number] = outcome
                let complete = results.count == toRecognize.count
                lock.unlock()
                if complete { allDone.signal() }
            })
        }
    }

    /// The recognised pages by number, once all are done.
    /// - Throws: the first page's error, naming the page.
    func waitForPages() throws -> [Int: RecognizedPage] {
        allDone.wait()
        lock.lock()
        defer { lock.unlock() }
        var pages: [Int: RecognizedPage] = [:]
        for number in toRecognize {
            switch results[number]! {
            case .success(let page): pages[number] = page
            case .failure(let error as PDFError): throw PDFError(error.kind, source: "\(path), page \(number)")
            case .failure(let error): throw OCRError((error as? OCRError)?.kind ?? .recognition, "page \(number): \(error)")
            }
        }
        return pages
    }

    /// Removes the scratch files.
    func discard() {
        Sys.removeIfPresent(pdf.path)
        Sys.removeIfPresent(pdf.path + "-layered.pdf")
        for number in toRecognize { Sys.removeIfPresent(layerBase(number) + ".pdf") }
    }
}

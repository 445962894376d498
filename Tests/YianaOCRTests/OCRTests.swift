import Crypto
import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSearch
import YianaTestSupport
@testable import YianaOCR

/// The service's `OCRResult` (lh/Yiana, `YianaOCRService/…/Models/OCRResult.swift`), decoded
/// as its `JSONExporter` encodes it (ISO-8601 dates).
private struct ServiceResult: Decodable {
    struct Box: Decodable { let x, y, width, height: Double }
    struct Word: Decodable { let text: String; let boundingBox: Box; let confidence: Double }
    struct Line: Decodable { let text: String; let boundingBox: Box; let words: [Word] }
    struct Block: Decodable { let text: String; let boundingBox: Box; let confidence: Double; let lines: [Line] }
    struct Page: Decodable { let pageNumber: Int; let text: String; let textBlocks: [Block]; let confidence: Double }
    struct Options: Decodable {
        let recognitionLevel: String
        let languages: [String]
        let useLanguageCorrection, extractFormData, extractDemographics: Bool
    }
    struct Metadata: Decodable {
        let processingTime: Double
        let pageCount: Int
        let detectedLanguages, warnings: [String]
        let options: Options
    }
    let id: UUID
    let processedAt: Date
    let documentId: UUID
    let engineVersion: String
    let pages: [Page]
    let confidence: Double
    let metadata: Metadata
}


private func options(jobs: Int = 2) -> OCROptions {
    var options = OCROptions()
    options.jobs = jobs
    return options
}

private func documents(_ library: Library) throws -> [LibraryItem] {
    try LibraryScanner.scan(library).items
}

@Suite(.serialized) struct OCRTests {
    static let page1 = ["Invoice from Harbour Hardware", "Total due fourteen pounds"]
    static let page2 = ["Appointment reminder for Tuesday", "Please bring your medicines list"]

    @Test func recognisesAScanAndWritesWhatTheAppAndItsServiceRead() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Letters"), withIntermediateDirectories: true)
        let scan = try scannedPDF([Self.page1, Self.page2])
        let url = folder.url.appendingPathComponent("Letters/Scan.yianazip")
        var metadata = DocumentMetadata(title: "Scan", pageCount: 2, pdfHash: sha256(scan))
        metadata.pageProcessingStates = [PageProcessingState(pageNumber: 1, needsOCR: true, needsExtraction: true)]
        try CoordinatedDocument.create(at: url.path, metadata: metadata, pdf: .data(scan))

        let report = try OCRRunner(library: library, options: options()).run(try documents(library), named: false)
        #expect(report.documents.map(\.status) == [.recognized])
        #expect(report.documents.first?.pagesRecognized == 2)

        // The metadata, through the app's own decoder.
        let app = try decodeApp(url)
        #expect(app.ocrCompleted)
        #expect(app.ocrSource == .service)
        #expect(app.pageCount == 2)
        #expect(app.ocrConfidence.map { (0.5...1).contains($0) } == true)
        #expect(app.ocrProcessedAt != nil)
        let text = app.fullText ?? ""
        for word in ["Invoice", "Harbour", "Hardware", "fourteen", "Appointment", "Tuesday", "medicines"] {
            #expect(text.contains(word), "fullText lacks \(word): \(text)")
        }
        #expect(text.contains("\n\n"), "pages are separated by a blank line, as the service does")
        let states = app.pageProcessingStates ?? []
        #expect(states.map(\.pageNumber) == [1, 2])
        #expect(states.allSatisfy { !$0.needsOCR && $0.ocrProcessedAt != nil })
        #expect(states.first?.needsExtraction == true, "what the app set for extraction is kept")

        // The PDF: still two pages, the hash true, the text layer readable, the scan untouched.
        let written = try pdfBytes(url)
        #expect(app.pdfHash == sha256(written))
        #expect(written.range(of: scan.subdata(in: scan.range(of: Data("stream\n".utf8))!.upperBound..<scan.count).prefix(100_000)) != nil,
                "the scan's image bytes are in the new PDF as they were")
        let layered = try PDFDocument(data: written, source: "layered")
        let original = try PDFDocument(data: scan, source: "scan")
        #expect(layered.pageCount == 2)
        #expect(layered.text(ofPage: 0).contains("Harbour"))
        #expect(layered.text(ofPage: 1).contains("Tuesday"))
        for page in 0..<2 {
            #expect(try layered.renderGray(page: page, dpi: 50).pixels == original.renderGray(page: page, dpi: 50).pixels,
                    "page \(page + 1) looks exactly as before: the text is invisible")
        }

        // The service's results files, where it writes them.
        try checkResultFiles(folder.url.appendingPathComponent(".ocr_results/Letters/Scan"), documentID: metadata.id)

        // The version read was kept first.
        #expect(try VersionStore(library: library).records().count == 1)

        // Search finds the scanned page by its words, on its page.
        let indexFolder = try TemporaryFolder()
        let index = try SearchIndex(path: indexFolder.path("index.sqlite"))
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        let hits = try await index.search("Tuesday")
        #expect(hits.first?.pages.map(\.number) == [2])

        // Done: a second run leaves it alone.
        let again = try OCRRunner(library: library, options: options()).run(try documents(library), named: false)
        #expect(again.documents.map(\.status) == [.alreadyDone])
    }

    /// The `.json` (the service's shape: pages → blocks → lines → words, boxes within the
    /// page, from its top), `.hocr` and `.xml` results at `base` of a scan of `page1` and `page2`.
    private func checkResultFiles(_ base: URL, documentID: UUID) throws {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let result = try decoder.decode(ServiceResult.self, from: try Data(contentsOf: base.appendingPathExtension("json")))
        #expect(result.documentId == documentID)
        #expect(result.pages.map(\.pageNumber) == [1, 2])
        #expect(result.metadata.pageCount == 2)
        let words = result.pages.flatMap(\.textBlocks).flatMap(\.lines).flatMap(\.words)
        #expect(words.contains { $0.text == "Tuesday" })
        for word in words {
            let box = word.boundingBox
            #expect(box.x >= 0 && box.y >= 0 && box.width > 0 && box.height > 0 && box.x + box.width <= 1 && box.y + box.height <= 1)
            #expect((0...1).contains(word.confidence))
        }
        let invoice = try #require(words.first { $0.text == "Invoice" })
        #expect(invoice.boundingBox.y < 0.2, "boxes are measured from the top of the page")
        let hocr = try String(contentsOf: base.appendingPathExtension("hocr"), encoding: .utf8)
        #expect(hocr.contains("ocrx_word") && hocr.contains("Tuesday"))
        let xml = try String(contentsOf: base.appendingPathExtension("xml"), encoding: .utf8)
        #expect(xml.contains("<Page number=\"2\">") && xml.contains("<DocumentId>\(documentID)</DocumentId>"))
    }

    @Test func pagesWithTheirOwnTextAreKeptAndOnlyScannedPagesRecognised() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let text = pagedPDF([["Quarterly report", "Revenue grew in every region"]])
        let textURL = folder.url.appendingPathComponent("Report.yianazip")
        try CoordinatedDocument.create(at: textURL.path, metadata: DocumentMetadata(title: "Report", pageCount: 1, pdfHash: sha256(text)), pdf: .data(text))
        let mixed = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Letter with scanned page.pdf")))
        let mixedURL = folder.url.appendingPathComponent("Letter.yianazip")
        try CoordinatedDocument.create(at: mixedURL.path, metadata: DocumentMetadata(title: "Letter", pageCount: 2), pdf: .data(mixed))

        let report = try OCRRunner(library: library, options: options()).run(try documents(library), named: false)
        let byPath = Dictionary(uniqueKeysWithValues: report.documents.map { ($0.path, $0) })
        #expect(byPath["Report.yianazip"]?.status == .embedded)
        #expect(byPath["Letter.yianazip"]?.status == .recognized)
        #expect(byPath["Letter.yianazip"]?.pagesRecognized == 1)
        #expect(byPath["Letter.yianazip"]?.pagesWithText == 1)

        let app = try decodeApp(textURL)
        #expect(app.ocrCompleted && app.ocrSource == .embedded)
        #expect(app.fullText?.contains("Revenue grew") == true)
        #expect(try pdfBytes(textURL) == text, "a PDF with text everywhere is not rewritten")
        #expect(app.pdfHash == sha256(text))
        #expect(try decodeApp(mixedURL).ocrSource == .service)

        let resultsURL = folder.url.appendingPathComponent(".ocr_results/Report.json")
        let result = try OCRResult.decode(try Data(contentsOf: resultsURL))
        #expect(result.engineVersion == "embedded-text" && result.pages.first?.confidence == 1)

        // Results files lost (written by the app without them, or a run killed before them)
        // are written again from the PDF's text, as the service does.
        try FileManager.default.removeItem(at: resultsURL)
        let again = try OCRRunner(library: library, options: options()).run(try documents(library), named: false)
        #expect(again.documents.allSatisfy { $0.status == .alreadyDone })
        #expect(FileManager.default.fileExists(atPath: resultsURL.path))
    }

    @Test func aDocumentChangedMeanwhileIsNeverOverwritten() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = folder.url.appendingPathComponent("Scan.yianazip")
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Scan", pageCount: 1),
                                       pdf: .data(try scannedPDF([Self.page2])))
        var options = options(jobs: 1)
        let edited = ManagedFlag()
        options.beforeWrite = { url in
            // Another device's edit lands between the read and the write, once.
            guard edited.setOnce() else { return }
            _ = try? DocumentEditor(library: library).apply(MetadataEdit(title: "Renamed elsewhere", addTags: ["phone"]), to: url)
        }
        let report = try OCRRunner(library: library, options: options).run(try documents(library), named: false)
        #expect(report.documents.map(\.status) == [.recognized])
        let app = try decodeApp(url)
        #expect(app.title == "Renamed elsewhere" && app.tags == ["phone"], "the other device's edit is kept")
        #expect(app.ocrCompleted && app.fullText?.contains("Tuesday") == true, "and the document was recognised again on top of it")
    }

    @Test func failuresAreNamedWithTheReasonAndBackOff() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let encrypted = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Encrypted letter.pdf")))
        try CoordinatedDocument.create(at: folder.path("Locked.yianazip"), metadata: DocumentMetadata(title: "Locked", pageCount: 1), pdf: .data(encrypted))
        try Data("PK\u{3}\u{4}cut off".utf8).write(to: folder.url.appendingPathComponent("Broken.yianazip"))
        try Data("bplist00".utf8).write(to: folder.url.appendingPathComponent(".Evicted.yianazip.icloud"))

        let first = try OCRRunner(library: library, options: options()).run(try documents(library), named: false)
        let byPath = Dictionary(uniqueKeysWithValues: first.documents.map { ($0.path, $0) })
        #expect(byPath["Locked.yianazip"]?.status == .failed)
        #expect(byPath["Locked.yianazip"]?.code == "encrypted-pdf")
        #expect(byPath["Locked.yianazip"]?.error?.contains("Locked.yianazip") == true)
        #expect(byPath["Broken.yianazip"]?.status == .failed)
        #expect(byPath["Evicted.yianazip"]?.status == .notDownloaded)
        #expect(first.failed)
        let retry = try #require(byPath["Locked.yianazip"]?.retryAfter)
        #expect(abs(retry.timeIntervalSinceNow - 300) < 60, "the first failure waits 5 minutes")

        // A run over the library leaves them alone until then; naming one tries it at once.
        let second = try OCRRunner(library: library, options: options()).run(try documents(library), named: false)
        #expect(second.documents.filter { $0.status == .backingOff }.count == 2)
        let named = try OCRRunner(library: library, options: options()).run([LibraryItem(kind: .document, url: folder.url.appendingPathComponent("Locked.yianazip"), documentURL: folder.url.appendingPathComponent("Locked.yianazip"))], named: true)
        #expect(named.documents.first?.status == .failed)
        let failure = try #require(OCRFailures(library: library).all()["Locked.yianazip"])
        #expect(failure.count == 2 && failure.retryAfter.timeIntervalSince(failure.lastAttempt) == 15 * 60)
        #expect([1, 2, 3, 4, 9].map(OCRFailures.backoff(afterFailures:)) == [300, 900, 3600, 21600, 21600])
        #expect(try decodeApp(folder.url.appendingPathComponent("Locked.yianazip")).ocrCompleted == false, "a failed document is left as it was")
    }

    @Test func aMissingLanguageIsRefusedNamingThePackage() {
        do {
            _ = try TesseractEngine(languages: "eng+xyz")
            Issue.record("an engine started without trained data for xyz")
        } catch let error as OCRError {
            #expect(error.kind == .languageMissing)
            #expect(error.description.contains("tesseract-ocr-xyz"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }
}

private final class ManagedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    func setOnce() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if set { return false }
        set = true
        return true
    }
}

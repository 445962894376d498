import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaTestSupport
@testable import YianaOCR

/// `yiana append`: pages joined, old pages unchanged, metadata kept whole and made right,
/// refusals by name, the history's duplicate check, and OCR of the new pages alone.
@Suite(.serialized) struct AppendTests {
    let pdfs = Fixtures.sampleDocs.appendingPathComponent("pdfs")

    func pageTexts(_ url: URL) throws -> [String] {
        let data = try pdfBytes(url)
        let pdf = try PDFDocument(data: data, source: url.lastPathComponent)
        return (0..<pdf.pageCount).map { pdf.text(ofPage: $0) }
    }

    /// The first `pages` pages of the document's PDF rendered at 50 dpi.
    func pixels(_ url: URL, pages: Int) throws -> [[UInt8]] {
        let pdf = try PDFDocument(data: try pdfBytes(url), source: url.lastPathComponent)
        return try (0..<pages).map { try pdf.renderGray(page: $0, dpi: 50).pixels }
    }

    func sourceTexts(_ url: URL) throws -> [String] {
        let pdf = try PDFDocument(path: url.path)
        return (0..<pdf.pageCount).map { pdf.text(ofPage: $0) }
    }

    /// A library with one document: the bank letter (2 pages with text), its metadata with
    /// a key the toolkit does not know, OCR done.
    func library() throws -> (TemporaryFolder, Library, URL) {
        let folder = try TemporaryFolder()
        let pdf = try Data(contentsOf: pdfs.appendingPathComponent("Bank statement reminder.pdf"))
        var metadata = DocumentMetadata(title: "Bank letter", pageCount: 2, pdfHash: sha256(pdf))
        metadata.ocrCompleted = true
        metadata.unknownFields["futureKey"] = .string("kept")
        let url = folder.url.appendingPathComponent("Bank letter.yianazip")
        try CoordinatedDocument.create(at: url.path, metadata: metadata, pdf: .data(pdf))
        return (folder, try Library(root: folder.url), url)
    }

    @Test func pagesAreAddedAndTheOldOnesAndTheMetadataKept() async throws {
        let (folder, library, url) = try library()
        defer { withExtendedLifetime(folder) {} }
        let before = try pageTexts(url)
        let beforePixels = try pixels(url, pages: 2)
        let flow = pdfs.appendingPathComponent("Flow control paper.pdf")
        let report = try Appender(library: library).append([flow], to: url)
        #expect(report.refused.isEmpty && report.appended.map(\.range) == ["3-5"] && report.keptAs != nil)
        let after = try pageTexts(url)
        #expect(after.count == 5)
        #expect(Array(after.prefix(2)) == before, "every old page's text unchanged")
        #expect(try pixels(url, pages: 2) == beforePixels, "every old page draws the same")
        let appended = try sourceTexts(flow)
        #expect(Array(after.suffix(3)) == appended)
        let metadata = try DocumentReader(path: url.path).metadata()
        #expect(metadata.pageCount == 5 && metadata.unknownFields["futureKey"] == .string("kept"))
        #expect(metadata.pdfHash == sha256(try pdfBytes(url)))
        #expect(metadata.ocrCompleted, "no new page needs OCR")
        #expect(metadata.pageProcessingStates.map(\.pageNumber) == [1, 2, 3, 4, 5])
        #expect(metadata.pageProcessingStates.filter(\.needsExtraction).map(\.pageNumber) == [3, 4, 5])
        let app = try decodeApp(url)
        #expect(app.pageCount == 5 && app.pageProcessingStates?.count == 5 && app.pdfHash == metadata.pdfHash)
        #expect(await Verifier(library: library).verify().clean)
        // The version before is kept, and the history names the PDF and its pages.
        let versions = try VersionStore(library: library).versions(of: url)
        #expect(versions.first?.reason == "before an append")
        let entry = try #require(DocumentHistory(library: library).appends(of: report.appended[0].sha256, to: metadata.id.uuidString).first)
        #expect(entry.pages == "3-5" && entry.what == "append")
        #expect(Appender.recordedAppends(metadata) == [.init(sha256: report.appended[0].sha256, pages: "3-5")])
    }

    @Test func whatCannotBeAppendedIsRefusedByNameAndTheRestIsAppended() throws {
        let (folder, library, url) = try library()
        defer { withExtendedLifetime(folder) {} }
        let notPDF = folder.url.appendingPathComponent("notes.txt")
        try Data("just words".utf8).write(to: notPDF)
        let sources = [pdfs.appendingPathComponent("Encrypted letter.pdf"), pdfs.appendingPathComponent("Damaged download.pdf"), notPDF,
                       folder.url.appendingPathComponent("missing.pdf"), pdfs.appendingPathComponent("Filled form.pdf")]
        let report = try Appender(library: library).append(sources, to: url)
        #expect(report.refused.map(\.code.rawValue) == ["encrypted-pdf", "damaged-pdf", "not-a-pdf", "not-found"])
        #expect(report.refused.allSatisfy { $0.reason.hasPrefix($0.path) })
        #expect(report.appended.map(\.path) == [pdfs.appendingPathComponent("Filled form.pdf").path])
        // Once appended, the same PDF is refused, unless asked for.
        let again = try Appender(library: library).append([pdfs.appendingPathComponent("Filled form.pdf")], to: url)
        #expect(again.refused.map(\.code.rawValue) == ["already-appended"] && again.appended.isEmpty)
        // Killed after the write and before the history record: the document itself knows.
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(".yiana"))
        let afterKill = try Appender(library: library).append([pdfs.appendingPathComponent("Filled form.pdf")], to: url)
        #expect(afterKill.refused.map(\.code.rawValue) == ["already-appended"])
        var options = AppendOptions()
        options.allowDuplicates = true
        #expect(try Appender(library: library).append([pdfs.appendingPathComponent("Filled form.pdf")], to: url, options: options).appended.count == 1)
        // A dry run writes nothing.
        let bytes = try Data(contentsOf: url)
        options.dryRun = true
        let dry = try Appender(library: library).append([pdfs.appendingPathComponent("Flow control paper.pdf")], to: url, options: options)
        let after = try Data(contentsOf: url)
        #expect(dry.appended.count == 1 && after == bytes)
    }

    /// Metadata that miscounts the pages is damage `verify` names: the document takes no pages
    /// until `yiana repair` mends it, and then counts from its PDF.
    @Test func aDocumentWhoseMetadataMiscountsIsRepairedFirst() async throws {
        let (folder, library, url) = try library()
        defer { withExtendedLifetime(folder) {} }
        var metadata = try DocumentReader(path: url.path).metadata()
        metadata.pageCount = 7
        try DocumentRewrite(library: library).write(metadata, pdfFrom: url, to: url, replacing: true)
        let form = pdfs.appendingPathComponent("Filled form.pdf")
        #expect(throws: AppendError.self) { try Appender(library: library).append([form], to: url) }
        var repair = RepairOptions()
        repair.settle = 0
        _ = await Repairer(library: library).repair([url], options: repair)
        let report = try Appender(library: library).append([form], to: url)
        #expect(report.pagesBefore == 2 && report.appended.first?.range == "3")
        #expect(try DocumentReader(path: url.path).metadata().pageCount == 3)
    }

    @Test func aDamagedDocumentTakesNoPages() throws {
        let (folder, library, url) = try library()
        defer { withExtendedLifetime(folder) {} }
        let bytes = try Data(contentsOf: url)
        try bytes.prefix(bytes.count - 100).write(to: url)
        #expect(throws: AppendError.self) { try Appender(library: library).append([pdfs.appendingPathComponent("Filled form.pdf")], to: url) }
        let after = try Data(contentsOf: url)
        #expect(after == bytes.prefix(bytes.count - 100))
    }

    @Test func ocrThenRecognisesTheNewPagesAlone() throws {
        let (folder, library, url) = try library()
        defer { withExtendedLifetime(folder) {} }
        let report = try Appender(library: library).append([pdfs.appendingPathComponent("Noise pattern (image only, no words).pdf")], to: url)
        #expect(report.appended.first?.needOCR == [3])
        let metadata = try DocumentReader(path: url.path).metadata()
        #expect(!metadata.ocrCompleted && metadata.pageProcessingStates.filter(\.needsOCR).map(\.pageNumber) == [3])
        var options = OCROptions()
        options.jobs = 1
        let ocr = try OCRRunner(library: library, options: options).run(try LibraryScanner.scan(library).items, named: false)
        #expect(ocr.documents.first?.pagesRecognized == 1 && ocr.documents.first?.pagesWithText == 2)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSync
import YianaTestSupport
@testable import YianaOCR

/// Two devices apart: one injected letters L and M into a scanned document; the other
/// injected L and recognised the scan (a text layer, so a new PDF). `conflicts resolve
/// --strategy merge` keeps the recognised PDF and adds M's pages after it: the letter once,
/// the scan's words found, nothing lost.
@Suite(.serialized) struct AppendMergeTests {
    let name = "Hartley_Ann_030355.yianazip"
    let letterL = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
    let letterM = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"

    func pageTexts(_ url: URL) throws -> [String] {
        let pdf = try PDFDocument(data: try pdfBytes(url), source: url.lastPathComponent)
        return (0..<pdf.pageCount).map { pdf.text(ofPage: $0) }
    }

    func append(_ pdf: URL, letter: String, to folder: TemporaryFolder) throws {
        var options = AppendOptions()
        options.letterID = letter
        let report = try Appender(library: try Library(root: folder.url)).append([pdf], to: folder.url.appendingPathComponent(name), options: options)
        #expect(report.appended.count == 1 && report.refused.isEmpty)
    }

    @Test func ocrOnOneSideAndMoreLettersOnTheOtherMergeIntoOneDocument() async throws {
        let a = try TemporaryFolder(), b = try TemporaryFolder()
        let scan = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("scans/Clinic letter (scan).pdf"))
        var metadata = DocumentMetadata(title: "Hartley_Ann_030355", pageCount: 1, pdfHash: sha256(scan))
        metadata.pageProcessingStates = [PageProcessingState(pageNumber: 1, needsOCR: true, needsExtraction: false)]
        try CoordinatedDocument.create(at: a.path(name), metadata: metadata, pdf: .data(scan))
        try FileManager.default.copyItem(atPath: a.path(name), toPath: b.path(name))
        let l = a.url.appendingPathComponent("l.pdf"), m = a.url.appendingPathComponent("m.pdf")
        try simplePDF(["Dear Mrs Hartley, your results"]).write(to: l)
        try simplePDF(["Appointment reminder for Ann Hartley"]).write(to: m)

        try append(l, letter: letterL, to: a)
        try append(m, letter: letterM, to: a)
        try append(l, letter: letterL, to: b)
        var options = OCROptions()
        options.jobs = 1
        let libraryB = try Library(root: b.url)
        let ocr = try OCRRunner(library: libraryB, options: options).run(try LibraryScanner.scan(libraryB).items, named: false)
        #expect(ocr.documents.first?.pagesRecognized == 1)
        let recognised = try pageTexts(b.url.appendingPathComponent(name))
        #expect(recognised[0].contains("Okafor"), "B's PDF carries the scan's words")
        let bytesA = try Data(contentsOf: a.url.appendingPathComponent(name)), bytesB = try Data(contentsOf: b.url.appendingPathComponent(name))

        let copy = "Hartley_Ann_030355.sync-conflict-20261125-101010-ABCDEF7.yianazip"
        try FileManager.default.copyItem(atPath: b.path(name), toPath: a.path(copy))
        try bringSharedState(from: b.url, to: a.url)
        let library = try Library(root: a.url)
        var resolve = ResolveOptions(strategy: .merge)
        resolve.settle = 0
        let report = try await ConflictResolver(library: library).resolve(resolve)
        #expect(report.failed.isEmpty, "\(report)")
        #expect(!FileManager.default.fileExists(atPath: a.path(copy)))
        #expect(try LibraryScanner.scan(library).items.map(\.url.lastPathComponent) == [name], "no (other PDF) document")

        let url = a.url.appendingPathComponent(name)
        let texts = try pageTexts(url)
        #expect(texts.count == 3)
        #expect(texts[0] == recognised[0] && texts[1] == recognised[1], "B's pages as B has them: the scan with its words, then L")
        #expect(texts.filter { $0.contains("your results") }.count == 1, "L once")
        #expect(texts[2].contains("Appointment reminder"), "M after them")
        let merged = try DocumentReader(path: url.path).metadata()
        let mergedHash = sha256(try pdfBytes(url))
        #expect(merged.pageCount == 3 && merged.pdfHash == mergedHash)
        #expect(merged.ocrCompleted && merged.fullText?.contains("Okafor") == true, "B's recognition kept")
        #expect(merged.pageProcessingStates.map(\.pageNumber) == [1, 2, 3] && !merged.pageProcessingStates.contains(where: \.needsOCR))
        let appends = Appender.recordedAppends(merged)
        #expect(appends.map(\.pages) == ["2", "3"] && appends.map { $0.letter?.lowercased() } == [letterL, letterM])
        let app = try decodeApp(url)
        #expect(app.pageCount == 3 && app.pdfHash == merged.pdfHash && app.pageProcessingStates?.count == 3)
        #expect(await Verifier(library: library).verify().clean)
        // Nothing lost: both sides' versions are in the store, byte for byte.
        let store = VersionStore(library: library)
        let kept = try store.records().compactMap { try? Data(contentsOf: store.objectURL($0)) }
        #expect(kept.contains(bytesA) && kept.contains(bytesB))
        // A second resolve finds nothing to do.
        #expect(try await ConflictResolver(library: library).resolve(resolve).resolutions.isEmpty)
    }
}

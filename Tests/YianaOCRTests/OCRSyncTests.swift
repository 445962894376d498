import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaOCR

/// What `yiana ocr` does with what a sync program leaves: conflict copies of documents are
/// left for resolving; conflict copies of results files are settled on the recognition the
/// document holds.
@Suite struct OCRSyncTests {
    func library(_ folder: TemporaryFolder) throws -> Library { try Library(root: folder.url) }

    func runner(_ library: Library) -> OCRRunner {
        var options = OCROptions()
        options.jobs = 1
        return OCRRunner(library: library, options: options)
    }

    @Test func aConflictCopyOfADocumentIsLeftAsItIs() throws {
        let folder = try TemporaryFolder()
        let scan = try scannedPDF([["conflict copy words"]], dpi: 150)
        let names = ["Letter.yianazip", "Letter.sync-conflict-20261123-101500-ABCDEF7.yianazip",
                     "Letter (Bob's conflicted copy 2026-11-23).yianazip"]
        for name in names {
            try CoordinatedDocument.create(at: folder.path(name), metadata: DocumentMetadata(title: "Letter", pageCount: 1), pdf: .data(scan))
        }
        let before = try names.map { try Data(contentsOf: folder.url.appendingPathComponent($0)) }
        let library = try library(folder)
        let report = try runner(library).run(try LibraryScanner.scan(library).items, named: false)
        let statuses = Dictionary(uniqueKeysWithValues: report.documents.map { ($0.path, $0.status) })
        #expect(statuses == [names[0]: .recognized, names[1]: .conflictCopy, names[2]: .conflictCopy])
        #expect(report.documents.first { $0.status == .conflictCopy }?.error?.contains("yiana conflicts resolve") == true)
        #expect(!report.failed)
        for (name, bytes) in zip(names.dropFirst(), before.dropFirst()) {
            #expect(try Data(contentsOf: folder.url.appendingPathComponent(name)) == bytes, "\(name) is a version: never changed")
        }
        let results = try FileManager.default.contentsOfDirectory(atPath: folder.path(".ocr_results")).sorted()
        #expect(results == ["Letter.hocr", "Letter.json", "Letter.xml"])
    }

    /// Two devices recognised the document; the sync program kept the results of the one
    /// whose recognition the document does not hold under the plain names.
    @Test func conflictCopiesOfResultsAreSettledOnTheDocumentsRecognition() throws {
        let folder = try TemporaryFolder()
        let library = try library(folder)
        let url = folder.url.appendingPathComponent("Letter.yianazip")
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Letter", pageCount: 1),
                                       pdf: .data(try scannedPDF([["settled results"]], dpi: 150)))
        let first = try runner(library).run(try LibraryScanner.scan(library).items, named: false)
        #expect(first.documents.map(\.status) == [.recognized])
        let results = folder.url.appendingPathComponent(".ocr_results")
        let held = try Data(contentsOf: results.appendingPathComponent("Letter.json"))
        let heldXML = try Data(contentsOf: results.appendingPathComponent("Letter.xml"))

        // The other device's recognition, a minute earlier, under the plain names; this
        // device's as Syncthing's conflict copies; a stray copy of the hOCR too.
        // The time as the results files hold it (read from them: the metadata's copy, a Double,
        // can round across a second boundary), a minute earlier.
        let stamp = ISO8601DateFormatter()
        let heldText = String(decoding: held, as: UTF8.self)
        let field = try #require(heldText.range(of: #""processedAt"\s*:\s*"[^"]+""#, options: .regularExpression).map { String(heldText[$0]) })
        let written = String(try #require(field.split(separator: "\"").last))
        let earlier = stamp.string(from: try #require(stamp.date(from: written)).addingTimeInterval(-60))
        func other(_ data: Data) -> Data {
            Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: written, with: earlier).utf8)
        }
        let copy = "Letter.sync-conflict-20261123-101500-ABCDEF7"
        try FileManager.default.moveItem(at: results.appendingPathComponent("Letter.json"), to: results.appendingPathComponent(copy + ".json"))
        try FileManager.default.moveItem(at: results.appendingPathComponent("Letter.xml"), to: results.appendingPathComponent(copy + ".xml"))
        try other(held).write(to: results.appendingPathComponent("Letter.json"))
        try other(heldXML).write(to: results.appendingPathComponent("Letter.xml"))
        #expect(try Data(contentsOf: results.appendingPathComponent("Letter.json")) != held, "the test's other recognition differs")
        try FileManager.default.copyItem(at: results.appendingPathComponent("Letter.hocr"), to: results.appendingPathComponent(copy + ".hocr"))
        // A copy of another document's results is not this one's to settle.
        try Data("{}".utf8).write(to: results.appendingPathComponent("Letter 2.sync-conflict-20261123-101500-ABCDEF7.json"))

        let second = try runner(library).run(try LibraryScanner.scan(library).items, named: false)
        #expect(second.documents.map(\.status) == [.alreadyDone])
        #expect(second.documents.first?.resultCopiesRemoved == 3)
        #expect(try Data(contentsOf: results.appendingPathComponent("Letter.json")) == held, "the results of the recognition the document holds")
        #expect(try Data(contentsOf: results.appendingPathComponent("Letter.xml")) == heldXML)
        #expect(try FileManager.default.contentsOfDirectory(atPath: results.path).sorted()
                == ["Letter 2.sync-conflict-20261123-101500-ABCDEF7.json", "Letter.hocr", "Letter.json", "Letter.xml"])
    }

    /// A two-column scan (SampleDocs: skewed, grainy, JPEG) reads column by column, as the
    /// tesseract command and the app's service read it, not across both columns.
    @Test func aTwoColumnPageReadsColumnByColumn() throws {
        let folder = try TemporaryFolder()
        let library = try library(folder)
        let url = folder.url.appendingPathComponent("Newsletter.yianazip")
        let scan = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("scans/Parish newsletter, two columns (scan).pdf")))
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Newsletter", pageCount: 1), pdf: .data(scan))
        let report = try runner(library).run(try LibraryScanner.scan(library).items, named: false)
        #expect(report.documents.map(\.status) == [.recognized])
        let text = try #require(try DocumentReader(path: url.path).metadata().fullText)
        #expect(text.contains("Rainfall in the upper valley\nwas measured at twelve sites"), "\(text)")
        let leftEnd = try #require(text.range(of: "fences and drainage ditches."))
        let rightStart = try #require(text.range(of: "The council will publish a"))
        #expect(leftEnd.upperBound <= rightStart.lowerBound, "the left column comes whole before the right: \(text)")
    }
}

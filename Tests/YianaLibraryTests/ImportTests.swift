import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

@Suite("import")
struct ImportTests {
    func run(_ paths: [String], in library: Library, _ options: ImportOptions = ImportOptions(jobs: 2)) async throws -> ImportReport {
        try await Importer(library: library).run(paths, options: options)
    }

    func copy(_ sample: String, to url: URL) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixtures.sample(sample), toPath: url.path)
    }

    @Test func importsAFolderKeepingItsStructureAndReportsBadPDFs() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let report = try await run([Fixtures.sample("pdfs")], in: library, ImportOptions(tags: ["inbox"], jobs: 2))

        #expect(report.imported.map(\.document).sorted() == [
            "pdfs/Bank statement reminder.yianazip", "pdfs/Filled form.yianazip", "pdfs/Flow control paper.yianazip",
            "pdfs/Letter with scanned page.yianazip", "pdfs/Noise pattern (image only, no words).yianazip"])
        #expect(Set(report.failed.map(\.code)) == ["encrypted-pdf", "damaged-pdf"])
        #expect(report.failed.allSatisfy { $0.reason.contains($0.source) })
        #expect(report.hasFailures)
        // Nothing is left of the two refused: no document, no temporary file.
        let left = try FileManager.default.contentsOfDirectory(atPath: library.root.appendingPathComponent("pdfs").path)
        #expect(left.sorted() == report.imported.map { ($0.document as NSString).lastPathComponent }.sorted())

        let paper = try #require(report.imported.first { $0.title == "Flow control paper" })
        let reader = try DocumentReader(path: library.root.appendingPathComponent(paper.document).path)
        let metadata = try reader.verifyContents()
        #expect(metadata.pageCount == 3)
        #expect(metadata.tags == ["inbox"])
        #expect(metadata.ocrCompleted == false)
        #expect(metadata.id.uuidString == paper.id && paper.id == paper.id.uppercased())
        let source = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Flow control paper.pdf")))
        var stored = Data()
        try reader.readPDF { stored.append(contentsOf: $0) }
        #expect(stored == source)
        #expect(metadata.pdfHash == "dfd689bcddbf352602fd8c33a356ef0b272de668e8da0b169dedc75e9507c1da")  // sha256sum of the sample
    }

    @Test func aPDFAlreadyInTheLibraryIsSkippedUnlessAllowed() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let pdf = Fixtures.sample("pdfs/Bank statement reminder.pdf")
        _ = try await run([pdf], in: library)
        let again = try await run([pdf, pdf], in: library)
        #expect(again.imported.isEmpty)
        #expect(again.skipped.map(\.existing) == ["Bank statement reminder.yianazip", "Bank statement reminder.yianazip"])
        #expect(!again.hasFailures)

        let forced = try await run([pdf], in: library, ImportOptions(jobs: 1, allowDuplicates: true))
        #expect(forced.imported.map(\.document) == ["Bank statement reminder 1.yianazip"])
    }

    /// PDFs of one size are hashed before they are written (they might be duplicates), the
    /// others while they are copied: both ways record the same true `pdfHash`.
    @Test func pdfsOfOneSizeAreComparedByHashAndOthersHashedWhileCopied() async throws {
        let folder = try TemporaryFolder()
        let input = try TemporaryFolder()
        let sample = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Bank statement reminder.pdf")))
        for (name, tail) in [("a", "% copy A\n"), ("b", "% copy B\n"), ("c", "% a longer copy C\n")] {
            try (sample + Data(tail.utf8)).write(to: input.url.appendingPathComponent("\(name).pdf"))
        }
        let report = try await run(["a", "b", "c", "a"].map { input.path("\($0).pdf") }, in: try Library(root: folder.url))
        #expect(report.imported.map(\.title).sorted() == ["a", "b", "c"])
        #expect(report.skipped.map(\.existing) == ["a.yianazip"])
        for item in report.imported {
            #expect(item.pdfHash == (try FileHash.sha256(of: input.url.appendingPathComponent("\(item.title).pdf"))))
            let stored = try DocumentReader(path: folder.path(item.document)).verifyContents()
            #expect(stored.pdfHash == item.pdfHash)
        }
    }

    @Test func aDocumentWithoutPdfHashIsStillRecognisedAsADuplicate() async throws {
        // The legacy sample holds the paper's exact bytes and no pdfHash.
        let folder = try TemporaryFolder()
        try copy("archives/Legacy Separator.yianazip", to: folder.url.appendingPathComponent("Old/Legacy.yianazip"))
        let report = try await run([Fixtures.sample("pdfs/Flow control paper.pdf")], in: try Library(root: folder.url))
        #expect(report.skipped.map(\.existing) == ["Old/Legacy.yianazip"])
    }

    @Test func namesAreNumberedLikeTheAppAndPlaceholdersAndCaseVariantsCount() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        // "statement.yianazip" exists in another case; "statement 1" is evicted to a placeholder.
        try Data("x".utf8).write(to: folder.url.appendingPathComponent("Letters/STATEMENT.yianazip").creatingParent())
        try Data("stub".utf8).write(to: folder.url.appendingPathComponent("Letters/.statement 1.yianazip.icloud"))
        let input = try TemporaryFolder()
        try copy("pdfs/Bank statement reminder.pdf", to: input.url.appendingPathComponent("statement.pdf"))
        try copy("pdfs/Flow control paper.pdf", to: input.url.appendingPathComponent("other/statement.pdf"))
        let report = try await run([input.path("statement.pdf"), input.path("other/statement.pdf")], in: library,
                                   ImportOptions(into: "Letters", jobs: 1))
        #expect(report.imported.map(\.document) == ["Letters/statement 2.yianazip", "Letters/statement 3.yianazip"])
    }

    @Test func concurrentImportsOfSameNamedPDFsGetDistinctNames() async throws {
        let folder = try TemporaryFolder()
        let input = try TemporaryFolder()
        for index in 0..<6 {
            // Different bytes (a trailing comment), same file name in different folders.
            var data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Bank statement reminder.pdf")))
            data.append(Data("% copy \(index)\n".utf8))
            try data.write(to: input.url.appendingPathComponent("\(index)/scan.pdf").creatingParent())
        }
        let paths = (0..<6).map { input.path("\($0)/scan.pdf") }
        let report = try await run(paths, in: try Library(root: folder.url), ImportOptions(jobs: 6))
        #expect(report.imported.count == 6)
        #expect(Set(report.imported.map(\.document)) == Set((0..<6).map { DocumentNaming.fileName(stem: "scan", number: $0) }))
    }

    @Test func inputsThatAreNotPDFsAreReportedAndTheRestImported() async throws {
        let folder = try TemporaryFolder()
        let input = try TemporaryFolder()
        try Data("just text".utf8).write(to: input.url.appendingPathComponent("notes.pdf"))
        let report = try await run([input.path("notes.pdf"), input.path("missing.pdf"), Fixtures.sample("pdfs/Flow control paper.pdf")],
                                   in: try Library(root: folder.url))
        #expect(report.failed.map(\.code) == ["not-found", "not-a-pdf"])
        #expect(report.imported.count == 1)
    }

    @Test func importingOutsideTheLibraryIsRefused() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        await #expect(throws: LibraryError.outsideLibrary("../elsewhere")) {
            _ = try await run([Fixtures.sample("pdfs")], in: library, ImportOptions(into: "../elsewhere"))
        }
    }
}

@Suite("library")
struct LibraryTests {
    @Test(arguments: [("Invoice 3/4: March", "Invoice 3-4- March"), (".hidden", "-hidden"), ("  ", "Untitled"),
                      ("a\u{7}b", "a b"), (String(repeating: "é", count: 200), String(repeating: "é", count: 120))])
    func fileStemsFollowTheAppAndStayVisible(title: String, stem: String) {
        #expect(DocumentNaming.stem(forTitle: title) == stem)
    }

    @Test func placeholderNames() {
        #expect(PlaceholderName.documentName(forStub: ".Report.yianazip.icloud") == "Report.yianazip")
        #expect(PlaceholderName.documentName(forStub: ".Report.yianazip-tef.icloud") == "Report.yianazip")
        #expect(PlaceholderName.documentName(forStub: ".Photo.jpg.icloud") == nil)
        #expect(PlaceholderName.documentName(forStub: "Report.yianazip") == nil)
    }

    @Test func theScanListsDocumentsAndPlaceholdersAndSkipsHiddenFolders() throws {
        let folder = try TemporaryFolder()
        for name in ["A.yianazip", "Sub/B.yianazip", "Sub/.C.yianazip.icloud", ".ocr_results/Sub/B.json",
                     ".yiana/versions/x.yianazip", "Sub/.B.yianazip.yiana-tmp-0000abcd", "notes.txt"] {
            try Data().write(to: folder.url.appendingPathComponent(name).creatingParent())
        }
        let items = try LibraryScanner.scan(folder.url)
        #expect(items.map(\.kind) == [.document, .placeholder, .document])
        #expect(items.map { $0.documentURL.lastPathComponent } == ["A.yianazip", "C.yianazip", "B.yianazip"])
    }

    @Test func theLibraryComesFromTheFlagThenTheEnvironmentThenTheCurrentFolder() throws {
        let a = try TemporaryFolder(), b = try TemporaryFolder(), c = try TemporaryFolder()
        let resolved = { (flag: String?, env: [String: String]) in
            try Library.resolve(explicit: flag, environment: env, currentDirectory: c.url.path).root.path
        }
        #expect(try resolved(a.url.path, ["YIANA_LIBRARY": b.url.path]) == Library(root: a.url).root.path)
        #expect(try resolved(nil, ["YIANA_LIBRARY": b.url.path]) == Library(root: b.url).root.path)
        #expect(try resolved(nil, [:]) == Library(root: c.url).root.path)
        #expect(throws: LibraryError.noSuchLibrary(a.url.appendingPathComponent("missing").path)) {
            try resolved(a.url.appendingPathComponent("missing").path, [:])
        }
    }
}

extension URL {
    /// The URL, after creating its parent folder.
    func creatingParent() throws -> URL {
        try FileManager.default.createDirectory(at: deletingLastPathComponent(), withIntermediateDirectories: true)
        return self
    }
}

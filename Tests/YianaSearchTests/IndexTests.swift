import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

/// A library with one document of every kind the index must tell apart.
struct IndexFixture: Sendable {
    let folder: TemporaryFolder
    let library: Library
    let index: any IndexStore
    let indexFolder: TemporaryFolder

    init(_ backend: IndexBackend = .sqlite) async throws {
        folder = try TemporaryFolder()
        indexFolder = try TemporaryFolder()
        library = try Library(root: folder.url)
        index = try await backend.makeIndex(for: library, in: indexFolder)
        let pdfs = Fixtures.sampleDocs.appendingPathComponent("pdfs")
        _ = try await Importer(library: library).run([pdfs.appendingPathComponent("Bank statement reminder.pdf").path],
                                                     options: ImportOptions(into: "Letters", tags: ["bank", "2026"], jobs: 1))
        _ = try await Importer(library: library).run([pdfs.appendingPathComponent("Flow control paper.pdf").path,
                                                      pdfs.appendingPathComponent("Noise pattern (image only, no words).pdf").path],
                                                     options: ImportOptions(into: "Papers", tags: ["research"], jobs: 1))
        // A scan whose text came from the app's OCR service.
        var ocr = DocumentMetadata(title: "Receipt with OCR", pageCount: 1, tags: ["receipt"])
        ocr.fullText = "Hardware store receipt: screws, hinges and varnish"
        ocr.ocrCompleted = true
        try CoordinatedDocument.create(at: folder.path("Receipt with OCR.yianazip"), metadata: ocr,
                                       pdf: .data(try Data(contentsOf: pdfs.appendingPathComponent("Noise pattern (image only, no words).pdf"))))
        try CoordinatedDocument.create(at: folder.path("Locked.yianazip"), metadata: DocumentMetadata(title: "Locked", pageCount: 1),
                                       pdf: .data(try Data(contentsOf: pdfs.appendingPathComponent("Encrypted letter.pdf"))))
        try Data("PK\u{3}\u{4}cut off".utf8).write(to: folder.url.appendingPathComponent("Broken.yianazip"))
        try Data("bplist00".utf8).write(to: folder.url.appendingPathComponent(".Evicted report.yianazip.icloud"))
        try FileManager.default.copyItem(atPath: Fixtures.sample("archives/Legacy Separator.yianazip"), toPath: folder.path("Legacy.yianazip"))
    }

    func run(_ options: IndexOptions = IndexOptions(jobs: 2)) async throws -> IndexReport {
        try await Indexer(library: library, index: index).run(options: options)
    }

    func status(_ path: String, in report: IndexReport) -> IndexStatus? {
        report.documents.first { $0.path == path }?.status
    }
}

@Suite("indexing")
struct IndexTests {
    /// Several tags: every one must be on the document (in any case, each counted once), and a
    /// thousand and more are one subquery, not a thousand nested ones past SQLite's depth.
    @Test(arguments: IndexBackend.allCases)
    func everyTagGivenMustBeThere(backend: IndexBackend) async throws {
        let fixture = try await IndexFixture(backend)
        _ = try await fixture.run()
        let index = fixture.index
        var options = SearchOptions()
        options.tags = ["BANK", "2026", "bank"]
        #expect(try await index.search("statement", options: options).map(\.path) == ["Letters/Bank statement reminder.yianazip"])
        options.tags = ["bank", "research"]
        #expect(try await index.search("statement", options: options).isEmpty)
        options.tags = ["bank"] + (1...1500).map { "tag\($0)" }
        #expect(try await index.search("statement", options: options).isEmpty)
    }

    @Test(arguments: IndexBackend.allCases)
    func everyDocumentGetsAStatus(backend: IndexBackend) async throws {
        let fixture = try await IndexFixture(backend)
        let report = try await fixture.run()
        #expect(report.extracted == 7)
        let statuses = Dictionary(uniqueKeysWithValues: report.documents.map { ($0.path, $0.status) })
        #expect(statuses == [
            "Letters/Bank statement reminder.yianazip": .ok,
            "Papers/Flow control paper.yianazip": .ok,
            "Papers/Noise pattern (image only, no words).yianazip": .noTextLayer,
            "Receipt with OCR.yianazip": .ok,
            "Locked.yianazip": .encrypted,
            "Broken.yianazip": .damaged,
            "Evicted report.yianazip": .notDownloaded,
            "Legacy.yianazip": .ok,
        ])
        let ocr = try #require(report.documents.first { $0.path == "Receipt with OCR.yianazip" })
        #expect(ocr.ocrPages == 1 && ocr.textPages == 0)
        let letter = try #require(report.documents.first { $0.path == "Letters/Bank statement reminder.yianazip" })
        #expect(letter.textPages == 2 && letter.pages == 2)
        #expect(report.problems.count == 4)
        #expect(report.problems.allSatisfy { $0.reason?.isEmpty == false })
    }

    @Test(arguments: IndexBackend.allCases)
    func aSecondRunOnlyLooksAtWhatChanged(backend: IndexBackend) async throws {
        let fixture = try await IndexFixture(backend)
        _ = try await fixture.run()
        let again = try await fixture.run()
        #expect(again.extracted == 0 && again.reused == 0 && again.removed == 0)
        #expect(again.unchanged == 8)
    }

    /// Two names that differ only in their Unicode normalization (é as one code point, and as
    /// e with a combining accent: on Linux both can be in one folder, as sync brings them from
    /// different systems) are two documents, as they are two files and two rows: each indexed
    /// once and unchanged after, and the one deleted is the one removed.
    @Test(arguments: IndexBackend.allCases)
    func namesThatDifferOnlyInNormalizationAreTwoDocuments(backend: IndexBackend) async throws {
        let fixture = try await IndexFixture(backend)
        let composed = "Caf\u{E9}.yianazip", decomposed = "Cafe\u{301}.yianazip"
        for name in [composed, decomposed] {
            try FileManager.default.copyItem(atPath: fixture.folder.path("Receipt with OCR.yianazip"), toPath: fixture.folder.path(name))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: fixture.folder.url.path).filter { $0.hasPrefix("Caf") }.count == 2)
        let first = try await fixture.run()
        #expect(first.changed.filter { $0.hasPrefix("Caf") }.count == 2)
        let again = try await fixture.run()
        #expect(again.extracted == 0 && again.reused == 0 && again.removed == 0)
        #expect(again.unchanged == 10)
        try FileManager.default.removeItem(atPath: fixture.folder.path(decomposed))
        let after = try await fixture.run()
        #expect(after.removedPaths.map { Array($0.unicodeScalars) } == [Array(decomposed.unicodeScalars)])
        #expect(after.unchanged == 9 && after.extracted == 0)
    }

    @Test(arguments: IndexBackend.allCases)
    func changesDeletionsMovesAndRenames(backend: IndexBackend) async throws {
        let fixture = try await IndexFixture(backend)
        _ = try await fixture.run()
        let root = fixture.folder.url
        // Rename and move: the same bytes under a new path are not extracted again.
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Archive"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: root.appendingPathComponent("Papers/Flow control paper.yianazip"),
                                         to: root.appendingPathComponent("Archive/Paper on flow.yianazip"))
        // Deletion.
        try FileManager.default.removeItem(at: root.appendingPathComponent("Legacy.yianazip"))
        // A metadata change (new title and tag), same PDF: pages copied, new title searchable.
        let letterPath = root.appendingPathComponent("Letters/Bank statement reminder.yianazip").path
        var metadata = try DocumentReader(path: letterPath).metadata()
        metadata.title = "Quarterly reminder"
        metadata.tags.append("urgent")
        let pdf = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))
        try CoordinatedDocument.replace(at: letterPath, metadata: metadata, pdf: .data(pdf))
        // A content change: new PDF bytes are extracted.
        try CoordinatedDocument.replace(at: root.appendingPathComponent("Receipt with OCR.yianazip").path,
                                        metadata: DocumentMetadata(title: "Receipt with OCR", pageCount: 2),
                                        pdf: .data(pdf + Data("% edited\n".utf8)))

        let report = try await fixture.run()
        #expect(report.reused == 2)
        #expect(report.extracted == 1)
        #expect(report.removed == 2)
        #expect(!report.documents.contains { $0.path.hasPrefix("Papers/Flow") || $0.path == "Legacy.yianazip" })
        #expect(try await fixture.index.search("flow control").map(\.path) == ["Archive/Paper on flow.yianazip"])
        #expect(try await fixture.index.search("IBAN").map(\.path).sorted() == ["Letters/Bank statement reminder.yianazip", "Receipt with OCR.yianazip"])
        #expect(try await fixture.index.search("quarterly").first?.path == "Letters/Bank statement reminder.yianazip")
        var urgent = SearchOptions()
        urgent.tags = ["URGENT"]
        #expect(try await fixture.index.search("balance", options: urgent).count == 1)
        #expect(try await fixture.index.search("hinges").isEmpty)
    }

    @Test(arguments: IndexBackend.allCases)
    func anInterruptedRunLeavesAUsableIndexAndTheNextFinishes(backend: IndexBackend) async throws {
        let fixture = try await IndexFixture(backend)
        var options = IndexOptions(jobs: 1)
        options.batchSize = 2
        let task = Task {
            try await Indexer(library: fixture.library, index: fixture.index).run(options: options) { progress in
                if progress.completed == 5 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let interrupted = await task.result
        #expect(throws: CancellationError.self) { try interrupted.get() }
        let partial = try await Indexer(library: fixture.library, index: fixture.index).statuses()
        #expect(partial.count >= 2 && partial.count < 8)
        _ = try await fixture.index.search("statement")
        let finished = try await fixture.run()
        #expect(finished.documents.count == 8)
        // What the interrupted run stored is kept; the next run reads only the rest (the
        // placeholder among them, if it was not reached, is read but has nothing to extract).
        #expect(finished.unchanged == partial.count)
        #expect(finished.extracted + finished.reused >= 7 - partial.count)
    }

    /// The legacy "metadata + FF FF FF FF + nothing" has no PDF: indexed by its title and
    /// said to have no PDF, not called damaged.
    @Test(arguments: IndexBackend.allCases)
    func aLegacyDocumentWithoutAPDFIsNotDamaged(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let metadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"Parking permit","created":800000000,"modified":800000001.5,"pageCount":0,"tags":[],"ocrCompleted":false}"#
        try Data(Array(metadata.utf8) + [0xFF, 0xFF, 0xFF, 0xFF]).write(to: folder.url.appendingPathComponent("Permit.yianazip"))
        let index = try await backend.makeIndex(for: try Library(root: folder.url), in: indexFolder)
        let report = try await Indexer(library: try Library(root: folder.url), index: index).run(options: IndexOptions(jobs: 1))
        #expect(report.documents.map(\.status) == [.noTextLayer])
        #expect(report.documents.first?.reason?.contains("no PDF") == true, "\(report.documents)")
        #expect(try await index.search("parking").map(\.path) == ["Permit.yianazip"])
    }

    /// A letter whose second page was scanned in and OCR'd by the app: the text layer of
    /// page 1 and the OCR text both are searched; the OCR results say which page.
    @Test(arguments: IndexBackend.allCases, [true, false])
    func theAppsOCRTextIsSearchedBesideTheTextLayer(backend: IndexBackend, withResults: Bool) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let pdf = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Letter with scanned page.pdf"))
        var metadata = DocumentMetadata(title: "Letter", pageCount: 2)
        metadata.fullText = "Dear Ms. Lefèvre, your account summary\n\nHardware store receipt: hinges and varnish"
        metadata.ocrCompleted = true
        metadata.ocrSource = "service"
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Post"), withIntermediateDirectories: true)
        try CoordinatedDocument.create(at: folder.path("Post/Letter.yianazip"), metadata: metadata, pdf: .data(pdf))
        if withResults {
            // As the app's OCR service writes them: `.ocr_results/<folder>/<name>.json`.
            let results = folder.url.appendingPathComponent(".ocr_results/Post")
            try FileManager.default.createDirectory(at: results, withIntermediateDirectories: true)
            try Data(#"{"documentId":"Letter","confidence":0.9,"pages":[{"pageNumber":1,"confidence":0.9,"text":"Dear Ms. Lefevre","textBlocks":[]},{"pageNumber":2,"confidence":0.8,"text":"Hardware store receipt: hinges and varnish","textBlocks":[]}]}"#.utf8)
                .write(to: results.appendingPathComponent("Letter.json"))
        }
        let index = try await backend.makeIndex(for: try Library(root: folder.url), in: indexFolder)
        let report = try await Indexer(library: try Library(root: folder.url), index: index).run(options: IndexOptions(jobs: 1))
        #expect(report.documents.map(\.status) == [.ok])
        let varnish = try #require(try await index.search("varnish").first)
        #expect(varnish.pages.map(\.number) == [withResults ? 2 : 0] && varnish.pages.map(\.source) == [.ocr], "\(varnish.pages)")
        let summary = try #require(try await index.search("summary").first)
        #expect(summary.pages.contains { $0.number == 1 && $0.source == .pdf }, "\(summary.pages)")
    }

    /// A PDF whose only text is its filled form fields is indexed by their values.
    @Test(arguments: IndexBackend.allCases)
    func filledFormFieldsAreIndexed(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        _ = try await Importer(library: library).run([Fixtures.sample("pdfs/Filled form.pdf")], options: ImportOptions(jobs: 1))
        let index = try await backend.makeIndex(for: library, in: indexFolder)
        let report = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        #expect(report.documents.map(\.status) == [.ok], "\(report.documents)")
        for query in ["Quellenhof", "QX-58213", "riverside physiotherapy"] {
            #expect(try await index.search(query).first?.pages.first?.number == 1, "\(query)")
        }
    }

    /// A document whose name is not UTF-8 is reported as failed, by its escaped name.
    @Test(arguments: IndexBackend.allCases)
    func aNameThatIsNotUTF8IsAProblemNotSilence(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("Good.yianazip"), metadata: DocumentMetadata(title: "Good", pageCount: 1), pdf: .data(simplePDF(["good"])))
        try createFile(named: [0xFF, 0xFE] + Array(".yianazip".utf8), in: folder.url, contents: try Data(contentsOf: folder.url.appendingPathComponent("Good.yianazip")))
        let index = try await backend.makeIndex(for: try Library(root: folder.url), in: indexFolder)
        let report = try await Indexer(library: try Library(root: folder.url), index: index).run(options: IndexOptions(jobs: 1))
        #expect(report.problems.map(\.path) == ["\\xFF\\xFE.yianazip"] && report.problems.map(\.status) == [.failed])
    }

    @Test func theIndexLivesOutsideTheLibrary() throws {
        let library = URL(fileURLWithPath: "/home/someone/iCloud Drive/Yiana")
        let path = SearchIndex.defaultLocation(for: library, environment: ["XDG_CACHE_HOME": "/home/someone/.cache"])
        #expect(path.hasPrefix("/home/someone/.cache/yiana-tools/index-Yiana-"))
        #expect(path != SearchIndex.defaultLocation(for: URL(fileURLWithPath: "/other/Yiana"), environment: ["XDG_CACHE_HOME": "/c"]))
    }
}

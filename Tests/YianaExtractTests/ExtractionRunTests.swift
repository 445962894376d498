import Foundation
import Testing
import YianaArchive
import YianaExtract
import YianaLibrary
import YianaTestSupport

/// `ExtractionRun` on a library: where it reads, what it writes, and what it never touches.
struct ExtractionRunTests {
    static let label = "Mary Taylor\n133 Manor Way\n47 Mill Lane\nBrighton\nGG7 8WN"

    /// A document `title` whose OCR results (as the app's service writes them) hold `pages`.
    static func document(_ title: String, pages: [String], in root: URL) throws -> URL {
        let url = root.appendingPathComponent("\(title).yianazip")
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: title, pageCount: pages.count), pdf: nil)
        try results(title, pages: pages, in: root)
        return url
    }

    static func results(_ title: String, pages: [String], in root: URL) throws {
        let folder = root.appendingPathComponent(".ocr_results")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let json = pages.enumerated().map { #"{"pageNumber":\#($0.offset + 1),"confidence":0.9,"text":\#(Self.quoted($0.element))}"# }
        try Data(#"{"documentId":"\#(title)","pages":[\#(json.joined(separator: ","))]}"#.utf8).write(to: folder.appendingPathComponent("\(title).json"))
    }

    static func quoted(_ text: String) -> String { String(decoding: try! JSONEncoder().encode(text), as: UTF8.self) }

    static func run(_ library: Library, dryRun: Bool = false) throws -> [ExtractionResult] {
        var run = ExtractionRun(library: library)
        run.dryRun = dryRun
        return run.run(try LibraryScanner.scan(library).items)
    }

    @Test func theAddressFileIsTheAppsAndWhatIsNotExtractionsIsKept() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        _ = try Self.document("Walker_Zach_190991", pages: [Self.label, "no one here"], in: folder.url)
        #expect(try Self.run(library, dryRun: true).map(\.status) == [.wouldExtract])
        #expect(!FileManager.default.fileExists(atPath: folder.path(".addresses")))

        let first = try Self.run(library)
        #expect(first.map(\.status) == [.extracted] && first[0].addressFile == ".addresses/Walker_Zach_190991.json")
        let file = folder.url.appendingPathComponent(".addresses/Walker_Zach_190991.json")
        let json = try CompanionContent.json(at: file).get()
        #expect(CompanionShape.of(.addressExtraction)!.failures(json).isEmpty)  // the app's decoder reads it
        let page = try #require(AddressBook(extraction: json, corrections: nil).entries.first)
        #expect(page.page == 1 && page.words.contains("Zach Walker") && page.words.contains("133 Manor Way") && page.words.contains("GG7 8WN"))

        // Nothing changed: not read again; read again (no state), the same pages: the file is left alone.
        #expect(try Self.run(library).map(\.status) == [.upToDate])
        let inode = try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int
        try FileManager.default.removeItem(at: LocalState(library: library).folder.appendingPathComponent("extracted.json"))
        #expect(try Self.run(library).map(\.status) == [.unchanged])
        #expect(try FileManager.default.attributesOfItem(atPath: file.path)[.systemFileNumber] as? Int == inode)

        // A person's corrections and the enrichment in the file survive a new extraction byte for byte;
        // the separate corrections file is never touched.
        var text = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        let overrides = #"[{"page_number":1,"match_address_type":"patient","patient":{"full_name":"Zachary  Walker"},"override_date":"2026-03-01T10:00:00Z"}]"#
        let enriched = #"{ "enriched_at" : "2026-03-02T10:00:00Z", "patient" : {"full_name":"Zach Walker","document_count":3} }"#
        text = text.replacingOccurrences(of: "\"overrides\" : [\n\n  ]", with: "\"overrides\" : \(overrides),\n  \"enriched\" : \(enriched)")
        try Data(text.utf8).write(to: file)
        let corrections = folder.url.appendingPathComponent(".addresses/Walker_Zach_190991.overrides.json")
        let correctionsBytes = Data(CompanionFixtures.corrections("Walker_Zach_190991", [CompanionFixtures.correction(page: 1, date: "2026-03-03T10:00:00Z")]).utf8)
        try correctionsBytes.write(to: corrections)
        try Self.results("Walker_Zach_190991", pages: [Self.label, "Uma Cooper\n129 Mill Lane\nLeatherhead\nHH8 9GR"], in: folder.url)
        #expect(try Self.run(library).map(\.status) == [.extracted])
        let rewritten = String(decoding: try Data(contentsOf: file), as: UTF8.self)
        #expect(rewritten.contains("\"overrides\" : \(overrides)") && rewritten.contains("\"enriched\" : \(enriched)"))
        #expect(try Data(contentsOf: corrections) == correctionsBytes)
        #expect(CompanionShape.of(.addressExtraction)!.failures(try CompanionContent.json(at: file).get()).isEmpty)
        #expect(rewritten.contains("HH8 9GR"))
        // The file it replaced is in the version store.
        let kept = try VersionStore(library: library).records().filter { $0.originalPath == ".addresses/Walker_Zach_190991.json" }
        #expect(kept.count == 1 && kept[0].reason == "replaced by extraction")
    }

    @Test func whatCannotBeReadIsNamedAndTheBatchGoesOn() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        _ = try Self.document("Good", pages: [Self.label], in: folder.url)
        try CoordinatedDocument.create(at: folder.path("Unread.yianazip"), metadata: DocumentMetadata(title: "Unread", pageCount: 1), pdf: nil)
        try Data("not a zip".utf8).write(to: folder.url.appendingPathComponent("Broken.yianazip"))
        _ = try Self.document("Good (conflict 2026-03-01)", pages: [Self.label], in: folder.url)
        // A damaged address file is replaced, and kept first.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent(".addresses"), withIntermediateDirectories: true)
        try Data("{ damaged".utf8).write(to: folder.url.appendingPathComponent(".addresses/Good.json"))
        let results = Dictionary(uniqueKeysWithValues: try Self.run(library).map { ($0.path, $0) })
        #expect(results["Good.yianazip"]?.status == .extracted)
        #expect(results["Unread.yianazip"]?.status == .noText && results["Unread.yianazip"]?.error?.contains("yiana ocr") == true)
        #expect(results["Broken.yianazip"]?.status == .failed)
        #expect(results["Good (conflict 2026-03-01).yianazip"]?.status == .conflictCopy)
        #expect(try VersionStore(library: library).records().contains { $0.originalPath == ".addresses/Good.json" })
    }

    @Test func theAddressFileIsNamedByTheTitleAsTheAppNamesIt() {
        let url = URL(fileURLWithPath: "/l/Scan 1.yianazip")
        #expect(ExtractionRun.addressKey(title: "Smith_Jane_010180", documentURL: url) == "Smith_Jane_010180")
        #expect(ExtractionRun.addressKey(title: "a/b", documentURL: url) == "Scan 1")
        #expect(ExtractionRun.addressKey(title: "", documentURL: url) == "Scan 1")
    }
}

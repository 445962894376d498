import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// File names whose bytes are not UTF-8 (FF FE, a Latin-1 "é") and symbolic links: found,
/// reported by name (escaped), never skipped in silence.
@Suite("names that are not UTF-8, and links")
struct IrregularNameTests {
    static let latin1Name: [UInt8] = Array("Caf".utf8) + [0xE9] + Array(".yianazip".utf8)

    @Test func verifyAndRepairReportADocumentWhoseNameIsNotUTF8() async throws {
        let folder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("Good.yianazip"), metadata: DocumentMetadata(title: "Good", pageCount: 1), pdf: .data(simplePDF(["good"])))
        try createFile(named: Self.latin1Name, in: folder.url, contents: try Data(contentsOf: folder.url.appendingPathComponent("Good.yianazip")))
        try createFile(named: [0xFF, 0xFE] + Array(".yianazip".utf8), in: folder.url, contents: Data("x".utf8))
        let library = try Library(root: folder.url)
        let report = await Verifier(library: library).verify()
        #expect(!report.clean)
        let codes = Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, $0.problems.map(\.code.rawValue)) })
        #expect(codes == ["Good.yianazip": [], "Caf\\xE9.yianazip": ["name-not-utf8"], "\\xFF\\xFE.yianazip": ["name-not-utf8"]], "\(codes)")
        let repair = await Repairer(library: library).repair()
        #expect(Set(repair.notRepaired.map(\.path)) == ["Caf\\xE9.yianazip", "\\xFF\\xFE.yianazip"])
        #expect(repair.notRepaired.allSatisfy { $0.detail.contains("not valid UTF-8") })
    }

    @Test func aFolderImportReportsWhatItCannotImport() async throws {
        let source = try TemporaryFolder(), folder = try TemporaryFolder()
        let pdf = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))
        try createFile(named: Array("Re".utf8) + [0xE7] + Array("u.pdf".utf8), in: source.url, contents: pdf)
        try FileManager.default.createSymbolicLink(atPath: source.path("Linked.pdf"), withDestinationPath: Fixtures.sample("pdfs/Flow control paper.pdf"))
        try FileManager.default.copyItem(atPath: Fixtures.sample("pdfs/Flow control paper.pdf"), toPath: source.path("Plain.pdf"))
        let report = try await Importer(library: try Library(root: folder.url)).run([source.url.path], options: ImportOptions(jobs: 1))
        #expect(report.imported.count == 1)
        let failed = Dictionary(uniqueKeysWithValues: report.failed.map { (($0.source as NSString).lastPathComponent, $0.code) })
        #expect(failed == ["Re\\xE7u.pdf": "name-not-utf8", "Linked.pdf": "not-a-regular-file"], "\(report.failed)")
        #expect(report.hasFailures)
    }
}

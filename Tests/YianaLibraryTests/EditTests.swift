import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary
import YianaSystem

@Suite("edit")
struct EditTests {
    @Test func anEditKeepsWhatItReplacesAndRecordsItsParent() throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Doc.yianazip")
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Doc", pageCount: 1, tags: ["old"]), pdf: .data(simplePDF(["x"])))
        let library = try Library(root: folder.url)
        let before = try Data(contentsOf: url)
        let parent = try DocumentReader(path: url.path).contentKey!
        let now = Date(timeIntervalSinceReferenceDate: 900_000_000)
        let written = try DocumentEditor(library: library).apply(MetadataEdit(title: "New", addTags: ["new"], removeTags: ["old"]), to: url, now: now)
        #expect(written?.title == "New" && written?.tags == ["new"] && written?.modified == now)
        let reader = try DocumentReader(path: url.path)
        #expect(try reader.metadata().title == "New")
        #expect(try reader.pdfBytes().count == simplePDF(["x"]).count)
        #expect(try VersionStore(library: library).records().contains { try Data(contentsOf: VersionStore(library: library).objectURL($0)) == before })
        #expect(DocumentHistory(library: library).isAncestor(parent, of: reader.contentKey!, documentID: try reader.metadata().id.uuidString))
        // The same edit again changes nothing and writes nothing.
        let identity = FileIdentity.current(at: url.path)
        #expect(try DocumentEditor(library: library).apply(MetadataEdit(title: "New", addTags: ["new"]), to: url) == nil)
        #expect(FileIdentity.current(at: url.path) == identity)
    }

    /// A document saved by the app on a device whose clock said 2040: `created` is
    /// 1230768000 seconds since 2001. An edit writes that number back, never 2009.
    @Test func anEditNeverRewritesADateItDidNotChange() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Doc.yianazip")
        let metadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"Doc","created":1230768000,"modified":1230768000.25,"pageCount":1,"tags":[],"ocrCompleted":false}"#
        try Data(ZipBuilder.document(metadata: metadata, pdf: Array(simplePDF(["x"]))).build()).write(to: url)
        let library = try Library(root: folder.url)
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        _ = try DocumentEditor(library: library).apply(MetadataEdit(title: "New"), to: url, now: now)
        let written = String(decoding: try DocumentReader(path: url.path).metadataData(), as: UTF8.self)
        #expect(written.contains(#""created":1230768000,"#), "\(written)")
        #expect(written.contains(#""modified":800000000,"#), "\(written)")
        let verified = await Verifier(library: library).verify()
        #expect(verified.clean && verified.files[0].problems.map(\.code.rawValue) == ["date-suspicious"], "\(verified.files[0].problems)")
    }

    /// An edit copies the PDF whose CRC-32 it was exported with: the writer lays out what
    /// precedes it first and hashes the new file as it writes it, and hands the hash over
    /// (``OwnWrites``); the keeper keeps the file under that hash, which is the file's own.
    /// A PDF file whose bytes do not match the CRC it came with is refused, nothing replaced.
    @Test func anEditHandsTheKeeperTheHashOfWhatItWrote() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Doc.yianazip")
        let pdf = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Flow control paper.pdf"))
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Doc", pageCount: 1), pdf: .data(pdf))
        let library = try Library(root: folder.url)
        _ = try DocumentEditor(library: library).apply(MetadataEdit(title: "New"), to: url)
        let identity = try #require(FileIdentity(path: url.path))
        let handed = try #require(OwnWrites.sha256(ofWritten: url.path, identity: identity))
        #expect(handed == (try FileHash.sha256(of: url)))
        _ = await Keeper(library: library).observe([url])
        let kept = Keeper(library: library).records(path: "Doc.yianazip", documentID: nil)
        #expect(kept.first?.sha256 == handed)

        let scratch = folder.url.appendingPathComponent("pdf")
        let crc = try #require(try CoordinatedDocument.exportPDF(of: url.path, to: scratch.path, overwrite: false))
        let before = try Data(contentsOf: url)
        #expect { try DocumentRewrite(library: library).write(DocumentMetadata(title: "Other", pageCount: 1), pdfFile: scratch, crc32: crc ^ 1,
                                                              to: url, replacing: true) } throws: {
            ($0 as? ArchiveError)?.code == .verificationFailed
        }
        #expect(try Data(contentsOf: url) == before)
    }

    @Test func scratchFilesAKilledProcessLeftAreSweptAfterADay() throws {
        let folder = try TemporaryFolder()
        let rewrite = DocumentRewrite(library: try Library(root: folder.url))
        let scratch = try rewrite.scratchFolder()
        let old = scratch.appendingPathComponent("pdf-old"), fresh = scratch.appendingPathComponent("pdf-fresh")
        try Data("x".utf8).write(to: old)
        try Data("y".utf8).write(to: fresh)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-2 * 86_400)], ofItemAtPath: old.path)
        _ = try rewrite.scratchFolder()
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(FileManager.default.fileExists(atPath: fresh.path))
    }
}

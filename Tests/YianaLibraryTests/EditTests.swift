import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaLibrary

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
        #expect(try reader.pdfBytes().bytes.count == simplePDF(["x"]).count)
        #expect(try VersionStore(library: library).records().contains { try Data(contentsOf: VersionStore(library: library).objectURL($0)) == before })
        #expect(DocumentHistory(library: library).isAncestor(parent, of: reader.contentKey!, documentID: try reader.metadata().id.uuidString))
        // The same edit again changes nothing and writes nothing.
        let identity = FileIdentity.current(at: url.path)
        #expect(try DocumentEditor(library: library).apply(MetadataEdit(title: "New", addTags: ["new"]), to: url) == nil)
        #expect(FileIdentity.current(at: url.path) == identity)
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

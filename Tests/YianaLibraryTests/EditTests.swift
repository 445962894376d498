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
}

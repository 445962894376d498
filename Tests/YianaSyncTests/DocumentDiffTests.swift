import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaSync

@Suite("document diff")
struct DocumentDiffTests {
    @Test func metadataFieldByFieldAndPDFsPageByPage() throws {
        let folder = try TemporaryFolder()
        let id = UUID()
        var a = DocumentMetadata(id: id, title: "Report", created: Date(timeIntervalSinceReferenceDate: 1000), pageCount: 1, tags: ["x"])
        a.unknownFields["colour"] = .string("red")
        var b = a
        b.title = "Report final"
        b.unknownFields["colour"] = .string("blue")
        let pdfA = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))
        try CoordinatedDocument.create(at: folder.path("A.yianazip"), metadata: a, pdf: .data(pdfA))
        try CoordinatedDocument.create(at: folder.path("B.yianazip"), metadata: b, pdf: .data(simplePDF(["a different first page"])))
        let diff = try DocumentDiff.compare(folder.url.appendingPathComponent("A.yianazip"), folder.url.appendingPathComponent("B.yianazip"), names: ("A", "B"))
        #expect(diff.fields.map(\.key) == ["colour", "title"])
        #expect(diff.fields.first { $0.key == "title" }?.b == "\"Report final\"")
        #expect(diff.pageCountA == 2 && diff.pageCountB == 1)
        #expect(diff.differingPages == [1, 2])
        #expect(!diff.identical)

        let same = try DocumentDiff.compare(folder.url.appendingPathComponent("A.yianazip"), folder.url.appendingPathComponent("A.yianazip"), names: ("A", "A"))
        #expect(same.identical && same.samePDF && same.differingPages.isEmpty)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaTestSupport
@testable import YianaSearch

/// A long document's pages are shared out between the worker that opened it and helper
/// threads, each with a poppler handle of its own; the text comes back whole and in order.
@Suite("page helpers")
struct PageHelpersTests {
    static let pageCount = 5 * PageHelpers.pagesPerChunk + 3
    static func words(_ page: Int) -> [String] { ["page\(page)word", "shared out text"] }

    /// A document whose PDF has a known word on each page.
    func longDocument(in folder: TemporaryFolder, name: String = "Long.yianazip") throws -> String {
        let path = folder.path(name)
        try CoordinatedDocument.create(at: path, metadata: DocumentMetadata(title: "Long", pageCount: Self.pageCount),
                                       pdf: .data(pagedPDF((1...Self.pageCount).map(Self.words))))
        return path
    }

    @Test(arguments: [0, 1, 3])
    func helpersGiveTheSameTextInPageOrder(helpers: Int) throws {
        let folder = try TemporaryFolder()
        let bytes = try DocumentReader(path: try longDocument(in: folder)).pdfBytes()
        let pdf = try bytes.document(source: "Long.yianazip")
        PDFDocument.prepareForConcurrentUse()
        let pool = PageHelpers(count: helpers)
        for _ in 0..<2 {  // the helpers are given back after the first document
            let texts = pool.pageTexts(pdf, bytes: bytes, source: "Long.yianazip")
            #expect(texts.count == Self.pageCount)
            #expect(texts.indices.allSatisfy { texts[$0].contains("page\($0 + 1)word") })
        }
    }

    @Test func aLongDocumentIndexedWithTwoJobsHasItsHitsOnTheRightPages() async throws {
        let folder = try TemporaryFolder()
        let indexFolder = try TemporaryFolder()
        _ = try longDocument(in: folder)
        try CoordinatedDocument.create(at: folder.path("Short.yianazip"), metadata: DocumentMetadata(title: "Short", pageCount: 1),
                                       pdf: .data(simplePDF(["a short one"])))
        let index = try SearchIndex(path: indexFolder.path("index.sqlite"))
        let report = try await Indexer(library: try Library(root: folder.url), index: index).run(options: YianaSearch.IndexOptions(jobs: 2))
        #expect(report.extracted == 2)
        for page in [1, PageHelpers.pagesPerChunk + 1, Self.pageCount] {
            let hits = try await index.search("page\(page)word")
            #expect(hits.map(\.path) == ["Long.yianazip"])
            #expect(hits.first?.pages.map(\.number) == [page])
        }
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch

/// Whether the library holds changes the index has not seen: told from the folders' times,
/// and for a folder whose time moved, from its documents compared with the index.
@Suite("index freshness")
struct IndexFreshnessTests {
    @Test(arguments: IndexBackend.allCases)
    func changesAreSeenAndTheToolsOwnUpdatesAreNot(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        // Folder names a line-based record must carry: a tab, a line break, a backslash.
        let odd = "Odd\tname\nwith \\ in it"
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("\(odd)/Inner"), withIntermediateDirectories: true)
        try CoordinatedDocument.create(at: folder.path("\(odd)/Inner/A.yianazip"), metadata: DocumentMetadata(title: "A", pageCount: 1),
                                       pdf: .data(simplePDF(["alpha"])))
        try CoordinatedDocument.create(at: folder.path("Top.yianazip"), metadata: DocumentMetadata(title: "Top", pageCount: 1), pdf: .data(simplePDF(["top"])))
        let library = try Library(root: folder.url)
        let index = try await backend.makeIndex(for: library, in: indexFolder)
        #expect(try await IndexFreshness.check(library, index: index) == nil, "an index that never recorded its folders says nothing")
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        #expect(try await IndexFreshness.check(library, index: index)?.isEmpty == true)
        let stored = try await IndexFreshness.stored(index)
        #expect(stored?.keys.sorted() == ["", odd, "\(odd)/Inner"])

        // A document another program added (its folder's time moves).
        try FileManager.default.copyItem(atPath: folder.path("\(odd)/Inner/A.yianazip"), toPath: folder.path("\(odd)/Inner/B.yianazip"))
        #expect(try await IndexFreshness.check(library, index: index) == .init(documents: 1, folders: 0))
        // The toolkit's own update of that document makes it seen.
        _ = try await Indexer(library: library, index: index).update([folder.url.appendingPathComponent("\(odd)/Inner/B.yianazip")])
        #expect(try await IndexFreshness.check(library, index: index)?.isEmpty == true)

        // A new folder with a document; a document removed.
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("New"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder.path("Top.yianazip"), toPath: folder.path("New/C.yianazip"))
        try FileManager.default.removeItem(atPath: folder.path("\(odd)/Inner/A.yianazip"))
        let staleness = try #require(try await IndexFreshness.check(library, index: index))
        #expect(staleness == .init(documents: 1, folders: 1) && staleness.description == "1 document and 1 folder")
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1))
        #expect(try await IndexFreshness.check(library, index: index)?.isEmpty == true)

        // A whole folder gone: its documents count.
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(odd))
        #expect(try await IndexFreshness.check(library, index: index)?.documents == 1)
    }
}

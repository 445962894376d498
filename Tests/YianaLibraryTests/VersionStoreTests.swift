import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

@Suite("version store")
struct VersionStoreTests {
    func document(_ folder: TemporaryFolder, _ name: String, title: String, id: UUID = UUID()) throws -> URL {
        let url = folder.url.appendingPathComponent(name)
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: id, title: title, pageCount: 1),
                                        pdf: .data(simplePDF([title])))
        return url
    }

    @Test func keepsBytesOnceAndRecordsEachTime() throws {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let url = try document(folder, "A.yianazip", title: "A")
        let first = try store.keep(url, reason: "test one")
        let second = try store.keep(url, reason: "test two")
        #expect(first.sha256 == second.sha256)
        #expect(try Data(contentsOf: store.objectURL(first)) == Data(contentsOf: url))
        #expect(try store.records().map(\.reason) == ["test one", "test two"])
        #expect(first.originalPath == "A.yianazip" && first.title == "A")
        let objects = try FileManager.default.subpathsOfDirectory(atPath: store.objects.path).filter { !$0.hasSuffix("/") && $0.count > 3 }
        #expect(objects.count == 1)
        // The store is hidden: a scan of the library does not see it.
        #expect(try LibraryScanner.scan(folder.url).map(\.url.lastPathComponent) == ["A.yianazip"])
    }

    @Test func restoreKeepsTheCurrentDocumentFirst() throws {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let id = UUID()
        let url = try document(folder, "Doc.yianazip", title: "First", id: id)
        let original = try Data(contentsOf: url)
        let kept = try store.keep(url, reason: "before edit")
        _ = try document(folder, "Doc.yianazip", title: "Second", id: id)
        let edited = try Data(contentsOf: url)

        let replaced = try #require(try store.restore(try store.version(String(kept.sha256.prefix(6)), of: url), to: url))
        #expect(try Data(contentsOf: url) == original)
        #expect(try Data(contentsOf: store.objectURL(replaced)) == edited)
        #expect(try store.versions(of: url).map(\.reason) == ["replaced by restoring version \(kept.shortID)", "before edit"])
    }

    @Test func aDamagedStoredCopyIsNeverRestored() throws {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let url = try document(folder, "Doc.yianazip", title: "Doc")
        let kept = try store.keep(url, reason: "kept")
        let current = try Data(contentsOf: url)
        let object = store.objectURL(kept)
        chmod(object.path, 0o644)
        try Data("PK\u{3}\u{4}garbage".utf8).write(to: object)
        #expect(throws: ArchiveError.self) { try store.restore(kept, to: url) }
        #expect(try Data(contentsOf: url) == current)
    }

    @Test func versionsOfADeletedDocumentAreFoundByPath() throws {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let url = try document(folder, "Gone.yianazip", title: "Gone")
        try store.keep(url, reason: "deleted")
        try FileManager.default.removeItem(at: url)
        #expect(try store.versions(of: url).count == 1)
        #expect(throws: VersionStoreError.noSuchVersion("ffff")) { try store.version("ffff", of: url) }
    }

    @Test func pruneKeepsTheNewestAndTheRecent() throws {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let now = Date()
        let id = UUID()
        for age in [40, 30, 20, 2, 1] {
            let url = try document(folder, "Doc.yianazip", title: "age \(age)", id: id)
            try store.keep(url, reason: "age \(age)", now: now.addingTimeInterval(-Double(age) * 86_400))
        }
        let dry = try store.prune(keepDays: 7, keepLast: 3, dryRun: true, now: now)
        #expect(dry.removed.map(\.reason) == ["age 40", "age 30"])
        #expect(try store.records().count == 5)
        let done = try store.prune(keepDays: 7, keepLast: 3, dryRun: false, now: now)
        #expect(done.deletedObjects == 2)
        #expect(try store.records().map(\.reason) == ["age 20", "age 2", "age 1"])
        for record in dry.removed { #expect(!FileManager.default.fileExists(atPath: store.objectURL(record).path)) }
        #expect(throws: VersionStoreError.nothingToKeepBy) { try store.prune(keepDays: nil, keepLast: nil, dryRun: true) }
    }

    @Test func aTornLastLogLineIsSkipped() throws {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let url = try document(folder, "Doc.yianazip", title: "Doc")
        try store.keep(url, reason: "ok")
        let handle = try FileHandle(forWritingTo: try store.logFile.own().url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"sha256":"ab"#.utf8))
        try handle.close()
        #expect(try store.records().map(\.reason) == ["ok"])
        try store.keep(url, reason: "after")
        #expect(try store.records().map(\.reason) == ["ok", "after"])
    }
}

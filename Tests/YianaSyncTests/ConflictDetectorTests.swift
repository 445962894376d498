import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

@Suite("conflict detection")
struct ConflictDetectorTests {
    let a = UUID(uuidString: "AAAAAAAA-0000-4000-8000-000000000001")!

    func write(_ folder: TemporaryFolder, _ name: String, id: UUID, title: String, text: String,
               created: Date = Date(timeIntervalSinceReferenceDate: 790_000_000), modified: Date? = nil) throws {
        try CoordinatedDocument.replace(at: folder.path(name), metadata: DocumentMetadata(id: id, title: title, created: created, modified: modified, pageCount: 1),
                                        pdf: .data(simplePDF([text])))
    }

    @Test func tellsConflictsCopiesDuplicatesAndTheAppsNumberingApart() async throws {
        let folder = try TemporaryFolder()
        try write(folder, "Report.yianazip", id: a, title: "Report", text: "version one")
        try write(folder, "Report (Bob's conflicted copy 2026-03-01).yianazip", id: a, title: "Report", text: "version two")
        try FileManager.default.copyItem(atPath: folder.path("Report.yianazip"), toPath: folder.path("Report 2.yianazip"))  // iCloud, same bytes
        try FileManager.default.copyItem(atPath: folder.path("Report.yianazip"), toPath: folder.path("Report Copy.yianazip"))  // the app's Duplicate
        try Data("bplist00".utf8).write(to: folder.url.appendingPathComponent(".Report.sync-conflict-20260301-101010-AB.yianazip.icloud"))
        try Data("PK\u{3}\u{4}cut".utf8).write(to: folder.url.appendingPathComponent("Report (conflicted copy 2026-03-02 101010).yianazip"))
        // The app's own numbering: a different document that happens to share a title.
        try write(folder, "Invoice.yianazip", id: UUID(), title: "Invoice", text: "one")
        try write(folder, "Invoice 2.yianazip", id: UUID(), title: "Invoice", text: "two")
        // A conflict copy whose original is gone.
        try write(folder, "Notes.sync-conflict-20260301-101010-CD.yianazip", id: UUID(), title: "Notes", text: "n")

        let report = try await ConflictDetector(library: try Library(root: folder.url)).detect()
        #expect(report.groups.count == 1)
        let roles = Dictionary(uniqueKeysWithValues: report.groups[0].files.map { ($0.path, $0.role) })
        #expect(roles == [
            "Report.yianazip": .original,
            "Report (Bob's conflicted copy 2026-03-01).yianazip": .conflictCopy,
            "Report 2.yianazip": .identicalCopy,
            "Report Copy.yianazip": .duplicate,
            "Report.sync-conflict-20260301-101010-AB.yianazip": .notDownloaded,
            "Report (conflicted copy 2026-03-02 101010).yianazip": .damaged,
        ], "\(report.groups[0].files.map { "\($0.path): \($0.reason ?? "-")" })")
        #expect(report.groups[0].needsResolving)
        #expect(report.strayCopies.map(\.path) == ["Notes.sync-conflict-20260301-101010-CD.yianazip"])
        #expect(report.documentsScanned == 9)
        #expect(report.unreadable == ["Report (conflicted copy 2026-03-02 101010).yianazip"])
    }

    /// A file that could not be read is read again next time even if its stamp is the same
    /// (an I/O error passes): the cache keeps only what was read.
    @Test func aCacheReadsAgainWhatCouldNotBeRead() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        try write(folder, "Scan.yianazip", id: a, title: "Scan", text: "mine")
        let good = try Data(contentsOf: folder.url.appendingPathComponent("Scan.yianazip"))
        let copy = folder.url.appendingPathComponent("Scan 2.yianazip")
        let stamp = Date(timeIntervalSince1970: 1_790_000_000)
        try (good.dropLast(22) + Data(count: 22)).write(to: copy)  // no end of central directory: unreadable
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: copy.path)
        let cache = FactsCache()
        let first = try await ConflictDetector(library: library).detect(cache: cache)
        #expect(first.unreadable == ["Scan 2.yianazip"])
        // The same inode, size and time, now readable.
        let handle = try FileHandle(forUpdating: copy)
        try handle.write(contentsOf: good)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: stamp], ofItemAtPath: copy.path)
        let again = try await ConflictDetector(library: library).detect(cache: cache)
        #expect(again.unreadable.isEmpty)
        #expect(again.groups.first?.files.map(\.role) == [.original, .identicalCopy])
    }

    /// A watcher's cache holds the facts only of the files that can be in a group: a
    /// library's other documents are their stamps and ids. A document whose id comes to be
    /// shared is read again, and its group found.
    @Test func aCacheKeepsTheFactsOnlyOfFilesThatCanBeInAGroup() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        for index in 0..<6 { try write(folder, "Doc \(index).yianazip", id: UUID(), title: "Doc \(index)", text: "doc \(index)") }
        try write(folder, "Scan.yianazip", id: a, title: "Scan", text: "mine")
        try write(folder, "Scan 2.yianazip", id: a, title: "Scan", text: "theirs")
        let cache = FactsCache()
        let first = try await ConflictDetector(library: library).detect(cache: cache)
        #expect(first.groups.map { $0.files.map(\.path) } == [["Scan.yianazip", "Scan 2.yianazip"]])
        #expect(first.documentsScanned == 8)
        #expect(cache.factsKept == 2)
        // Doc 0 takes Doc 5's id: Doc 5, read when it was alone, is read again.
        let doc5 = try DocumentReader(path: folder.path("Doc 5.yianazip")).metadata().id
        try write(folder, "Doc 0.yianazip", id: doc5, title: "Doc 0", text: "doc 0")
        let after = try await ConflictDetector(library: library).detect(cache: cache)
        #expect(after.groups.map { Set($0.files.map(\.path)) } == [["Doc 0.yianazip", "Doc 5.yianazip"], ["Scan.yianazip", "Scan 2.yianazip"]])
        #expect(cache.factsKept == 4)
    }

    /// With a cache (as `yiana watch` keeps one): the same report, and a file replaced since
    /// is read again.
    @Test func aCacheGivesTheSameAnswersAndReadsWhatChanged() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        try write(folder, "Scan.yianazip", id: a, title: "Scan", text: "mine")
        try write(folder, "Scan 2.yianazip", id: a, title: "Scan", text: "theirs")
        let cache = FactsCache()
        let first = try await ConflictDetector(library: library).detect(cache: cache)
        let again = try await ConflictDetector(library: library).detect(cache: cache)
        #expect(first.groups.first?.files.map(\.role) == [.original, .conflictCopy])
        #expect(again.groups.first?.files.map(\.role) == [.original, .conflictCopy])
        try FileManager.default.removeItem(atPath: folder.path("Scan 2.yianazip"))
        try FileManager.default.copyItem(atPath: folder.path("Scan.yianazip"), toPath: folder.path("Scan 2.yianazip"))
        let after = try await ConflictDetector(library: library).detect(cache: cache)
        #expect(after.groups.first?.files.map(\.role) == [.original, .identicalCopy], "the replaced copy was read again")
    }

    @Test func iCloudNumberedConflictWithDivergedContent() async throws {
        let folder = try TemporaryFolder()
        try write(folder, "Scan.yianazip", id: a, title: "Scan", text: "mine")
        try write(folder, "Scan 2.yianazip", id: a, title: "Scan", text: "theirs")
        let report = try await ConflictDetector(library: try Library(root: folder.url)).detect()
        #expect(report.groups.first?.files.map(\.role) == [.original, .conflictCopy])
    }

    @Test func reportsClockSkew() async throws {
        let folder = try TemporaryFolder()
        let now = Date()
        try write(folder, "Future.yianazip", id: UUID(), title: "Future", text: "f", created: now, modified: now.addingTimeInterval(86_400))
        try write(folder, "Backwards.yianazip", id: UUID(), title: "Backwards", text: "b", created: now, modified: now.addingTimeInterval(-86_400))
        try write(folder, "Fine.yianazip", id: UUID(), title: "Fine", text: "ok", created: now.addingTimeInterval(-60), modified: now)
        let report = try await ConflictDetector(library: try Library(root: folder.url)).detect(now: now)
        #expect(report.clockSkew.map(\.path).sorted() == ["Backwards.yianazip", "Future.yianazip"])
        #expect(report.groups.isEmpty)
    }
}

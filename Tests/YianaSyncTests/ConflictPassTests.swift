import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaSystem
import YianaTestSupport
@testable import YianaSync

/// A watcher's pass classifies only the files that can be in a group (told what changed by
/// its walk): it finds what a detection over the whole library finds.
@Suite("conflict detection: a pass told what changed")
struct ConflictPassTests {
    func write(_ folder: TemporaryFolder, _ name: String, id: UUID, text: String) throws {
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent(name).deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.replace(at: folder.path(name), metadata: DocumentMetadata(id: id, title: text, pageCount: 1), pdf: .data(simplePDF([text])))
    }

    /// What a report says, in a fixed order.
    func summary(_ report: ConflictReport) -> [String] {
        report.groups.map { group in group.files.map { "\($0.path) \($0.role.rawValue)" }.joined(separator: ", ") + " -> \(group.target ?? "-")" }.sorted()
            + report.strayCopies.map { "stray \($0.path) \($0.role.rawValue)" }.sorted()
            + report.unreadable.sorted().map { "unreadable \($0)" }
            + report.clockSkew.map { "skew \($0.path)" }.sorted()
            + ["scanned \(report.documentsScanned)"]
    }

    @Test func findsWhatAWholeDetectionFinds() async throws {
        let folder = try TemporaryFolder()
        let root = folder.url.path
        let ids = (0..<20).map { _ in UUID() }
        for index in 0..<20 { try write(folder, "Folder \(index % 2)/Doc \(index).yianazip", id: ids[index], text: "Doc \(index)") }
        try FileManager.default.copyItem(atPath: folder.path("Folder 0/Doc 0.yianazip"), toPath: folder.path("Folder 0/Doc 0 2.yianazip"))
        try write(folder, "Folder 1/Doc 1 (Bob's conflicted copy 2026-03-01).yianazip", id: ids[1], text: "Doc 1, Bob's")
        try Data("PK\u{3}\u{4}cut".utf8).write(to: folder.url.appendingPathComponent("Folder 0/Doc 2.yianazip..path1"))
        let library = try Library(root: folder.url)
        let scans = LibraryScanCache(library: library), facts = FactsCache()
        let inotify = try Inotify()
        inotify.watchTree(root)
        let detector = ConflictDetector(library: library)
        var scan = try scans.scan(changed: nil)
        #expect(summary(try await detector.detect(settle: 0, cache: facts, scan: scan)) == summary(try await detector.detect(settle: 0)))

        let steps: [(String, () throws -> Void)] = [
            ("a conflict copy arrives", { try self.write(folder, "Folder 0/Doc 4.sync-conflict-20261124-101010-ABCDEF7.yianazip", id: ids[4], text: "Doc 4, other") }),
            ("an identical copy is removed", { try FileManager.default.removeItem(atPath: folder.path("Folder 0/Doc 0 2.yianazip")) }),
            ("the original beside a damaged copy is evicted", {
                try FileManager.default.removeItem(atPath: folder.path("Folder 0/Doc 2.yianazip"))
                try Data("bplist00".utf8).write(to: folder.url.appendingPathComponent("Folder 0/.Doc 2.yianazip.icloud"))
            }),
            ("a plain document takes a copy's id", { try self.write(folder, "Folder 1/Doc 7.yianazip", id: ids[9], text: "Doc 7, now 9's") }),
            ("the damaged copy is mended", { try self.write(folder, "Folder 0/Doc 2.yianazip..path1", id: ids[2], text: "Doc 2") }),
            ("a conflict copy resolved away", { try FileManager.default.removeItem(atPath: folder.path("Folder 1/Doc 1 (Bob's conflicted copy 2026-03-01).yianazip")) }),
        ]
        for (what, change) in steps {
            try change()
            _ = inotify.wait(timeout: 0.2)
            scan = try scans.scan(changed: Set(inotify.read().events.map(\.path)))
            #expect(scan.changes != nil)
            let pass = try await detector.detect(settle: 0, cache: facts, scan: scan)
            let whole = summary(try await detector.detect(settle: 0))
            #expect(summary(pass) == whole, "\(what): \(summary(pass).filter { !whole.contains($0) }) instead of \(whole.filter { !summary(pass).contains($0) })")
        }
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaSystem
import YianaTestSupport
@testable import YianaSearch

/// A watcher's index run, told what changed by its walk (``LibraryScan/changes``), reads and
/// writes only those documents' rows: it leaves the index as a run over the whole library does.
@Suite("indexing: a pass told what changed")
struct IndexPassTests {
    func write(_ folder: TemporaryFolder, _ name: String, text: String, id: UUID = UUID()) throws {
        let url = folder.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: id, title: text, pageCount: 1), pdf: .data(simplePDF([text])))
    }

    /// What an index holds, in a fixed order: each document's status and pages.
    func summary(_ index: any IndexStore) async throws -> [String] {
        try await index.statuses(onlyProblems: false).map { "\($0.path) \($0.status.rawValue) \($0.pages)/\($0.textPages)" }
    }

    @Test(arguments: IndexBackend.allCases)
    func leavesTheIndexAsAWholeRunDoes(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexes = try TemporaryFolder(), wholeIndexes = try TemporaryFolder()
        let root = folder.url.path
        for number in 0..<12 { try write(folder, "Folder \(number % 3)/Doc \(number).yianazip", text: "letter number\(number)") }
        let library = try Library(root: folder.url)
        let passIndex = try await backend.makeIndex(for: library, in: indexes), wholeIndex = try await backend.makeIndex(for: library, in: wholeIndexes)
        let passes = Indexer(library: library, index: passIndex), whole = Indexer(library: library, index: wholeIndex)
        var options = IndexOptions(jobs: 2)
        options.settle = 0
        let scans = LibraryScanCache(library: library)
        let inotify = try Inotify()
        inotify.watchTree(root)
        _ = try await passes.run(options: options, scan: try scans.scan(changed: nil))
        _ = try await whole.run(options: options)
        #expect(try await summary(passIndex) == summary(wholeIndex))

        let steps: [(String, () throws -> Void)] = [
            ("a document arrives by rename", {
                try self.write(folder, "Folder 0/.syncthing.New.yianazip.tmp", text: "arrived newcomer")
                try FileManager.default.moveItem(atPath: root + "/Folder 0/.syncthing.New.yianazip.tmp", toPath: root + "/Folder 0/New.yianazip")
            }),
            ("a document rewritten in place", { try self.write(folder, "Folder 1/Doc 1.yianazip", text: "rewritten words") }),
            ("a document deleted", { try FileManager.default.removeItem(atPath: root + "/Folder 2/Doc 2.yianazip") }),
            ("a document moved to another folder", {
                try FileManager.default.moveItem(atPath: root + "/Folder 0/Doc 3.yianazip", toPath: root + "/Folder 1/Doc 3.yianazip")
            }),
            ("a folder renamed", { try FileManager.default.moveItem(atPath: root + "/Folder 2", toPath: root + "/Renamed") }),
            ("a damaged document arrives", { try Data("PK\u{3}\u{4}cut short".utf8).write(to: folder.url.appendingPathComponent("Folder 0/Cut.yianazip")) }),
            ("a document evicted", {
                try FileManager.default.removeItem(atPath: root + "/Folder 1/Doc 4.yianazip")
                try Data("bplist00".utf8).write(to: folder.url.appendingPathComponent("Folder 1/.Doc 4.yianazip.icloud"))
            }),
        ]
        for (what, change) in steps {
            try change()
            _ = inotify.wait(timeout: 0.2)
            let scan = try scans.scan(changed: Set(inotify.read().events.map(\.path)))
            let changes = try #require(scan.changes, "\(what)")
            let pass = try await passes.run(options: options, scan: scan)
            let run = try await whole.run(options: options)
            #expect(try await summary(passIndex) == summary(wholeIndex), "\(what)")
            #expect(pass.removedPaths == run.removedPaths, "\(what)")
            #expect(pass.covered == changes.paths)
            #expect(pass.documents.map(\.path) == changes.paths.filter { path in run.documents.contains { $0.path == path } }.sorted(), "\(what)")
            #expect(pass.documentCount == run.documentCount)
            if what == "a document moved to another folder" || what == "a folder renamed" {
                #expect(pass.extracted == 0 && pass.reused > 0, "\(what): its pages copied by content, not extracted")
            }
        }
        #expect(try await passIndex.search("newcomer").map(\.path) == ["Folder 0/New.yianazip"])
        #expect(try await passIndex.search("number5").map(\.path) == ["Renamed/Doc 5.yianazip"])
    }

    /// A document written as still arriving is named again by the run (``IndexReport/unsettled``),
    /// and a pass told to look at it again settles it though nothing changed on disk.
    @Test func aDocumentStillArrivingIsLookedAtAgain() async throws {
        let folder = try TemporaryFolder(), indexes = try TemporaryFolder()
        try write(folder, "Doc.yianazip", text: "plain")
        let library = try Library(root: folder.url)
        let index = try await IndexBackend.sqlite.makeIndex(for: library, in: indexes)
        let scans = LibraryScanCache(library: library)
        var options = IndexOptions(jobs: 1)
        options.settle = 3600
        _ = try await Indexer(library: library, index: index).run(options: options, scan: try scans.scan(changed: nil))
        let cut = folder.url.appendingPathComponent("Cut.yianazip")
        try Data("PK\u{3}\u{4}cut short".utf8).write(to: cut)
        let arriving = try await Indexer(library: library, index: index).run(options: options, scan: try scans.scan(changed: [cut.path]))
        #expect(arriving.unsettled == ["Cut.yianazip"])
        #expect(arriving.documents.map(\.status) == [.stillArriving])

        options.settle = 0  // its time has passed: damaged now
        let nothing = try await Indexer(library: library, index: index).run(options: options, scan: try scans.scan(changed: []))
        #expect(nothing.documents.isEmpty && nothing.changed.isEmpty, "not named: not looked at")
        let again = try await Indexer(library: library, index: index).run(options: options, scan: try scans.scan(changed: [cut.path], recheck: ["Cut.yianazip"]))
        #expect(again.documents.map(\.status) == [.damaged])
        #expect(again.unsettled.isEmpty)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// The library's shared state as sync programs leave it: each device's own logs, the old
/// single shared files, and the conflict copies every service makes of them.
@Suite("shared state under sync")
struct SharedStateTests {
    let documentID = UUID().uuidString

    func entry(_ key: String, _ parents: [String]) -> HistoryEntry {
        HistoryEntry(documentID: documentID, key: key, parents: parents, at: Date(timeIntervalSince1970: 1_800_000_000), what: "edit")
    }

    /// Writes `entries` as a JSON-lines file at `relative`, as another device (or an earlier
    /// version of the toolkit) left it.
    func write(_ entries: [HistoryEntry], at relative: String, in folder: TemporaryFolder) throws {
        let url = folder.url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lines = try entries.map { String(decoding: try JSONLinesLog<HistoryEntry>.encoder.encode($0), as: UTF8.self) + "\n" }
        try Data(lines.joined().utf8).write(to: url)
    }

    @Test func theHistoryIsTheUnionOfEveryDevicesLog() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let history = DocumentHistory(library: library)
        try history.record(documentID: documentID, key: "base", parents: [], what: "import")
        try history.record(documentID: documentID, key: "ours", parents: ["base"], what: "edit")
        try write([entry("theirs", ["base"])], at: ".yiana/devices/phone-1a2b3c4d/history.jsonl", in: folder)
        #expect(history.commonAncestor("ours", "theirs", documentID: documentID) == "base")
        // This device wrote only its own file.
        let own = try SharedLog<HistoryEntry>(library: library, name: "history.jsonl").own().url
        #expect(own.deletingLastPathComponent().lastPathComponent == (try LocalState(library: library).deviceID()))
        #expect(JSONLinesLog<HistoryEntry>(url: own).read().map(\.key) == ["base", "ours"])
    }

    @Test(arguments: [
        "history.sync-conflict-20261123-050505-ABCDEFG.jsonl",  // Syncthing
        "history (conflict_on_2026-11-23).jsonl",               // unison
        "history.jsonl..path1",                                 // rclone bisync before 1.66
        "history.jsonl.conflict2",                              // rclone bisync 1.66+
        "history 2.jsonl",                                      // iCloud Drive
    ])
    func conflictCopiesOfTheOldSharedLogAreReadThenFoldedIn(copyName: String) throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        try write([entry("base", []), entry("ours", ["base"])], at: ".yiana/history.jsonl", in: folder)
        try write([entry("base", []), entry("theirs", ["base"])], at: ".yiana/\(copyName)", in: folder)
        let history = DocumentHistory(library: library)
        #expect(history.commonAncestor("ours", "theirs", documentID: documentID) == "base")

        // The next write migrates both into this device's own log and tidies them away.
        try history.record(documentID: documentID, key: "merged", parents: ["ours", "theirs"], what: "merge")
        #expect(!FileManager.default.fileExists(atPath: folder.path(".yiana/history.jsonl")))
        #expect(!FileManager.default.fileExists(atPath: folder.path(".yiana/\(copyName)")))
        let own = try SharedLog<HistoryEntry>(library: library, name: "history.jsonl").own().url
        #expect(JSONLinesLog<HistoryEntry>(url: own).read().map(\.key).sorted() == ["base", "merged", "ours", "theirs"])
        #expect(history.isAncestor("theirs", of: "merged", documentID: documentID))
    }

    /// A library with one document, kept once in the version store as `reason`.
    func keptDocument(_ reason: String) throws -> (folder: TemporaryFolder, store: VersionStore, url: URL, record: VersionRecord) {
        let folder = try TemporaryFolder()
        let store = VersionStore(library: try Library(root: folder.url))
        let url = folder.url.appendingPathComponent("Doc.yianazip")
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Doc", pageCount: 1), pdf: .data(simplePDF(["one"])))
        return (folder, store, url, try store.keep(url, reason: reason))
    }

    @Test func keptVersionsOfEveryDeviceAreListedAndTheOldLogIsMigrated() throws {
        let (folder, store, url, mine) = try keptDocument("mine")
        // Another device's record (its bytes arrived too), and a record an earlier version
        // wrote to the old shared log, conflict-copied by rclone.
        let other = VersionRecord(sha256: mine.sha256, size: mine.size, keptAt: mine.keptAt.addingTimeInterval(60), reason: "theirs",
                                  originalPath: "Doc.yianazip", documentID: mine.documentID, title: "Doc")
        let old = VersionRecord(sha256: mine.sha256, size: mine.size, keptAt: mine.keptAt.addingTimeInterval(-60), reason: "old",
                                originalPath: "Doc.yianazip", documentID: mine.documentID, title: "Doc")
        try JSONLinesLog<VersionRecord>(url: folder.url.appendingPathComponent(".yiana/devices/phone-00000001/versions.jsonl")).append(other)
        try JSONLinesLog<VersionRecord>(url: folder.url.appendingPathComponent(".yiana/versions/log.jsonl..path2")).append(old)
        #expect(try store.records().map(\.reason) == ["old", "mine", "theirs"])
        #expect(try store.versions(of: url).map(\.reason) == ["theirs", "mine", "old"])

        // Pruning on this device hides the other device's record too, without writing its log.
        let report = try store.prune(keepDays: nil, keepLast: 1, dryRun: false, now: Date())
        #expect(report.removed.map(\.reason).sorted() == ["mine", "old"])
        #expect(try store.records().map(\.reason) == ["theirs"])
        #expect(JSONLinesLog<VersionRecord>(url: folder.url.appendingPathComponent(".yiana/devices/phone-00000001/versions.jsonl")).read().count == 1)
    }

    @Test func conflictCopiesOfObjectsAreFoldedInByTheirHash() throws {
        let kept = try keptDocument("kept")  // holds the folder for the whole test
        let (store, record) = (kept.store, kept.record)
        let object = store.objectURL(record)
        let bytes = try Data(contentsOf: object)
        // rclone bisync left both sides' copies and no object; one copy is damaged.
        try bytes.write(to: URL(fileURLWithPath: object.path + "..path1"))
        try Data(bytes.dropLast()).write(to: URL(fileURLWithPath: object.path + "..path2"))
        try FileManager.default.removeItem(at: object)
        #expect(store.objectStore.strays().map(\.intact).sorted { !$0 && $1 } == [false, true])

        #expect(store.objectStore.foldConflictCopies() == 1)
        #expect(try Data(contentsOf: object) == bytes)
        #expect(!FileManager.default.fileExists(atPath: object.path + "..path1"))
        // A copy whose bytes do not match its name is never deleted.
        #expect(FileManager.default.fileExists(atPath: object.path + "..path2"))
    }
}

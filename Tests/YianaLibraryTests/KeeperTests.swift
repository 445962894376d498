import Crypto
import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

@Suite("keeper: every state seen here can be brought back")
struct KeeperTests {
    func document(_ folder: TemporaryFolder, _ name: String, title: String, id: UUID = UUID()) throws -> URL {
        let url = folder.url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: id, title: title, pageCount: 1),
                                        pdf: .data(simplePDF([title])))
        return url
    }

    func sha(_ url: URL) throws -> String {
        SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02x", $0) }.joined()
    }

    /// A look at the whole library, as an indexing run makes it.
    @discardableResult
    func look(_ keeper: Keeper, now: Date = Date()) async throws -> KeeperReport {
        let scan = try LibraryScanner.scan(keeper.library)
        return await keeper.look(scan, arrival: Arrival(scan: scan, window: 0), now: now)
    }

    /// What a sync program does: the new bytes written beside, then renamed over the document.
    func replaceByRename(_ url: URL, with bytes: Data) throws {
        let temp = url.deletingLastPathComponent().appendingPathComponent(".incoming-\(UUID().uuidString)")
        try bytes.write(to: temp)
        _ = rename(temp.path, url.path)
    }

    @Test func keepsEveryDocumentByLinkAtNoCostAndOnlyOnce() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let a = try document(folder, "A.yianazip", title: "A")
        _ = try document(folder, "Letters/B.yianazip", title: "B")
        let keeper = Keeper(library: library)
        #expect(keeper.place.mode == .link)
        #expect(!keeper.place.folder.path.hasPrefix(folder.url.path))  // never inside the synced folder
        let first = try await look(keeper)
        #expect(first.kept == 2 && first.newObjects == 2 && first.bytesCopied == 0)
        let object = keeper.objectURL(try sha(a))
        #expect(FileStamp(path: object.path)?.inode == FileStamp(path: a.path)?.inode)  // the same file: a link
        let second = try await look(keeper)
        #expect(second.kept == 0 && second.gone.isEmpty)
        // Nothing is lost, so nothing is listed.
        #expect(keeper.lost().isEmpty)
        #expect(keeper.summary().states == 2)
    }

    @Test func aDeletedDocumentIsListedAndRestoredByteForByte() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Letters/Gone.yianazip", title: "Gone")
        let original = try sha(url)
        let keeper = Keeper(library: library)
        let seenAt = Date()
        try await look(keeper, now: seenAt)
        try FileManager.default.removeItem(at: url)
        let report = try await look(keeper, now: seenAt.addingTimeInterval(60))
        #expect(report.gone == ["Letters/Gone.yianazip"])
        let lost = try #require(keeper.lost().first)
        #expect(lost.path == "Letters/Gone.yianazip" && lost.how == .deleted && lost.title == "Gone")
        #expect(lost.versions.first?.sha256 == original && lost.versions.first?.keptHere == true)
        #expect(abs(lost.lastSeen.timeIntervalSince(seenAt)) < 1)
        // `versions list DOC` lists it by its path, as any other version.
        #expect(try VersionStore(library: library).versions(of: url).map(\.sha256).contains(original))

        let dry = await keeper.restoreLost(since: seenAt, dryRun: true)
        #expect(dry.map(\.outcome) == [.wouldRestore])
        #expect(FileKind.at(url.path) == .missing)
        let done = await keeper.restoreLost(since: seenAt, dryRun: false)
        #expect(done.map(\.outcome) == [.restored])
        #expect(try sha(url) == original)
        #expect(keeper.lost().isEmpty)
    }

    @Test func overwrittenDocumentsAreNamedAndTheirGarbageKeptLocally() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let garbage = try document(folder, "Garbage.yianazip", title: "Garbage")
        let empty = try document(folder, "Empty.yianazip", title: "Empty")
        let cut = try document(folder, "Cut.yianazip", title: "Cut")
        let originals = [try sha(garbage), try sha(empty), try sha(cut)]
        let keeper = Keeper(library: library)
        try await look(keeper)
        try replaceByRename(garbage, with: Data((0..<4000).map { _ in UInt8.random(in: 0...255) }))
        try replaceByRename(empty, with: Data())
        try replaceByRename(cut, with: try Data(contentsOf: cut).prefix(900))
        let report = try await look(keeper)
        #expect(Set(report.notDocuments) == ["Garbage.yianazip", "Empty.yianazip", "Cut.yianazip"])
        #expect(Set(keeper.lost().map(\.how)) == [.overwritten])
        #expect(keeper.lastGoodState(path: "Garbage.yianazip")?.sha256 == originals[0])

        let results = await keeper.restoreLost(since: nil, dryRun: false)
        #expect(results.allSatisfy { $0.outcome == .restored && $0.replacedKeptAs != nil })
        #expect([try sha(garbage), try sha(empty), try sha(cut)] == originals)
        // The garbage stayed on this machine: nothing went to the shared (synced) store.
        #expect(try VersionStore(library: library).records().isEmpty)
    }

    @Test func repairOffersTheKeptStateOfAnOverwrittenDocument() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Report.yianazip", title: "Report")
        let original = try sha(url)
        let keeper = Keeper(library: library)
        try await look(keeper)
        try replaceByRename(url, with: Data((0..<3000).map { _ in UInt8.random(in: 0...255) }))
        var options = RepairOptions()
        options.settle = 0
        let offered = await Repairer(library: library).repair(options: options)
        let advice = try #require(offered.notRepaired.first?.detail)
        #expect(advice.contains("--from-version") && advice.contains(String(original.prefix(12))), "\(advice)")
        options.fromVersion = true
        let repaired = await Repairer(library: library).repair(options: options)
        #expect(repaired.repaired.map(\.action) == [.fromVersion])
        #expect(try sha(url) == original)
    }

    @Test func aMovedOrRenamedDocumentIsNotLost() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Old name.yianazip", title: "Moved")
        let keeper = Keeper(library: library)
        try await look(keeper)
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Archive"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: url, to: folder.url.appendingPathComponent("Archive/New name.yianazip"))
        let report = try await look(keeper)
        #expect(report.gone.isEmpty)
        #expect(keeper.lost().isEmpty)
    }

    @Test func anEvictedDocumentIsNotADeletedOne() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Evicted.yianazip", title: "Evicted")
        let keeper = Keeper(library: library)
        try await look(keeper)
        // iCloud's eviction: the document replaced by a hidden stub.
        try FileManager.default.removeItem(at: url)
        try Placeholder(documentName: "Evicted.yianazip", documentSize: 4000).stubData().write(to: Placeholder.stubURL(for: url))
        let report = try await look(keeper)
        #expect(report.gone.isEmpty && report.kept == 0)
        #expect(keeper.lost().isEmpty)
    }

    @Test func anInPlaceRewriteOfALinkedStateIsNeverOfferedAsGood() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Inplace.yianazip", title: "In place")
        let keeper = Keeper(library: library)
        try await look(keeper)
        let before = try sha(url)
        // rclone --inplace: the same file written over, so the linked state changes with it.
        let other = try document(folder, "Other.yianazip", title: "Other, and longer")
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 0)
        try handle.write(contentsOf: try Data(contentsOf: other))
        try handle.close()
        try FileManager.default.removeItem(at: other)
        let report = try await look(keeper)
        #expect(report.damaged == ["Inplace.yianazip"])
        #expect(!keeper.records(path: "Inplace.yianazip", documentID: nil).contains { $0.sha256 == before })
        // From now on the library's states are not linked.
        let again = Keeper(library: library)
        #expect(again.place.mode == .reflink)
        _ = try document(folder, "Later.yianazip", title: "Later")
        try await look(again)
        let later = again.objectURL(try sha(folder.url.appendingPathComponent("Later.yianazip")))
        #expect(FileStamp(path: later.path)?.inode != FileStamp(path: folder.url.appendingPathComponent("Later.yianazip").path)?.inode)
    }

    @Test func aStateChangedInTheStoreIsDroppedNotRestored() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Doc.yianazip", title: "Doc")
        let keeper = Keeper(library: library)
        try await look(keeper)
        let record = try #require(keeper.records(path: "Doc.yianazip", documentID: nil).first)
        try FileManager.default.removeItem(at: url)
        try await look(keeper)
        // The kept bytes damaged behind the keeper's back (the last name of that file now).
        let object = keeper.objectURL(record.sha256)
        let handle = try FileHandle(forWritingTo: object)
        try handle.seek(toOffset: 10)
        try handle.write(contentsOf: Data([0xFF, 0xFF]))
        try handle.close()
        #expect(throws: VersionStoreError.damagedObject(record.shortID)) { try VersionStore(library: library).restore(record, to: url) }
        #expect(FileKind.at(url.path) == .missing)
        #expect(keeper.lost().isEmpty)  // nothing left that verifies
    }

    @Test func copiesWhereItCannotLinkAndSurvivesAnInPlaceRewrite() async throws {
        let folder = try TemporaryFolder()
        let store = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let keeper = Keeper(library: library, place: KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: .copy, reason: "test"))
        let url = try document(folder, "Doc.yianazip", title: "Doc")
        let original = try sha(url)
        let report = try await look(keeper)
        #expect(report.bytesCopied == UInt64(try Data(contentsOf: url).count))
        let handle = try FileHandle(forWritingTo: url)
        try handle.write(contentsOf: Data(repeating: 0, count: 64))
        try handle.close()
        try await look(keeper)
        #expect(keeper.lastGoodState(path: "Doc.yianazip")?.sha256 == original)
    }

    /// Twenty documents, `Doc 0` to `Doc 19`, looked at once at `start`.
    func twentyLookedAt(_ folder: TemporaryFolder) async throws -> (keeper: Keeper, urls: [URL], start: Date) {
        let keeper = Keeper(library: try Library(root: folder.url))
        let urls = try (0..<20).map { try document(folder, "Doc \($0).yianazip", title: "Doc \($0)") }
        let start = Date()
        try await look(keeper, now: start)
        return (keeper, urls, start)
    }

    @Test func massLossRaisesTheAlarmAndRestoringLowersIt() async throws {
        let folder = try TemporaryFolder()
        let (keeper, urls, start) = try await twentyLookedAt(folder)
        // One deletion is not mass loss.
        try FileManager.default.removeItem(at: urls[0])
        #expect(try await look(keeper, now: start.addingTimeInterval(10)).alarm == nil)
        // A wiped device: 6 more within the hour (7 of 20).
        for url in urls[1...6] { try FileManager.default.removeItem(at: url) }
        let report = try await look(keeper, now: start.addingTimeInterval(20))
        let alarm = try #require(report.alarm)
        #expect(alarm.lost == 7 && alarm.documents == 20)
        #expect(keeper.summary().alarm.map { [$0.lost, $0.documents] } == [7, 20])
        #expect(keeper.summary().alarm?.paths == alarm.paths)
        #expect(alarm.message.contains("versions restore --deleted --since"))
        // While it is raised, no look prunes: even 40 days on, every lost state is still there.
        try await look(keeper, now: start.addingTimeInterval(40 * 86_400))
        #expect(keeper.lost().count == 7)
        _ = await keeper.restoreLost(since: start, dryRun: false)
        #expect(keeper.alarm() == nil)
        #expect(urls.allSatisfy { FileKind.at($0.path) == .regular })
    }

    /// The alarm counts what is lost, as SQLite finds it: documents deleted and documents
    /// overwritten by bytes that are not one, never one moved or renamed; its paths the first
    /// by time, then name.
    @Test func theAlarmCountsDeletedAndOverwrittenNotMoved() async throws {
        let folder = try TemporaryFolder()
        let (keeper, urls, start) = try await twentyLookedAt(folder)
        for url in urls[0...3] { try FileManager.default.removeItem(at: url) }
        for url in urls[4...5] { try FileManager.default.moveItem(at: url, to: url.deletingLastPathComponent().appendingPathComponent("Moved " + url.lastPathComponent)) }
        for url in urls[6...7] { try Data("not a document".utf8).write(to: url) }
        let alarm = try #require(try await look(keeper, now: start.addingTimeInterval(30)).alarm)
        #expect(alarm.lost == 6 && alarm.documents == 20)
        #expect(alarm.paths == ["Doc 0.yianazip", "Doc 1.yianazip", "Doc 2.yianazip", "Doc 3.yianazip", "Doc 6.yianazip", "Doc 7.yianazip"])
    }

    @Test func retentionKeepsDeletedDocumentsThirtyDaysAndThinsTheRest() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let keeper = Keeper(library: library)
        let id = UUID()
        let start = Date().addingTimeInterval(-60 * 86_400)
        // A living document edited 40 times over 40 days, one edit a day (three on day 20).
        var url = try document(folder, "Living.yianazip", title: "v0", id: id)
        for day in 0..<40 {
            url = try document(folder, "Living.yianazip", title: "v\(day)", id: id)
            try await look(keeper, now: start.addingTimeInterval(Double(day) * 86_400))
            if day == 20 {
                for extra in 0..<2 {
                    url = try document(folder, "Living.yianazip", title: "v\(day)-\(extra)", id: id)
                    try await look(keeper, now: start.addingTimeInterval(Double(day) * 86_400 + Double(extra + 1) * 60))
                }
            }
        }
        // Deleted 35 days ago, and deleted 10 days ago (the looks prune once a day as they go:
        // on the last look, the first had been gone 25 days, and was kept).
        let old = try document(folder, "Old.yianazip", title: "Old")
        let recent = try document(folder, "Recent.yianazip", title: "Recent")
        try await look(keeper, now: start)
        try FileManager.default.removeItem(at: old)
        try await look(keeper, now: start.addingTimeInterval(25 * 86_400))
        try FileManager.default.removeItem(at: recent)
        try await look(keeper, now: start.addingTimeInterval(50 * 86_400))
        let now = start.addingTimeInterval(60 * 86_400)
        let dry = try keeper.prune(KeeperRetention(budget: 1 << 40), dryRun: true, now: now)
        #expect(dry.dropped.contains { $0.originalPath == "Old.yianazip" })
        #expect(!dry.dropped.contains { $0.originalPath == "Recent.yianazip" })
        #expect(keeper.lost().count == 2)  // a dry run changes nothing
        let report = try keeper.prune(KeeperRetention(budget: 1 << 40), dryRun: false, now: now)
        #expect(report.dropped.count == dry.dropped.count)
        #expect(keeper.lost().map(\.path) == ["Recent.yianazip"])
        let living = keeper.records(path: "Living.yianazip", documentID: nil)
        // The current state, then at most one a day for the month before and one a week after.
        #expect(living.first?.sha256 == (try sha(url)))
        #expect(living.count < 40 && living.count >= 10)
        // A budget of one byte drops everything but the living document's current state,
        // the deleted document's last state last of all (and says so).
        let tight = try keeper.prune(KeeperRetention(budget: 1), dryRun: false, now: now)
        #expect(tight.forcedOut == ["Recent.yianazip"])
        #expect(keeper.records(path: "Living.yianazip", documentID: nil).map(\.sha256) == [try sha(url)])
    }

    @Test func aCrashMidAppendNeverListsAStateWithoutItsBytes() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let url = try document(folder, "Doc.yianazip", title: "Doc")
        let keeper = Keeper(library: library)
        try await look(keeper)
        // A torn last line (a kill mid-append), and an object placed but never listed.
        let handle = try FileHandle(forWritingTo: keeper.journal.url)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data("S\t123\tabc".utf8))
        try handle.close()
        try Data("stray".utf8).write(to: keeper.objectURL(String(repeating: "a", count: 64)))
        #expect(keeper.records(path: "Doc.yianazip", documentID: nil).count == 1)
        try FileManager.default.removeItem(at: url)
        let report = try await look(keeper)
        #expect(report.gone == ["Doc.yianazip"])
        #expect(keeper.lost().first?.versions.count == 1)
    }

    @Test func aJournalOfALaterFormatIsReadButNeverWritten() async throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        _ = try document(folder, "Doc.yianazip", title: "Doc")
        let keeper = Keeper(library: library)
        try await look(keeper)
        let text = try String(contentsOf: keeper.journal.url, encoding: .utf8)
        #expect(text.hasPrefix(KeeperJournal.header + "\n"))
        try ("# yiana keeper journal 2\n" + text.split(separator: "\n", maxSplits: 1)[1]).write(to: keeper.journal.url, atomically: true, encoding: .utf8)
        let before = try Data(contentsOf: keeper.journal.url)
        _ = try document(folder, "Other.yianazip", title: "Other")
        let report = try await look(keeper)
        #expect(report.failures.first?.contains("made by a newer yiana") == true)
        #expect(try Data(contentsOf: keeper.journal.url) == before)
        #expect(keeper.records(path: "Doc.yianazip", documentID: nil).count == 1)
        #expect(throws: VersionStoreError.self) { try keeper.prune(KeeperRetention(budget: 0), dryRun: false) }
    }

    @Test func journalLinesRoundTrip() {
        let state = KeptState(sha256: String(repeating: "b", count: 64), size: 12, stamp: FileStamp(size: 12, modified: 99, inode: 7),
                              path: "Tab\there/New\nline\\x.yianazip", seenAt: Date(timeIntervalSince1970: 1_700_000_000.123),
                              documentID: "ID", title: "A\ttitle", reason: Keeper.seenHere, placed: .init(how: .link, modified: 99))
        var copied = state
        copied.placed = .init(how: .copy, modified: 1234)
        var garbage = KeptState(sha256: String(repeating: "c", count: 64), size: 0, stamp: FileStamp(size: 0, modified: 1, inode: 2), path: "g",
                                seenAt: Date(timeIntervalSince1970: 9), documentID: nil, title: nil, reason: "replaced by restoring version 123")
        garbage.placed = nil
        let events: [KeeperEvent] = [
            .state(state), .state(copied), .state(garbage),
            .gone(at: Date(timeIntervalSince1970: 5), lastSeen: Date(timeIntervalSince1970: 4), path: "x\ty"),
            .notDocument(at: Date(timeIntervalSince1970: 6), stamp: FileStamp(size: 0, modified: 1, inode: 2), path: "z"),
            .dropped(at: Date(timeIntervalSince1970: 8), sha256: "c", why: KeeperCatalog.changedInPlace),
        ]
        #expect(events.map { KeeperEvent(line: Substring($0.line)) } == events)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// `yiana backup` with the real restic (issue 58): the library's documents and whole history
/// in a repository, read back from it alone after the machine is gone, a document rewritten in
/// place brought back as it was, and a second run costing what changed.
@Suite("keeper: backups in restic")
struct BackupTests {
    func sha(_ url: URL) throws -> String { try FileHash.sha256(of: url) }

    /// A document whose page holds `size` bytes of text no other document shares (restic's
    /// compression leaves most of it).
    @discardableResult
    func document(_ kept: KeptLibrary, _ name: String, size: Int = 40_000, seed: UInt64) throws -> URL {
        var generator = SeededGenerator(seed: seed)
        let words = (0..<(size / 8)).map { _ in String((0..<7).map { _ in "abcdefghijklmnopqrstuvwxyz".randomElement(using: &generator)! }) }
        let lines = stride(from: 0, to: words.count, by: 10).map { words[$0..<min($0 + 10, words.count)].joined(separator: " ") }
        return try kept.document(name, text: lines.joined(separator: "\n"))
    }

    /// Every regular file below `root`, by relative path, with its SHA-256.
    func files(_ root: URL) throws -> [String: String] {
        var found: [String: String] = [:]
        let walker = try #require(FileManager.default.enumerator(atPath: root.path))
        while let path = walker.nextObject() as? String {
            if FileKind.at(root.appendingPathComponent(path).path) == .regular { found[path] = try sha(root.appendingPathComponent(path)) }
        }
        return found
    }

    func check(_ restic: Restic) throws {
        let run = try restic.run(["check"])
        #expect(run.status == 0, "restic check: \(run.errors)")
    }

    @Test func theMachineLostEveryDocumentAndStateComeBackFromTheRepositoryAlone() async throws {
        let kept = try KeptLibrary(), elsewhere = try TemporaryFolder()
        let root = kept.root, keeper = kept.keeper
        for (index, name) in ["Top.yianazip", "A/One.yianazip", "A/Two.yianazip", "B/Three.yianazip"].enumerated() {
            try document(kept, name, seed: UInt64(index + 1))
        }
        for index in 0..<16 { try document(kept, "C/Letter \(index).yianazip", seed: UInt64(100 + index)) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".addresses"), withIntermediateDirectories: true)
        try Data(#"{"name": "Jane"}"#.utf8).write(to: root.appendingPathComponent(".addresses/One.json"))
        await keeper.lookAtLibrary()
        let top = try sha(root.appendingPathComponent("Top.yianazip")), twoBefore = try sha(root.appendingPathComponent("A/Two.yianazip"))
        try document(kept, "A/Two.yianazip", seed: 22)
        try FileManager.default.removeItem(at: root.appendingPathComponent("Top.yianazip"))

        let repository = elsewhere.path("repo")
        let restic = try Restic(repository: repository, environment: try resticEnvironment(elsewhere, password: "a long one"))
        try restic.run(["init"])
        let first = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(first.documents == 19 && first.companions == 1 && first.states == 2 && first.unkept.isEmpty && !first.incomplete, "\(first)")
        #expect(keeper.backupRecord()?.lastSuccess?.snapshot == first.snapshot && keeper.summary().backup?.lastFailure == nil)

        // One small change: the second snapshot adds a small part of the first.
        try document(kept, "C/Letter 3.yianazip", seed: 333)
        let second = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(second.filesNew == 1 && second.filesChanged <= 4, "the edited letter's earlier state, new; it, the journal and the manifest changed: \(second)")
        #expect(second.dataAdded * 5 < first.dataAdded, "\(second.dataAdded) bytes added against \(first.dataAdded)")
        try check(restic)
        let library = try files(root)

        // The machine lost: the library, the keeper and restic's cache gone; a fresh HOME.
        try FileManager.default.removeItem(at: root)
        try FileManager.default.removeItem(at: kept.store.url)
        try FileManager.default.removeItem(atPath: elsewhere.path("cache"))
        let fresh = try TemporaryFolder()
        var environment = try resticEnvironment(fresh)
        environment["HOME"] = fresh.url.path
        environment["RESTIC_PASSWORD_FILE"] = try resticEnvironment(elsewhere, password: "a long one")["RESTIC_PASSWORD_FILE"]
        let anew = try Restic(repository: repository, environment: environment)
        let history = try ResticHistory(restic: anew, library: nil, chosenID: nil, scratch: fresh.url)
        let snapshot = try history.snapshot()
        #expect(snapshot.shortID == second.snapshot)
        let restored = try history.restoreLibrary(snapshot, to: fresh.url.appendingPathComponent("Yiana"))
        #expect(restored.documents == 19 && restored.companions == 1 && restored.damaged.isEmpty, "\(restored)")
        #expect(try files(fresh.url.appendingPathComponent("Yiana")).filter { !$0.key.hasPrefix(".yiana/") } == library.filter { !$0.key.hasPrefix(".yiana/") },
                "every document and companion file, byte for byte")
        #expect(LibraryIdentity.ids(in: try Library(root: fresh.url.appendingPathComponent("Yiana"))) == [history.libraryID], "the id its snapshots are tagged with")

        // The history: the deleted document's last state and the edited ones' earlier states.
        let contents = try history.contents(of: snapshot)
        let back = try Library(root: fresh.url.appendingPathComponent("Yiana"))
        let lost = contents.lost(from: back)
        #expect(lost.map(\.path) == ["Top.yianazip"] && lost.first?.how == .deleted)
        let two = contents.states(path: "A/Two.yianazip", documentID: nil)
        #expect(two.count == 2 && two.last?.sha256 == twoBefore, "\(two)")
        for state in [try #require(lost.first?.versions.first), try #require(two.last)] {
            let file = try history.withFolder { folder in try sha(try history.fetch(state, from: snapshot, into: folder)) }
            #expect(file == state.sha256)
        }
        #expect(lost.first?.versions.first?.sha256 == top)
        #expect(contents.states(path: "C/Letter 3.yianazip", documentID: nil).count == 2)

        // Put back through the coordinated writer into the restored library.
        let url = back.root.appendingPathComponent("Top.yianazip")
        #expect(try await history.restore(try #require(lost.first?.versions.first), from: snapshot, to: url, in: back) == nil)
        #expect(try sha(url) == top)
        try check(anew)
    }

    @Test func aDocumentRewrittenInPlaceComesBackAsItWas() async throws {
        let kept = try KeptLibrary(mode: .link), elsewhere = try TemporaryFolder()
        let root = kept.root, keeper = kept.keeper
        for (index, name) in ["One.yianazip", "Two.yianazip"].enumerated() { try document(kept, name, seed: UInt64(index + 7)) }
        let one = root.appendingPathComponent("One.yianazip")
        let good = try sha(one)
        let restic = try Restic(repository: elsewhere.path("repo"), environment: try resticEnvironment(elsewhere, password: "pw"))
        try restic.run(["init"])
        let first = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(first.documents == 2)

        // Ransomware's way: the file's own bytes rewritten, its inode kept; the keeper's link
        // to it is the same file, changed with it.
        let inode = try #require(FileStamp(path: one.path)).inode
        let handle = try #require(FileHandle(forWritingAtPath: one.path))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 4096))
        try handle.truncate(atOffset: 4096)
        try handle.close()
        #expect(FileStamp(path: one.path)?.inode == inode)
        let second = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(second.unkept == ["One.yianazip"] && second.documents == 1, "the garbage never goes in as the document: \(second)")

        let history = try ResticHistory(restic: restic, library: keeper.library, chosenID: nil, scratch: kept.store.url)
        let newest = try history.contents(of: try history.snapshot())
        #expect(newest.libraryPaths["One.yianazip"] == nil && !newest.libraryPaths.values.contains { $0 != good && newest.libraryPaths["Two.yianazip"] != $0 })
        let found = try #require(try history.newestStates(path: "One.yianazip", documentID: nil))
        #expect(found.snapshot.shortID == first.snapshot && found.states.first?.sha256 == good)
        let replaced = try await history.restore(try #require(found.states.first), from: found.snapshot, to: one, in: keeper.library)
        #expect(try sha(one) == good, "as it was before the rewrite")
        #expect(replaced != nil, "the garbage it replaced is kept first")
        #expect(Keeper.verifiesWhole(one))
        // Bytes kept that are not a document (no metadata id: what overwrote one) are listed,
        // never put back as the document.
        _ = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        let third = try history.snapshot()
        let state = try #require(try history.contents(of: third).states(path: "One.yianazip", documentID: nil).first)
        let garbage = RepositoryState(path: state.path, sha256: state.sha256, size: state.size, seenAt: state.seenAt, reason: "replaced",
                                      documentID: nil, title: nil, snapshot: state.snapshot, snapshotTime: state.snapshotTime, location: state.location)
        await #expect(throws: RepositoryHistoryError.notADocument(garbage.shortID)) {
            _ = try await history.restore(garbage, from: third, to: one, in: keeper.library)
        }
        #expect(try sha(one) == good)
        // Evicted since (its placeholder in its place): not lost.
        try Placeholder(documentName: "One.yianazip", documentSize: 4000).stubData().write(to: Placeholder.stubURL(for: one))
        try FileManager.default.removeItem(at: one)
        #expect(try history.contents(of: third).lost(from: keeper.library).isEmpty)
        try check(restic)
    }

    /// A repository on another machine, as people keep one: Debian's OpenSSH server started by
    /// the test on a loopback port of its own, restic speaking SFTP to it.
    @Test func anSFTPRepositoryOnLoopback() async throws {
        let server = try TestSSH()
        defer { server.stop() }
        let kept = try KeptLibrary(), elsewhere = try TemporaryFolder()
        let keeper = kept.keeper
        for index in 0..<6 { try document(kept, "S/Doc \(index).yianazip", size: 20_000, seed: UInt64(40 + index)) }
        await keeper.lookAtLibrary()
        let before = try sha(kept.root.appendingPathComponent("S/Doc 0.yianazip"))
        try document(kept, "S/Doc 0.yianazip", size: 20_000, seed: 99)
        let location = "sftp:\(server.user)@127.0.0.1:" + server.folder.path("repo")
        let restic = try Restic(repository: location, options: [server.resticOption], environment: try resticEnvironment(elsewhere, password: "over the wire"))
        try restic.run(["init"])
        let first = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(first.documents == 6 && first.states == 1 && !first.incomplete, "\(first)")
        #expect(FileKind.at(server.folder.path("repo/config")) == .regular, "the repository is the server's")
        let second = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(second.filesNew == 0 && second.filesChanged <= 1 && second.dataAdded * 5 < first.dataAdded, "\(second)")
        let history = try ResticHistory(restic: restic, library: keeper.library, chosenID: nil, scratch: kept.store.url)
        let snapshot = try history.snapshot()
        let earlier = try #require(history.contents(of: snapshot).states(path: "S/Doc 0.yianazip", documentID: nil).last)
        #expect(earlier.sha256 == before)
        let url = kept.root.appendingPathComponent("S/Doc 0.yianazip")
        #expect(try await history.restore(earlier, from: snapshot, to: url, in: keeper.library) != nil)
        #expect(try sha(url) == before)
        let restored = try history.restoreLibrary(snapshot, to: elsewhere.url.appendingPathComponent("back"))
        #expect(restored.documents == 6 && restored.damaged.isEmpty)
        try check(restic)
    }

    /// Nothing the view is made from changed: the view is left as it is, and restic's
    /// comparison is the only work; a companion file edited, a document added, or the view's
    /// folder gone, and it is made again.
    @Test func anUnchangedLibraryLeavesTheViewAsItIs() async throws {
        let kept = try KeptLibrary(), elsewhere = try TemporaryFolder()
        let keeper = kept.keeper, root = kept.root
        for index in 0..<3 { try document(kept, "D\(index).yianazip", size: 2000, seed: UInt64(index)) }
        try FileManager.default.createDirectory(at: root.appendingPathComponent(".addresses"), withIntermediateDirectories: true)
        let address = root.appendingPathComponent(".addresses/D0.json")
        try Data(#"{"name": "Ann"}"#.utf8).write(to: address)
        let restic = try Restic(repository: elsewhere.path("repo"), environment: try resticEnvironment(elsewhere, password: "pw"))
        try restic.run(["init"])
        let first = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        let signature = keeper.viewSignature(try LibraryScanner.scan(keeper.library))
        #expect(keeper.madeView(try LibraryScanner.scan(keeper.library), keeper.backupView) != nil)
        let second = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(second.documents == first.documents && second.companions == 1 && second.filesNew == 0 && second.filesChanged == 0, "\(second)")
        #expect(keeper.viewSignature(try LibraryScanner.scan(keeper.library)) == signature)

        // The companion file edited (same size): the signature moves, the snapshot holds the edit.
        try await Task.sleep(for: .milliseconds(20))
        try Data(#"{"name": "Bob"}"#.utf8).write(to: address)
        #expect(keeper.madeView(try LibraryScanner.scan(keeper.library), keeper.backupView) == nil)
        let third = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(third.filesChanged >= 1, "\(third)")
        let history = try ResticHistory(restic: restic, library: keeper.library, chosenID: nil, scratch: kept.store.url)
        let back = try history.restoreLibrary(try history.snapshot(), to: elsewhere.url.appendingPathComponent("back"))
        #expect(back.documents == 3)
        #expect(try String(contentsOfFile: elsewhere.path("back/.addresses/D0.json"), encoding: .utf8).contains("Bob"))

        // A document added, and the view's folder removed: each time it is made again.
        try document(kept, "D3.yianazip", size: 2000, seed: 3)
        let fourth = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(fourth.documents == 4 && fourth.filesNew == 1, "\(fourth)")
        try FileManager.default.removeItem(atPath: keeper.backupView.top)
        let fifth = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library))
        #expect(fifth.documents == 4 && FileKind.at(keeper.backupView.top + "/library/D3.yianazip") == .regular, "\(fifth)")
        try check(restic)
    }

    @Test func oneBackupOfALibraryAtATimeAndFailuresAreRecorded() async throws {
        let kept = try KeptLibrary(), elsewhere = try TemporaryFolder()
        try document(kept, "One.yianazip", seed: 1)
        let keeper = kept.keeper
        let missing = try Restic(repository: elsewhere.path("none"), environment: try resticEnvironment(elsewhere, password: "pw"))
        await #expect(throws: ResticError.noRepository(elsewhere.path("none"))) {
            try await keeper.backUp(to: missing, scan: try LibraryScanner.scan(keeper.library))
        }
        #expect(keeper.backupRecord()?.lastSuccess == nil && keeper.backupRecord()?.lastFailure?.error.contains("no restic repository") == true)
        // Another backup holds the library's lock.
        try FileManager.default.createDirectory(at: keeper.place.folder, withIntermediateDirectories: true)
        let lock = try DocumentLock(document: keeper.place.folder.appendingPathComponent("backup").path, mode: .exclusive, timeout: 1)
        await #expect(throws: BackupError.running(kept.root.path)) {
            try await keeper.backUp(to: missing, scan: try LibraryScanner.scan(keeper.library))
        }
        lock.release()
    }

    @Test func snapshotsForgottenByTheRetentionNeverWhileTheAlarmStands() async throws {
        let kept = try KeptLibrary(), elsewhere = try TemporaryFolder()
        for index in 0..<6 { try document(kept, "D\(index).yianazip", size: 2000, seed: UInt64(index)) }
        let keeper = kept.keeper
        let restic = try Restic(repository: elsewhere.path("repo"), environment: try resticEnvironment(elsewhere, password: "pw"))
        try restic.run(["init"])
        for _ in 0..<3 { _ = try await keeper.backUp(to: restic, scan: try LibraryScanner.scan(keeper.library)) }
        let one = BackupRetention(daily: 1, weekly: 0, monthly: 0)
        let dry = try keeper.forgetBackups(restic, retention: one, prune: true, dryRun: true)
        #expect(dry.kept.count == 1 && dry.removed.count == 2 && !dry.pruned)
        #expect(try ResticHistory.snapshots(restic, tag: Keeper.backupTagAll).count == 3, "a dry run forgets nothing")
        // Every document gone at once: the alarm stands, nothing is forgotten.
        for index in 0..<6 { try FileManager.default.removeItem(at: kept.root.appendingPathComponent("D\(index).yianazip")) }
        await keeper.lookAtLibrary()
        #expect(keeper.alarm() != nil)
        #expect(throws: BackupError.self) { try keeper.forgetBackups(restic, retention: one, prune: true, dryRun: false) }
        _ = keeper.dismissAlarm()
        let done = try keeper.forgetBackups(restic, retention: one, prune: true, dryRun: false)
        #expect(done.removed.count == 2 && done.pruned)
        #expect(try ResticHistory.snapshots(restic, tag: Keeper.backupTagAll).count == 1)
        try check(restic)
    }
}

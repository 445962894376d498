import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// `yiana watch --json` running on a library while the test changes it, as a sync program
/// would; its events read as they come.
final class RunningWatcher: @unchecked Sendable {
    // @unchecked: `lines` and `buffer` are touched only under `lock`.
    let process = Process()
    private let lock = NSLock()
    private var lines: [[String: Any]] = []
    private var buffer = Data()

    init(_ arguments: [String], settle: String = "1", environment extra: [String: String] = [:]) throws {
        process.executableURL = Fixtures.productsFolder.appendingPathComponent("yiana")
        process.arguments = ["watch", "--json"] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["YIANA_LIBRARY"] = nil
        environment["YIANA_SETTLE_SECONDS"] = settle
        environment.merge(extra) { $1 }
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        out.fileHandleForReading.readabilityHandler = { [weak self] handle in self?.take(handle.availableData) }
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    private func take(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        buffer.append(data)
        while let newline = buffer.firstIndex(of: 0x0A) {
            let line = buffer[buffer.startIndex..<newline]
            buffer.removeSubrange(buffer.startIndex...newline)
            if let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] { lines.append(object) }
        }
    }

    var events: [[String: Any]] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }

    /// The events of `kind` (about `path`, when given).
    func events(_ kind: String, _ path: String? = nil) -> [[String: Any]] {
        events.filter { $0["kind"] as? String == kind && (path == nil || $0["path"] as? String == path) }
    }

    /// Waits up to `seconds` for an event of `kind` about `path`; returns it.
    @discardableResult
    func wait(for kind: String, _ path: String? = nil, code: String? = nil, seconds: Double = 15) -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let found = events(kind, path).first(where: { code == nil || $0["code"] as? String == code }) { return found }
            Thread.sleep(forTimeInterval: 0.05)
        }
        return nil
    }

    func stop() -> Int32 {
        process.terminate()  // SIGTERM
        process.waitUntilExit()
        return process.terminationStatus
    }
}

@Suite("yiana watch")
struct WatchCLITests {
    func document(_ folder: TemporaryFolder, _ name: String, words: [String]) throws {
        try CoordinatedDocument.create(at: folder.path(name), metadata: DocumentMetadata(title: name, pageCount: 1), pdf: .data(simplePDF(words)))
    }

    func search(_ library: TemporaryFolder, _ index: String, _ word: String) throws -> [String] {
        let result = try runYiana(["search", "--library", library.url.path, "--index", index, "--json", word])
        let hits = (try? JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
        return hits.compactMap { $0["path"] as? String }
    }

    @Test func followsWhatArrivesMovesGoesAndIsWrittenSlowly() async throws {
        let library = try TemporaryFolder(), cache = try TemporaryFolder()
        let index = cache.path("index.sqlite")
        try document(library, "First.yianazip", words: ["first document", "marmoset"])
        let watcher = try RunningWatcher(["--library", library.url.path, "--index", index, "--settle", "1"], settle: "0")
        #expect(watcher.wait(for: "started") != nil)
        #expect(watcher.wait(for: "indexed", "First.yianazip") != nil)

        // Added: indexed, and found.
        try document(library, "Second.yianazip", words: ["second document", "quokka"])
        let added = try #require(watcher.wait(for: "indexed", "Second.yianazip"))
        #expect((added["detail"] as? String)?.contains("extracted") == true)
        #expect(try search(library, index, "quokka") == ["Second.yianazip"])
        let running = try JSONSerialization.jsonObject(with: Data(try await runYiana(["status", "--json", "--library", library.url.path]).stdout.utf8)) as? [String: Any]
        #expect((running?["watcher"] as? [String: Any])?["running"] as? Bool == true, "status sees the watcher running")
        let second = try await runYiana(["watch", "--once", "--library", library.url.path, "--index", index])
        #expect(second.status == 1 && second.stderr.contains("already watched by another yiana watch"), "\(second.stderr)")

        // Renamed and moved into a folder made now: followed without extracting again.
        try FileManager.default.createDirectory(at: library.url.appendingPathComponent("Letters/2026"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: library.url.appendingPathComponent("Second.yianazip"),
                                         to: library.url.appendingPathComponent("Letters/2026/Renamed.yianazip"))
        let moved = try #require(watcher.wait(for: "indexed", "Letters/2026/Renamed.yianazip"))
        #expect((moved["detail"] as? String)?.contains("reused") == true, "\(moved)")
        #expect(watcher.wait(for: "removed", "Second.yianazip") != nil)
        #expect(try search(library, index, "quokka") == ["Letters/2026/Renamed.yianazip"])

        // Written in place slowly, over about 3 s: never damage; indexed once whole.
        let bytes = try Data(contentsOf: library.url.appendingPathComponent("First.yianazip"))
        try CoordinatedDocument.create(at: cache.path("slow.yianazip"), metadata: DocumentMetadata(title: "Slow", pageCount: 1),
                                       pdf: .data(simplePDF(["slowly written", "pangolin"])))
        let whole = try Data(contentsOf: URL(fileURLWithPath: cache.path("slow.yianazip")))
        #expect(whole != bytes)
        let slow = library.url.appendingPathComponent("Letters/Slow.yianazip")
        #expect(FileManager.default.createFile(atPath: slow.path, contents: nil))
        // On a thread of its own: the pauses are the test's premise, not to wait for a free thread.
        try await offPool {
            let handle = try FileHandle(forWritingTo: slow)
            let piece = max(1, whole.count / 8)
            for start in stride(from: 0, to: whole.count, by: piece) {
                try handle.write(contentsOf: whole[start..<min(start + piece, whole.count)])
                Thread.sleep(forTimeInterval: 0.4)
            }
            try handle.close()
        }
        #expect(watcher.wait(for: "indexed", "Letters/Slow.yianazip", code: "ok") != nil)
        #expect(watcher.events("problem", "Letters/Slow.yianazip").isEmpty, "a file still being written is never reported: \(watcher.events("problem"))")
        #expect(try search(library, index, "pangolin") == ["Letters/Slow.yianazip"])

        // Deleted.
        try FileManager.default.removeItem(at: library.url.appendingPathComponent("First.yianazip"))
        #expect(watcher.wait(for: "removed", "First.yianazip") != nil)
        #expect(try search(library, index, "marmoset").isEmpty)

        // Stopped with SIGTERM: exit 0, the stop logged, the health says so.
        #expect(watcher.stop() == 0)
        #expect(watcher.events("stopped").count == 1)
        let status = try JSONSerialization.jsonObject(with: Data(try await runYiana(["status", "--json", "--library", library.url.path]).stdout.utf8)) as? [String: Any]
        let health = try #require(status?["watcher"] as? [String: Any])
        #expect(health["running"] as? Bool == false)
        #expect((health["health"] as? [String: Any])?["stopped"] != nil)
    }

    /// Conflict copies reported once; an identical copy collapsed with --resolve identical;
    /// an evicted document kept by name as not downloaded; the kernel's queue overflowed
    /// while the watcher was stopped (SIGSTOP, as a laptop's sleep): a rescan misses nothing.
    @Test func reportsOnceResolvesIdenticalFollowsEvictionAndSurvivesOverflow() async throws {
        let library = try TemporaryFolder(), cache = try TemporaryFolder(), cloud = try TemporaryFolder()
        let lib = library.url.path, index = cache.path("index.sqlite")
        try document(library, "Kept.yianazip", words: ["kept document", "axolotl"])
        try document(library, "Evicted.yianazip", words: ["evicted document", "narwhal"])
        #expect(try await runYiana(["cloud", "init", "--library", lib, cloud.url.path, "--device", "laptop"]).status == 0)
        #expect(try await runYiana(["sync", "--library", lib]).status == 0)
        let watcher = try RunningWatcher(["--library", lib, "--index", index, "--resolve", "identical"])
        #expect(watcher.wait(for: "indexed", "Evicted.yianazip") != nil)

        // A diverged copy (Syncthing's name) is reported, once; an identical one (Dropbox's) is collapsed.
        let diverged = "Kept.sync-conflict-20261123-101500-ABCDEF7.yianazip"
        try FileManager.default.copyItem(at: library.url.appendingPathComponent("Kept.yianazip"), to: library.url.appendingPathComponent(diverged))
        var metadata = try DocumentReader(path: library.path(diverged)).metadata()
        metadata.tags = ["from the other device"]
        try CoordinatedDocument.replace(at: library.path(diverged), metadata: metadata, pdf: .data(simplePDF(["kept document", "axolotl", "edited"])))
        let identical = "Kept (Bob's conflicted copy 2026-11-23).yianazip"
        try FileManager.default.copyItem(at: library.url.appendingPathComponent("Kept.yianazip"), to: library.url.appendingPathComponent(identical))
        #expect(watcher.wait(for: "problem", diverged, code: "conflict-copy") != nil)
        let collapsed = try #require(watcher.wait(for: "action", identical, code: "collapse-identical"))
        #expect((collapsed["detail"] as? String)?.contains("kept as version") == true)
        #expect(!FileManager.default.fileExists(atPath: library.path(identical)))
        #expect(FileManager.default.fileExists(atPath: library.path(diverged)), "a diverged copy is never resolved unattended")

        // A temporary file an interrupted write left: reported as such.
        let temp = ".Kept.yianazip.yiana-tmp-0badf00d"
        try Data("half a document".utf8).write(to: library.url.appendingPathComponent(temp))
        #expect(watcher.wait(for: "problem", temp, code: "leftover-temp-file") != nil)

        // Evicted: kept in the index by name, not downloaded, said once.
        #expect(try await runYiana(["evict", "--library", lib, "Evicted"]).status == 0)
        #expect(watcher.wait(for: "problem", "Evicted.yianazip", code: "not-downloaded") != nil)
        #expect(try search(library, index, "evicted") == ["Evicted.yianazip"])

        // Stopped while more than the kernel's queue of events happens, then continued.
        let limit = Int((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "") ?? 16384
        let noise = library.url.appendingPathComponent("noise")
        try FileManager.default.createDirectory(at: noise, withIntermediateDirectories: true)
        try document(library, "noise/Before.yianazip", words: ["before the stop"])
        #expect(watcher.wait(for: "indexed", "noise/Before.yianazip") != nil, "the new folder is watched")
        kill(watcher.process.processIdentifier, SIGSTOP)
        for n in 0..<(limit / 3 + 1000) {  // each file: created, modified, closed
            #expect(FileManager.default.createFile(atPath: noise.appendingPathComponent("n\(n).txt").path, contents: Data("x".utf8)))
        }
        try document(library, "noise/During the overflow.yianazip", words: ["arrived while stopped", "okapi"])
        kill(watcher.process.processIdentifier, SIGCONT)
        #expect(watcher.wait(for: "rescan", seconds: 20).map { ($0["detail"] as? String)?.contains("overflowed") } == true)
        #expect(watcher.wait(for: "indexed", "noise/During the overflow.yianazip", seconds: 20) != nil)
        #expect(try search(library, index, "okapi") == ["noise/During the overflow.yianazip"])

        // Later passes say nothing again about what was already said.
        try document(library, "Later.yianazip", words: ["a later document"])
        #expect(watcher.wait(for: "indexed", "Later.yianazip") != nil)
        // (Counted by code: under load a copy caught half-written may also be said "damaged" once.)
        #expect(watcher.events("problem", diverged).filter { $0["code"] as? String == "conflict-copy" }.count == 1
                && watcher.events("problem", "Evicted.yianazip").filter { $0["code"] as? String == "not-downloaded" }.count == 1,
                "\(watcher.events.filter { ["problem", "cleared", "error"].contains($0["kind"] as? String) })")
        #expect(watcher.stop() == 0)
    }

    /// The app's companion files: the watcher sees changes inside `.addresses` and `.letters`,
    /// reports a conflict copy the app never reads and a file it cannot decode once each,
    /// collapses an identical copy (kept in the version store), and never touches a
    /// companion whose document is gone.
    @Test func reportsTheAppsCompanionFilesAsTheyArrive() async throws {
        let library = try TemporaryFolder(), cache = try TemporaryFolder()
        let lib = library.url.path, index = cache.path("index.sqlite")
        try document(library, "Smith_Jane_010180.yianazip", words: ["clinic letter"])
        let corrections = ".addresses/Smith_Jane_010180.overrides.json"
        let correctionsText = CompanionFixtures.corrections("Smith_Jane_010180", [CompanionFixtures.correction(page: 1, date: "2026-03-01T10:00:00Z")])
        try CompanionFixtures.write(correctionsText, corrections, in: library.url)
        try CompanionFixtures.write(CompanionFixtures.workList([]), ".worklist.json", in: library.url)
        let watcher = try RunningWatcher(["--library", lib, "--index", index, "--resolve", "identical"])
        #expect(watcher.wait(for: "indexed", "Smith_Jane_010180.yianazip") != nil)

        // Written inside .addresses only, as a sync program would: the folder is watched.
        let copy = ".addresses/Smith_Jane_010180.overrides.sync-conflict-20261124-101010-ABCDEF7.json"
        try CompanionFixtures.write(CompanionFixtures.corrections("Smith_Jane_010180", [CompanionFixtures.correction(page: 2, date: "2026-03-02T10:00:00Z")]),
                                    copy, in: library.url)
        #expect(watcher.wait(for: "problem", copy, code: "companion-conflict-copy") != nil)
        let identical = ".worklist.json..path1"
        try CompanionFixtures.write(CompanionFixtures.workList([]), identical, in: library.url)
        let collapsed = try #require(watcher.wait(for: "action", identical, code: "collapse-identical"))
        #expect((collapsed["detail"] as? String)?.contains("kept as version") == true)
        #expect(!FileManager.default.fileExists(atPath: library.path(identical)))
        let sender = ".letters/config/sender.json"
        try CompanionFixtures.write(CompanionFixtures.sender().replacingOccurrences(of: "\"email\" : \"a.consultant@example.org\",", with: ""), sender, in: library.url)
        let refused = try #require(watcher.wait(for: "problem", sender, code: "companion-app-refuses"))
        #expect((refused["detail"] as? String)?.contains("email") == true)
        try CompanionFixtures.write(CompanionFixtures.sender(), sender, in: library.url)
        #expect(watcher.wait(for: "cleared", sender) != nil)

        // The document goes; its corrections stay as they are.
        try FileManager.default.removeItem(atPath: library.path("Smith_Jane_010180.yianazip"))
        #expect(watcher.wait(for: "removed", "Smith_Jane_010180.yianazip") != nil)
        try document(library, "Later.yianazip", words: ["a later document"])
        #expect(watcher.wait(for: "indexed", "Later.yianazip") != nil)
        #expect(try String(contentsOfFile: library.path(corrections), encoding: .utf8) == correctionsText)
        #expect(FileManager.default.fileExists(atPath: library.path(copy)), "a diverged copy is never resolved unattended")
        #expect(watcher.events("problem", copy).count == 1 && watcher.events("problem", sender).count == 1)
        #expect(watcher.stop() == 0)
    }

    /// `watch --inject`: a letter the render service drops is appended as it arrives, found
    /// by search on its page, and a second copy of it (from another device) is never appended.
    @Test func appendsTheLettersDroppedForInjection() async throws {
        let library = try TemporaryFolder(), cache = try TemporaryFolder()
        let lib = library.url.path, index = cache.path("index.sqlite")
        try document(library, "Smith_Jane_010180.yianazip", words: ["clinic letter"])
        try FileManager.default.createDirectory(at: library.url.appendingPathComponent(".letters/inject"), withIntermediateDirectories: true)
        let watcher = try RunningWatcher(["--library", lib, "--index", index, "--inject"])
        #expect(watcher.wait(for: "indexed", "Smith_Jane_010180.yianazip") != nil)
        let id = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
        let letter = simplePDF(["Dear Dr Brown", "quokka"])
        let name = ".letters/inject/Smith_Jane_010180_\(id).pdf"
        try letter.write(to: library.url.appendingPathComponent(name))
        let appended = try #require(watcher.wait(for: "action", name, code: "inject-appended"))
        #expect((appended["detail"] as? String)?.contains("pages 2") == true)
        #expect(try DocumentReader(path: library.path("Smith_Jane_010180.yianazip")).metadata().pageCount == 2)
        let deadline = Date().addingTimeInterval(15)
        while try search(library, index, "quokka").isEmpty && Date() < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(try search(library, index, "quokka") == ["Smith_Jane_010180.yianazip"])
        // The same letter again, under the id in upper case (another device's copy).
        let again = ".letters/inject/Smith_Jane_010180_\(id.uppercased()).pdf"
        try letter.write(to: library.url.appendingPathComponent(again))
        #expect(watcher.wait(for: "action", again, code: "inject-already-appended") != nil)
        #expect(try DocumentReader(path: library.path("Smith_Jane_010180.yianazip")).metadata().pageCount == 2)
        #expect(watcher.stop() == 0)
    }

    /// The systemd user units Scripts/install.sh installs (the watcher's, the server's and the
    /// backup's): systemd's own check passes on each, with yiana where the install puts it (here,
    /// the build's).
    @Test(arguments: ["watch", "serve", "backup"]) func theSystemdUnitVerifies(command: String) async throws {
        let analyze = URL(fileURLWithPath: "/usr/bin/systemd-analyze")
        try #require(FileManager.default.isExecutableFile(atPath: analyze.path), "systemd-analyze (package systemd) checks the unit")
        let folder = try TemporaryFolder()
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Scripts/service/systemd/yiana-\(command)@.service"), encoding: .utf8)
        #expect(text.contains(command == "backup" ? "Type=oneshot" : "Restart=on-failure") && text.contains("ExecStart=@BIN@/yiana \(command) --library %f"))
        // The man page is not installed here: the rest is checked.
        let unit = text.replacingOccurrences(of: "@BIN@", with: Fixtures.productsFolder.path)
            .split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Documentation=") }.joined(separator: "\n")
        let instance = folder.url.appendingPathComponent("yiana-\(command)@home-ann-Yiana.service")
        try unit.write(to: instance, atomically: true, encoding: .utf8)
        var units = [instance.path]
        if command == "backup" {
            // Its timer, beside it: the two are checked together.
            let timer = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("Scripts/service/systemd/yiana-backup@.timer"), encoding: .utf8)
            #expect(timer.contains("OnCalendar=daily") && timer.contains("Persistent=true"))
            let timerInstance = folder.url.appendingPathComponent("yiana-backup@home-ann-Yiana.timer")
            try timer.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("Documentation=") }.joined(separator: "\n")
                .write(to: timerInstance, atomically: true, encoding: .utf8)
            units.append(timerInstance.path)
        }
        let check = try await runProcess(analyze, ["verify"] + units)
        #expect(check.status == 0 && check.stderr.isEmpty, "\(check.stderr)")
    }

    /// With --ocr and --resolve identical, a document whose conflict copy cannot be read yet
    /// (an I/O error, a partial download) is not recognised: that would make the copy differ
    /// from it, and a copy that would have collapsed by itself would wait for a person. Once
    /// the copy reads, it collapses and the document is recognised.
    @Test func holdsOCRWhileACopyBesideItCannotBeRead() async throws {
        let library = try TemporaryFolder()
        try document(library, "Minutes.yianazip", words: ["allotment", "minutes"])
        let copy = "Minutes (Bob's conflicted copy 2026-11-23).yianazip"
        let bytes = try Data(contentsOf: library.url.appendingPathComponent("Minutes.yianazip"))
        try bytes.prefix(bytes.count / 2).write(to: library.url.appendingPathComponent(copy))
        let arguments = ["watch", "--once", "--json", "--ocr", "--resolve", "identical", "--library", library.url.path]
        let first = try await runYiana(arguments, environment: ["YIANA_SETTLE_SECONDS": "0"])
        #expect(first.stdout.contains("\"ocr-held\""), "\(first.stdout)")
        #expect(try DocumentReader(path: library.path("Minutes.yianazip")).metadata().ocrCompleted == false)

        try bytes.write(to: library.url.appendingPathComponent(copy))
        let second = try await runYiana(arguments, environment: ["YIANA_SETTLE_SECONDS": "0"])
        #expect(!FileManager.default.fileExists(atPath: library.path(copy)), "the identical copy collapsed: \(second.stdout)")
        #expect(try DocumentReader(path: library.path("Minutes.yianazip")).metadata().ocrCompleted, "\(second.stdout)")
    }

    /// With --ocr, two libraries at once: a scan arriving in either is recognised and found
    /// by its words; each event names its library. A kill -9 in the middle of that damages
    /// nothing, and the next start finishes the job.
    @Test func recognisesScansInSeveralLibrariesAndSurvivesAKill() async throws {
        let one = try TemporaryFolder(), two = try TemporaryFolder()
        #expect(try await runYiana(["watch", "--library", one.url.path, "--library", two.url.path, "--index", one.path("i.sqlite")]).status == 2,
                "--index names one library's index")
        let first = try RunningWatcher(["--library", one.url.path, "--library", two.url.path, "--ocr", "--jobs", "1"])
        #expect(first.wait(for: "started") != nil)
        try CoordinatedDocument.create(at: one.path("Scan.yianazip"), metadata: DocumentMetadata(title: "Scan", pageCount: 1),
                                       pdf: .data(scannedPDF([["Gardening club minutes", "rhubarb"]], dpi: 150)))
        try CoordinatedDocument.create(at: two.path("Other scan.yianazip"), metadata: DocumentMetadata(title: "Other", pageCount: 1),
                                       pdf: .data(scannedPDF([["Harbour tide tables", "seaweed"]], dpi: 150)))
        let recognised = try #require(first.wait(for: "ocr", "Scan.yianazip", code: "recognized"))
        #expect(recognised["library"] as? String == one.url.lastPathComponent)
        // Killed while the other library's scan may be under way.
        kill(first.process.processIdentifier, SIGKILL)
        first.process.waitUntilExit()
        // Nothing damaged: a kill during a document's rewrite may leave the writer's hidden
        // temporary file beside it (by design never deleted unasked), but no document is harmed.
        for library in [one, two] {
            let verify = try await runYiana(["verify", "--json", "--library", library.url.path])
            let files = (try JSONSerialization.jsonObject(with: Data(verify.stdout.utf8)) as? [String: Any])?["files"] as? [[String: Any]] ?? []
            #expect(!files.isEmpty, "\(verify.stdout)")
            for file in files {
                let codes = (file["problems"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
                #expect(codes.allSatisfy { $0 == "leftover-temp-file" }, "nothing damaged by the kill: \(file)")
            }
        }
        // The next start finishes whatever the kill cut short (the other scan may have been
        // done before it, or not begun): wait for the outcome, not for an event.
        let second = try RunningWatcher(["--library", one.url.path, "--library", two.url.path, "--ocr", "--jobs", "1"])
        #expect(second.wait(for: "started") != nil)
        let finished = Date().addingTimeInterval(20)
        func done() throws -> Bool {
            try DocumentReader(path: two.path("Other scan.yianazip")).metadata().ocrCompleted
                && runYiana(["search", "--library", two.url.path, "--json", "seaweed"]).stdout.contains("Other scan.yianazip")
        }
        while try !done(), Date() < finished { try await Task.sleep(for: .milliseconds(200)) }
        #expect(try done(), "the other scan recognised and found after the restart: \(second.events)")
        #expect(second.stop() == 0)
        #expect(try await runYiana(["search", "--library", one.url.path, "--json", "rhubarb"]).stdout.contains("Scan.yianazip"))
        // What the kill left is put away by the repair made for it; then all is clean.
        for library in [one, two] {
            #expect(try await runYiana(["repair", "--remove-temps", "--library", library.url.path]).status == 0)
            let verify = try await runYiana(["verify", "--library", library.url.path])
            #expect(verify.status == 0, "\(verify.stdout)")
        }
    }
}

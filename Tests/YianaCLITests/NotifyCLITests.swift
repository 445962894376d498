import Foundation
import Testing
import YianaTestSupport

/// `yiana watch --notify` and `yiana notify test`, with Debian's apprise, to a webhook on loopback.
@Suite("yiana notify")
struct NotifyCLITests {
    /// A wiped device's deletions: one alarm, once, whatever the runs; the restore: one "resolved".
    @Test func aMassLossIsToldOnceAndItsEndOnce() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let receiver = try LoopbackReceiver(), monitor = try LoopbackReceiver()
        defer { receiver.close(); monitor.close() }
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "YIANA_SETTLE_SECONDS": "0",
                   "YIANA_NOTIFY": "json://127.0.0.1:\(receiver.port)/hook"]
        let watch = ["watch", "--once", "--library", lib, "--public-url", "http://box.local:8080/", "--heartbeat", "http://127.0.0.1:\(monitor.port)/ping/uuid"]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sampleDocs.appendingPathComponent("pdfs").path], environment: env).status == 1)
        #expect(try await runYiana(watch, environment: env).status == 0)
        #expect(receiver.received.isEmpty)

        let folder = lib + "/pdfs"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder) where name.hasSuffix(".yianazip") {
            try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
        let raised = try await runYiana(watch, environment: env)
        #expect(raised.status == 1, "the alarm is an error in the pass: \(raised.stdout)")
        let alarm = try await offPool { receiver.wait(for: 1, seconds: 5) }
        #expect(alarm.count == 1)
        let told = try #require(try JSONSerialization.jsonObject(with: Data((alarm.first?.body ?? "{}").utf8)) as? [String: Any])
        let title = told["title"] as? String ?? "", body = told["message"] as? String ?? ""
        #expect(title == "Yiana: documents deleted or overwritten on another device (mass-loss alarm)" && told["type"] as? String == "failure", "\(title)")
        #expect(body.contains("MASS LOSS: 5 of 5 documents") && body.contains("yiana versions restore --deleted --since")
                && body.contains("From: pdfs/ (5)") && body.contains("Open: http://box.local:8080/deleted") && body.contains("Library: \(lib)"), "\(body)")

        _ = try await runYiana(watch, environment: env)  // a restart: nothing said again
        #expect(receiver.received.count == 1)

        #expect(try await runYiana(["versions", "restore", "--deleted", "--library", lib], environment: env).status == 0)
        #expect(try await runYiana(watch, environment: env).status == 0)
        let all = try await offPool { receiver.wait(for: 2, seconds: 5) }
        let after = try await runYiana(["status", "--library", lib], environment: env)
        #expect(all.count == 2 && all.last?.body.contains("resolved: the mass-loss alarm") == true, "\(all.map(\.body)) \(after.stdout)")
        let status = try await runYiana(["status", "--library", lib, "--json"], environment: env)
        #expect(status.stdout.contains("resolved: the mass-loss alarm") && status.stdout.contains(#""failing" : false"#), "\(status.stdout)")
        // The heartbeat: healthy, failing while the alarm stood (the raise and the restart), healthy again.
        #expect(monitor.received.map(\.path) == ["/ping/uuid", "/ping/uuid/fail", "/ping/uuid/fail", "/ping/uuid"])
    }

    /// A running watcher beats every --heartbeat-every seconds, and stops beating when it stops.
    @Test func aRunningWatcherBeatsUntilItStops() async throws {
        let home = try TemporaryFolder()
        let monitor = try LoopbackReceiver()
        defer { monitor.close() }
        try FileManager.default.createDirectory(atPath: home.path("Yiana"), withIntermediateDirectories: true)
        let watcher = try RunningWatcher(["--library", home.path("Yiana"), "--heartbeat", "http://127.0.0.1:\(monitor.port)/ping/uuid", "--heartbeat-every", "1"],
                                         environment: ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")])
        let beats = try await offPool { monitor.wait(for: 3, seconds: 20) }
        #expect(watcher.stop() == 0)
        #expect(beats.count >= 3 && beats.allSatisfy { $0.path == "/ping/uuid" && $0.method == "GET" }, "\(beats.map(\.path))")
        let after = monitor.received.count
        try await Task.sleep(nanoseconds: 2_500_000_000)
        #expect(monitor.received.count == after, "a stopped watcher beats no more")
    }

    /// The digest of a day, sent by email to a real SMTP server (aiosmtpd) through apprise's
    /// `mailto://`: what arrived, the document deleted and until when it can be restored.
    @Test func theDigestGoesByEmail() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("My Yiana")
        let smtp = try await offPool { try SMTPReceiver() }
        defer { smtp.close() }
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "YIANA_SETTLE_SECONDS": "0"]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sampleDocs.appendingPathComponent("pdfs").path], environment: env).status == 1)
        #expect(try await runYiana(["watch", "--once", "--library", lib], environment: env).status == 0)
        let folder = lib + "/pdfs"
        let gone = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yianazip") }.sorted().first)
        try FileManager.default.removeItem(atPath: folder + "/" + gone)
        #expect(try await runYiana(["watch", "--once", "--library", lib], environment: env).status == 0)

        let shown = try await runYiana(["notify", "digest", "--library", lib], environment: env)
        #expect(shown.status == 0 && shown.stdout.hasPrefix("My Yiana: the day in brief: 5 arrived or changed, 1 deleted or overwritten"), "\(shown.stdout)\(shown.stderr)")
        let mailto = "mailto://127.0.0.1:\(smtp.port)?from=box@example.org&to=me@example.org"
        let sent = try await runYiana(["notify", "digest", "--library", lib, "--send", "--notify", mailto, "--json"], environment: env)
        #expect(sent.status == 0 && sent.stdout.contains(#""delivered" : true"#), "\(sent.stdout)\(sent.stderr)")
        let mail = try #require(try await offPool { smtp.wait(for: 1, seconds: 10) }.first)
        #expect(mail.to == ["me@example.org"] && mail.subject == "My Yiana: the day in brief: 5 arrived or changed, 1 deleted or overwritten")
        let until = DateFormatter()
        until.dateFormat = "yyyy-MM-dd"
        #expect(mail.text.contains("- pdfs/\(gone) (deleted ") && mail.text.contains("restorable until \(until.string(from: Date().addingTimeInterval(30 * 86_400)))")
                && mail.text.contains("--library 'My Yiana'") == false && mail.text.contains("--library '\(lib)'") && mail.text.contains("Nothing waits for you."), "\(mail.text)")

        let refused = try await runYiana(["notify", "digest", "--library", lib, "--send"], environment: env)
        #expect(refused.status == 2 && refused.stderr.contains("--send needs a URL"), "\(refused.stderr)")
        let badTime = try await runYiana(["watch", "--once", "--library", lib, "--notify", mailto, "--digest-at", "25:00"], environment: env)
        #expect(badTime.status == 2 && badTime.stderr.contains("--digest-at 25:00: give a local time as HH:MM"), "\(badTime.stderr)")
    }

    /// The keeper nearly full (its budget forced out a recently deleted document's last state)
    /// and the index unusable (its PostgreSQL server gone) are told; the server back: resolved.
    @Test func theKeeperNearlyFullAndTheIndexUnusableAreTold() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let receiver = try LoopbackReceiver()
        defer { receiver.close() }
        let postgres = try TestPostgres()
        let database = try postgres.makeDatabase()
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sampleDocs.appendingPathComponent("pdfs").path], environment: env).status == 1)
        let folder = lib + "/pdfs"
        let documents = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yianazip") }.sorted()
        try FileManager.default.removeItem(atPath: folder + "/" + documents[0])
        _ = try await runYiana(["index", "--library", lib], environment: env)
        let pruned = try await runYiana(["versions", "prune", "--keep-budget", "1", "--library", lib], environment: env)
        #expect(pruned.stdout.contains("forced out") || pruned.stderr.contains("forced out"), "\(pruned.stdout)\(pruned.stderr)")

        let watcher = try RunningWatcher(["--library", lib, "--index", postgres.url(database: database), "--notify", "json://127.0.0.1:\(receiver.port)/hook"],
                                         settle: "0", environment: env)
        func titles() -> [String] {
            receiver.received.compactMap { ((try? JSONSerialization.jsonObject(with: Data($0.body.utf8))) as? [String: Any])?["title"] as? String }
        }
        func waitFor(_ title: String) async throws -> Bool {
            for _ in 0..<300 where !titles().contains(title) { try await Task.sleep(nanoseconds: 100_000_000) }
            return titles().contains(title)
        }
        #expect(try await waitFor("Yiana: the keeper is nearly full"), "\(titles())")
        #expect(receiver.received.first?.body.contains("forced out the last state of 1 recently deleted document") == true)

        try await offPool { postgres.stop() }
        try FileManager.default.copyItem(atPath: folder + "/" + documents[1], toPath: folder + "/copy.yianazip")
        #expect(try await waitFor("Yiana: the search index cannot be used"), "\(titles())")
        try await offPool { try postgres.start() }
        try FileManager.default.removeItem(atPath: folder + "/copy.yianazip")
        #expect(try await waitFor("Yiana: resolved: the search index unusable"), "\(titles())")
        #expect(watcher.stop() == 0)
        #expect(titles().filter { $0.contains("search index") }.count == 2, "told once, resolved once: \(titles())")
    }

    /// A file whose text cannot be extracted (tried again at every pass) is told once.
    @Test func aDocumentWhoseTextCannotBeExtractedIsTold() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let receiver = try LoopbackReceiver()
        defer { receiver.close() }
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        #expect(mkfifo(lib + "/odd.yianazip", 0o644) == 0)
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "YIANA_SETTLE_SECONDS": "0",
                   "YIANA_NOTIFY": "json://127.0.0.1:\(receiver.port)/hook"]
        _ = try await runYiana(["watch", "--once", "--library", lib], environment: env)
        _ = try await runYiana(["watch", "--once", "--library", lib], environment: env)
        let told = try await offPool { receiver.wait(for: 1, seconds: 5) }
        #expect(told.count == 1 && told.first?.body.contains("1 document that OCR or text extraction keeps failing on") == true
                && told.first?.body.contains("- odd.yianazip: text extraction failed: a named pipe (FIFO)") == true, "\(told.map(\.body))")
    }

    @Test func notifyTestSaysWhatEachURLAnswered() async throws {
        let receiver = try LoopbackReceiver()
        defer { receiver.close() }
        let down = try LoopbackReceiver()
        down.close()
        let home = try TemporaryFolder()
        let sent = try await runYiana(["notify", "test", "--notify", "json://someone:hunter2secret@127.0.0.1:\(receiver.port)/hook", "--json", "--library", home.path("")],
                                      environment: ["XDG_STATE_HOME": home.path("state")])
        #expect(sent.status == 0 && sent.stdout.contains(#""delivered" : true"#) && sent.stdout.contains(#""waiting" : ["#)
                && !sent.stdout.contains("hunter2secret"), "\(sent.stdout)\(sent.stderr)")
        let test = try await offPool { receiver.wait(for: 1, seconds: 5) }.first?.body ?? ""
        #expect(test.contains("a test message") && test.contains("for the library \(home.url.resolvingSymlinksInPath().path)"), "\(test)")

        let failed = try await runYiana(["notify", "test", "--notify", "json://127.0.0.1:\(receiver.port)/hook", "--notify", "json://127.0.0.1:\(down.port)/hook"])
        #expect(failed.status == 1 && failed.stdout.contains("sent     json://127.0.0.1:\(receiver.port)")
                && failed.stdout.contains("FAILED   json://127.0.0.1:\(down.port)"), "\(failed.stdout)")

        let beat = try await runYiana(["notify", "test", "--heartbeat", "http://127.0.0.1:\(receiver.port)/ping/secret-uuid"])
        #expect(beat.status == 0 && beat.stdout.contains("sent     heartbeat http://127.0.0.1:\(receiver.port)/…") && !beat.stdout.contains("secret"), "\(beat.stdout)")
        #expect(receiver.received.last.map { "\($0.method) \($0.path)" } == "GET /ping/secret-uuid")

        let refused = try await runYiana(["notify", "test", "--notify", "json://"])
        #expect(refused.status == 2 && refused.stdout.contains("not one apprise can send to"), "\(refused.stdout)\(refused.stderr)")
        let watch = try await runYiana(["watch", "--once", "--library", home.path(""), "--notify", "nosuchservice://token@host"], environment: ["XDG_STATE_HOME": home.path("state")])
        #expect(watch.status != 0 && watch.stderr.contains("--notify: the notification URL nosuchservice://host is not one apprise can send to")
                && !watch.stderr.contains("token"), "\(watch.stderr)")
    }
}

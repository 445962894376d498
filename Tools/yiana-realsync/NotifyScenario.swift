import Foundation
import YianaTestSupport

/// The box tells its person, through Debian's apprise to a webhook on loopback, while a real
/// sync program carries another device's changes: device b deletes a fifth of the library,
/// and `yiana watch --notify --heartbeat` on a must send one alert (not one per document)
/// with the count and the restore command, within a minute, and its heartbeat must turn to
/// `/fail`; the restore on a must bring one "resolved" message and the heartbeat back. Then
/// the receiver goes down and b overwrites a document with garbage: the message must wait and
/// be delivered once the receiver is back. A restarted watcher must repeat nothing.
struct NotifyScenario {
    let base: Scenario

    struct Result: Codable {
        var program = ""
        var documents = 0
        var deleted = 0
        /// Seconds from the deletion's arrival on a (the sync done) to the alert at the receiver.
        var secondsToAlert = -1.0
        var alerts = 0
        var alertBody = ""
        var heartbeatFailed = false
        var resolved = false
        var heartbeatBack = false
        /// The garbage overwrite's message: tried and failed while the receiver was down (and
        /// so waited), delivered after it was back (its back-off is 30 s).
        var waitedWhileDown = false
        /// Seconds from the overwrite's arrival to the first failed try.
        var secondsToFailedTry = -1.0
        var deliveredAfter = -1.0
        var repeatedAfterRestart = 0
        /// Every message's title, in order.
        var titles: [String] = []
        var travelled: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: base)
        let a = base.a, b = base.b
        func sync() async throws { try await trip.sync(program) }
        // 25 one-page documents in five folders (Scripts/generate/library.py).
        let generator = base.samples.deletingLastPathComponent().appendingPathComponent("Scripts/generate/library.py")
        try base.shell.must("/usr/bin/env", ["python3", generator.path, "25", a.path, "7", "5"])
        try base.yiana(["index", "--library", a.path], allowed: [0, 1])
        try await sync()
        let documents = Tree.files(b).filter { !$0.hasPrefix(".") && $0.hasSuffix(".yianazip") }.sorted()
        result.documents = documents.count

        let receiver = try LoopbackReceiver(), monitor = try LoopbackReceiver()
        var watcher = try await watch(a, receiver: receiver.port, monitor: monitor.port)
        defer { if watcher.isRunning { watcher.terminate(); watcher.waitUntilExit() } }

        // A fifth of the library deleted on b.
        let doomed = documents.filter { $0.hasPrefix("Folder 02/") }
        result.deleted = doomed.count
        for path in doomed { try FileManager.default.removeItem(at: b.appendingPathComponent(path)) }
        try await sync()
        let arrived = Date()
        let alert = receiver.wait(for: 1, seconds: 60)
        if let first = alert.first { result.secondsToAlert = Date().timeIntervalSince(arrived); result.alertBody = first.body }
        try await Task.sleep(nanoseconds: 3_000_000_000)  // more passes: nothing more is said
        result.alerts = receiver.received.count
        result.heartbeatFailed = await until(20) { monitor.received.last?.path == "/ping/fail" }

        // The restore on a: one "resolved", the heartbeat healthy again.
        try base.yiana(["versions", "restore", "--deleted", "--library", a.path])
        result.resolved = await until(60) { receiver.received.count == 2 } && receiver.received.last?.body.contains("resolved: the mass-loss alarm") == true
        result.heartbeatBack = await until(20) { monitor.received.last?.path == "/ping" }
        try await sync()

        // The receiver down while b overwrites a document with garbage.
        receiver.close()
        let overwritten = documents.first { $0.hasPrefix("Folder 03/") } ?? documents[0]
        let temp = b.appendingPathComponent(overwritten + ".new")
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255) }).write(to: temp)
        _ = rename(temp.path, b.appendingPathComponent(overwritten).path)
        try await sync()
        // Up to 150 s: the pass that finds the garbage and apprise's first try ran late while the
        // whole suite loaded this 2-core VM.
        let down = Date()
        result.waitedWhileDown = await until(150) { failedTries(a) > 0 }
        result.secondsToFailedTry = Date().timeIntervalSince(down)
        let back = try LoopbackReceiver(port: receiver.port)
        defer { back.close() }
        let reopened = Date()
        if await until(150, { back.received.contains { $0.body.contains("damaged on arrival") } }) {
            result.deliveredAfter = Date().timeIntervalSince(reopened)
        }

        // A restart: nothing told again.
        watcher.terminate()
        watcher.waitUntilExit()
        let told = back.received.count
        watcher = try await watch(a, receiver: receiver.port, monitor: monitor.port)
        try await Task.sleep(nanoseconds: 4_000_000_000)
        result.repeatedAfterRestart = back.received.count - told
        result.titles = (receiver.received + back.received).map { request in
            ((try? JSONSerialization.jsonObject(with: Data(request.body.utf8))) as? [String: Any])?["title"] as? String ?? request.body
        }
        trip.finish(&result)
        judge(&result)
        return result
    }

    /// Failed tries of the messages waiting on a, as `yiana status --json` says.
    private func failedTries(_ library: URL) -> Int {
        guard let run = try? base.shell.run(base.yiana, ["status", "--json", "--library", library.path]) else { return 0 }
        let notifications = (Scenario.object(run.stdout)["summary"] as? [String: Any])?["notifications"] as? [String: Any]
        return (notifications?["waiting"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["tries"] as? Int ?? 0) }
    }

    /// `yiana watch` on `library` telling the receiver, beating every second, past its first pass.
    private func watch(_ library: URL, receiver: Int, monitor: Int) async throws -> Process {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: base.yiana)
        watcher.arguments = ["watch", "--library", library.path, "--notify", "json://127.0.0.1:\(receiver)/hook",
                             "--heartbeat", "http://127.0.0.1:\(monitor)/ping", "--heartbeat-every", "1"]
        watcher.environment = base.shell.environment
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        try await Task.sleep(nanoseconds: 1_500_000_000)
        return watcher
    }

    /// True once `condition` holds, false after `seconds`.
    private func until(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition() { return true }
            try? await Task.sleep(nanoseconds: 100_000_000)
        }
        return condition()
    }

    private func judge(_ result: inout Result) {
        if result.documents < 20 { result.problems.append("only \(result.documents) documents on b") }
        if result.secondsToAlert < 0 || result.secondsToAlert > 60 { result.problems.append("no alert within a minute of the deletions' arrival") }
        if result.alerts != 1 { result.problems.append("\(result.alerts) messages for one mass deletion, not 1") }
        if !result.alertBody.contains("MASS LOSS: \(result.deleted) of \(result.documents) documents") || !result.alertBody.contains("yiana versions restore --deleted --since") {
            result.problems.append("the alert does not give the count and the restore command: \(result.alertBody)")
        }
        if !result.heartbeatFailed { result.problems.append("the heartbeat did not turn to /fail") }
        if !result.resolved { result.problems.append("the restore did not bring one \"resolved\" message") }
        if !result.heartbeatBack { result.problems.append("the heartbeat did not come back to health") }
        if !result.waitedWhileDown { result.problems.append("the garbage overwrite's message did not wait while the receiver was down") }
        if result.deliveredAfter < 0 { result.problems.append("the waiting message was not delivered once the receiver was back") }
        if result.repeatedAfterRestart != 0 { result.problems.append("a restarted watcher said \(result.repeatedAfterRestart) messages again") }
    }
}

extension NotifyScenario.Result: TravelResult {
    var summary: String {
        "\(program): \(deleted) of \(documents) deleted on b; alert at the receiver after \(String(format: "%.1f", secondsToAlert)) s, \(alerts) message(s); "
            + "heartbeat /fail \(heartbeatFailed); resolved \(resolved), heartbeat back \(heartbeatBack); "
            + "waited while the receiver was down \(waitedWhileDown), delivered \(String(format: "%.1f", deliveredAfter)) s after it was back; "
            + "repeated after a restart \(repeatedAfterRestart) (\(String(format: "%.1f", seconds)) s)"
    }
}

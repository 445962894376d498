import Foundation
import Testing
import YianaLibrary
import YianaTestSupport
@testable import YianaNotify

/// Nothing lost on the way: a message that cannot be delivered waits in the library's local
/// state and goes once the receiver is back; a restarted notifier repeats nothing; no URL's
/// secret is kept.
@Suite("notify: delivery")
struct NotifierTests {
    @Test func aMessageWaitsWhileTheReceiverIsDownAndGoesWhenItIsBack() throws {
        let home = try TemporaryFolder()
        let environment = ["XDG_STATE_HOME": home.path("state")]
        try FileManager.default.createDirectory(at: home.url.appendingPathComponent("Yiana"), withIntermediateDirectories: true)
        let library = try Library(root: home.url.appendingPathComponent("Yiana"))
        var receiver = try LoopbackReceiver()
        let port = receiver.port
        receiver.close()
        let apprise = try Apprise()
        let url = "json://someone:hunter2secret@127.0.0.1:\(port)/hook"
        let notifier = Notifier(library: library, targets: [try NotifyTarget(url, apprise: apprise)], apprise: apprise, environment: environment)
        let start = Date()
        notifier.observe([Observation(kind: .damaged, path: "a.yianazip", detail: "its end record is missing")], now: start)

        #expect(notifier.deliver(now: start) == 1)
        var status = Notifier.status(of: library, environment: environment)
        #expect(status.lastSent == nil && status.waiting.count == 1)
        #expect(status.waiting.first?.tries == 1 && status.waiting.first?.lastError?.lowercased().contains("connection") == true)
        #expect(status.waiting.first.map { abs($0.next.timeIntervalSince(start) - 30) < 1 } == true)
        // Not due yet: not tried.
        #expect(notifier.deliver(now: start + 10) == 0 && Notifier.status(of: library, environment: environment).waiting.first?.tries == 1)

        // A restart: the same incident is not told again, the waiting message still waits.
        let restarted = Notifier(library: library, targets: notifier.targets, apprise: apprise, environment: environment)
        restarted.observe([Observation(kind: .damaged, path: "a.yianazip", detail: "its end record is missing")], now: start + 20)
        #expect(Notifier.status(of: library, environment: environment).waiting.count == 1)

        receiver = try LoopbackReceiver(port: port)
        defer { receiver.close() }
        #expect(restarted.deliver(now: start + 31) == 0)
        #expect(receiver.wait(for: 1, seconds: 10).count == 1)
        status = Notifier.status(of: library, environment: environment)
        #expect(status.waiting.isEmpty && status.lastSent?.title == "Yiana: 1 document damaged on arrival")
        #expect(status.lastSent?.to.first?.contains("hunter2secret") == false)
        let kept = try String(contentsOf: Notifier.stateFile(for: library, environment: environment).url, encoding: .utf8)
        #expect(!kept.contains("hunter2secret"))
        #expect(restarted.deliver(now: start + 4000) == 0 && receiver.received.count == 1)
    }

    @Test func theURLsComeFromTheOptionsAndTheEnvironmentOnceEach() {
        let urls = NotifyTarget.urls(options: ["ntfy://a/x", "json://b/y"], environment: ["YIANA_NOTIFY": " json://b/y  mailto://me:pw@c\tntfy://d/z "])
        #expect(urls == ["ntfy://a/x", "json://b/y", "mailto://me:pw@c", "ntfy://d/z"])
        #expect(Attempt.backOff(after: 1) == 30 && Attempt.backOff(after: 2) == 60 && Attempt.backOff(after: 20) == 3600)
    }
}

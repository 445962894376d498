import Foundation
import Testing
import YianaLibrary
import YianaTestSupport
@testable import YianaNotify

/// The dead man's switch: its addresses for a healthy and a failing box, and its one GET, for real.
@Suite("notify: heartbeat")
struct HeartbeatTests {
    func library() throws -> (TemporaryFolder, Library, [String: String]) {
        let home = try TemporaryFolder()
        try FileManager.default.createDirectory(at: home.url.appendingPathComponent("Yiana"), withIntermediateDirectories: true)
        return (home, try Library(root: home.url.appendingPathComponent("Yiana")), ["XDG_STATE_HOME": home.path("state")])
    }

    @Test func theFailingAddressIsHealthchecksOrUptimeKumas() throws {
        let (_, library, environment) = try library()
        let checks = try Heartbeat("https://hc-ping.com/0d3a-secret-uuid", every: 300, library: library, environment: environment)
        #expect(checks.address(failing: false).absoluteString == "https://hc-ping.com/0d3a-secret-uuid")
        #expect(checks.address(failing: true).absoluteString == "https://hc-ping.com/0d3a-secret-uuid/fail")
        #expect(checks.shown == "https://hc-ping.com/…" && !checks.shown.contains("secret"))
        let kuma = try Heartbeat("https://kuma.example.org/api/push/Tok3n?status=up&msg=OK&ping=", every: 60, library: library, environment: environment)
        #expect(kuma.address(failing: true).absoluteString == "https://kuma.example.org/api/push/Tok3n?status=down&msg=OK&ping=")
        #expect { try Heartbeat("ntfy://host/topic", every: 60, library: library, environment: environment) } throws: { ($0 as? NotifyError)?.shownURL == "ntfy://host/…" }
    }

    @Test func aBeatIsOneGETAndWhatItCameToIsKept() async throws {
        let (_, library, environment) = try library()
        let receiver = try LoopbackReceiver()
        defer { receiver.close() }
        let heartbeat = try Heartbeat("http://127.0.0.1:\(receiver.port)/ping/abc", every: 300, library: library, environment: environment)
        let healthy = await heartbeat.beat(failing: false), failing = await heartbeat.beat(failing: true)
        #expect(healthy == nil && failing == nil, "\(healthy ?? "-") \(failing ?? "-")")
        #expect(receiver.received.map { "\($0.method) \($0.path)" } == ["GET /ping/abc", "GET /ping/abc/fail"])
        #expect(receiver.received.first?.headers["user-agent"] == "yiana")
        var kept = Notifier.status(of: library, environment: environment).heartbeat
        #expect(kept?.failing == true && kept?.error == nil && kept?.to == "http://127.0.0.1:\(receiver.port)/…")

        receiver.answer(with: 503)
        #expect(await heartbeat.beat(failing: false) == "answered 503")
        receiver.close()
        let down = await heartbeat.beat(failing: false)
        #expect(down != nil && down != "answered 503", "\(down ?? "")")
        kept = Notifier.status(of: library, environment: environment).heartbeat
        #expect(kept?.error == down)
    }
}

import Foundation
import Testing
import YianaLibrary
import YianaTestSupport
@testable import YianaNotify

/// Debian's apprise, run for real, to receivers on loopback: a JSON webhook and ntfy's
/// publish API.
@Suite("notify: apprise")
struct AppriseTests {
    @Test func aURLIsCheckedAndShownWithoutItsSecret() throws {
        let apprise = try Apprise()
        let shown = try apprise.check("json://someone:hunter2secret@127.0.0.1:9/hook")
        #expect(shown.hasPrefix("json://") && shown.contains("127.0.0.1") && !shown.contains("hunter2secret"), "\(shown)")
        #expect { try apprise.check("json://") } throws: { error in
            guard case .badURL(let url, let reason)? = error as? NotifyError else { return false }
            return url == "json://" && reason.contains("JSON")
        }
        #expect { try apprise.check("nosuchservice://token@host") } throws: { ($0 as? NotifyError)?.shownURL == "nosuchservice://host" }
        #expect { try apprise.check("json://a json://b") } throws: { ($0 as? NotifyError) != nil }
    }

    @Test func aMessageReachesAWebhookAndNtfy() throws {
        let receiver = try LoopbackReceiver()
        defer { receiver.close() }
        let apprise = try Apprise()
        let message = NotifyMessage(incident: "test", level: .warning, title: "Yiana: 2 documents damaged on arrival", body: "- a.yianazip\n- b.yianazip")
        #expect(apprise.send(message, to: "json://127.0.0.1:\(receiver.port)/hook") == .delivered)
        #expect(apprise.send(message, to: "ntfy://127.0.0.1:\(receiver.port)/yiana-home") == .delivered)
        let got = receiver.wait(for: 2, seconds: 10)
        #expect(got.count == 2)
        let hook = try #require(got.first { $0.path.hasPrefix("/hook") })
        let json = try #require(try JSONSerialization.jsonObject(with: Data(hook.body.utf8)) as? [String: Any])
        #expect(json["title"] as? String == "Yiana: 2 documents damaged on arrival" && json["message"] as? String == "- a.yianazip\n- b.yianazip")
        #expect(json["type"] as? String == "warning")
        let ntfy = try #require(got.first { $0.path.hasPrefix("/yiana-home") || $0.body.contains("yiana-home") })
        #expect(ntfy.method == "POST" && ntfy.body.contains("a.yianazip"), "\(ntfy)")
    }

    @Test func aReceiverThatIsDownOrFailsIsSaidWithApprisesReason() throws {
        let receiver = try LoopbackReceiver()
        let apprise = try Apprise()
        let message = NotifyMessage(incident: "test", level: .info, title: "t", body: "b")
        receiver.answer(with: 500)
        guard case .failed(let refused) = apprise.send(message, to: "json://127.0.0.1:\(receiver.port)/hook") else { Issue.record("delivered to a 500"); return }
        #expect(refused.contains("500") || refused.lowercased().contains("fail"), "\(refused)")
        receiver.close()
        guard case .failed(let down) = apprise.send(message, to: "json://127.0.0.1:\(receiver.port)/hook") else { Issue.record("delivered to nothing"); return }
        #expect(down.lowercased().contains("connection"), "\(down)")
    }
}

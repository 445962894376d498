import Foundation
import Testing
import YianaLibrary
import YianaSystem
import YianaTestSupport
@testable import YianaNotify

/// The digest: when it is due (time injected), and what it says of a day.
@Suite("notify: digest")
struct DigestTests {
    static let utc: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    static func at(_ text: String) -> Date {
        let formatter = DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.date(from: text)!
    }

    @Test func theScheduleIsDailyOrMondaysAtTheSetTime() throws {
        let daily = try DigestSchedule(.daily, at: "08:00", calendar: Self.utc)
        #expect(daily.next(after: Self.at("2026-11-27 07:59")) == Self.at("2026-11-27 08:00"))
        #expect(daily.next(after: Self.at("2026-11-27 08:00")) == Self.at("2026-11-28 08:00"))
        let weekly = try DigestSchedule(.weekly, at: "18:30", calendar: Self.utc)
        // 2026-11-27 is a Friday: the next Monday is the 30th.
        #expect(weekly.next(after: Self.at("2026-11-27 12:00")) == Self.at("2026-11-30 18:30"))
        #expect(try DigestSchedule(.off, calendar: Self.utc).next(after: Date()) == nil)
        for bad in ["25:00", "8", "08:5", "ab:cd", "08:60", ""] {
            #expect(throws: NotifyError.self) { try DigestSchedule(.daily, at: bad) }
        }
        do { _ = try DigestSchedule(.daily, at: "8h") } catch { #expect("\(error)".contains("--digest-at 8h: give a local time as HH:MM")) }
    }

    @Test func oneDigestADayAndOneForDaysTheBoxWasOff() throws {
        let home = try TemporaryFolder()
        let environment = ["XDG_STATE_HOME": home.path("state")]
        try FileManager.default.createDirectory(at: home.url.appendingPathComponent("Yiana"), withIntermediateDirectories: true)
        let library = try Library(root: home.url.appendingPathComponent("Yiana"))
        let apprise = try Apprise()
        let notifier = Notifier(library: library, targets: [try NotifyTarget("json://127.0.0.1:9/hook", apprise: apprise)], apprise: apprise, environment: environment)
        let schedule = try DigestSchedule(.daily, at: "08:00", calendar: Self.utc)
        // The first look starts the count: nothing is due.
        #expect(notifier.digestDue(schedule, now: Self.at("2026-11-26 15:00")) == nil)
        #expect(notifier.digestDue(schedule, now: Self.at("2026-11-27 07:59")) == nil)
        let due = try #require(notifier.digestDue(schedule, now: Self.at("2026-11-27 08:00")))
        #expect(due.start == Self.at("2026-11-26 15:00") && due.end == Self.at("2026-11-27 08:00"))
        notifier.queueDigest(DigestContent(from: due.start, to: due.end), now: due.end)
        #expect(notifier.digestDue(schedule, now: Self.at("2026-11-27 08:01")) == nil)
        #expect(notifier.digestDue(schedule, now: Self.at("2026-11-28 07:00")) == nil)
        // Off from the 28th to the 30th: one digest for the whole time, not three.
        let late = try #require(notifier.digestDue(schedule, now: Self.at("2026-11-30 11:00")))
        #expect(late.start == Self.at("2026-11-27 08:00") && late.end == Self.at("2026-11-30 11:00"))
        notifier.queueDigest(DigestContent(from: late.start, to: late.end), now: late.end)
        #expect(notifier.digestDue(schedule, now: Self.at("2026-11-30 11:05")) == nil)
        let waiting = Notifier.status(of: library, environment: environment).waiting
        #expect(waiting.count == 2 && waiting.allSatisfy { $0.title.hasPrefix("Yiana: the ") })
        #expect(waiting.first?.title == "Yiana: the day in brief: all quiet" && waiting.last?.title == "Yiana: the 3 days in brief: all quiet")
    }

    @Test func aDaySaysWhatArrivedWhatWasLostUntilWhenAndWhatWaits() {
        let rules = IncidentRules(libraryName: "Yiana", root: "/srv/My Yiana", publicURL: "http://box.local:8080")
        var content = DigestContent(from: Self.at("2026-11-26 08:00"), to: Self.at("2026-11-27 08:00"))
        content.arrived = (1...12).map { "Letters/letter-\($0).yianazip" }
        content.lost = [DigestContent.Lost(path: "Scans/old.yianazip", overwritten: false, goneAt: Self.at("2026-11-26 21:14"),
                                           restorableUntil: Self.at("2026-12-26 21:14"))]
        content.removed = ["Scans/old.yianazip", "moved-out.yianazip"]
        content.standing = [Observation(kind: .conflicts, path: "a (conflicted copy).yianazip", detail: "a conflict copy")]
        content.recognised = 3
        let message = DigestWriter(rules: rules).message(content, now: content.to)
        #expect(message.incident == "digest" && message.level == .warning)
        #expect(message.title == "Yiana: the day in brief: 12 arrived or changed, 1 deleted or overwritten, 1 waiting for you")
        let body = message.body
        #expect(body.contains("Arrived or changed (12):\n- Letters/letter-1.yianazip"))
        #expect(body.contains("- and 2 more") && !body.contains("letter-11.yianazip"))
        #expect(body.contains("- Scans/old.yianazip (deleted 2026-11-26 21:14; restorable until 2026-12-26)"))
        #expect(body.contains("yiana versions restore --deleted --since 'YYYY-MM-DD HH:MM' --library '/srv/My Yiana'"))
        #expect(body.contains("Gone from the index (1):\n- moved-out.yianazip"))
        #expect(body.contains("OCR recognised 3 documents."))
        #expect(body.contains("Waiting for you:\n- a conflict copy waiting for over an hour: `yiana conflicts list --library '/srv/My Yiana'`"))
        #expect(body.contains("Open: http://box.local:8080/health"))

        let quiet = DigestWriter(rules: rules).message(DigestContent(from: content.from, to: content.to), now: content.to)
        #expect(quiet.title == "Yiana: the day in brief: all quiet" && quiet.level == .info && quiet.body.contains("Nothing waits for you."))
    }

    @Test func pathsAreQuotedForAShellOnlyWhenTheyNeedIt() {
        #expect("/home/me/Yiana".shellQuoted == "/home/me/Yiana")
        #expect("/home/me/My Yiana".shellQuoted == "'/home/me/My Yiana'")
        #expect("/home/me/Jo's".shellQuoted == #"'/home/me/Jo'\''s'"#)
        #expect("".shellQuoted == "''")
        #expect("$(rm -rf ~)".shellQuoted == "'$(rm -rf ~)'")
    }
}

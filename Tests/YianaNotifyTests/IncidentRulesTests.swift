import Foundation
import Testing
@testable import YianaNotify

/// Each incident told once, more of the same joined within the hour, told resolved once; the
/// state (what ``Notifier`` keeps on disk) is all a restart needs to repeat nothing.
@Suite("notify: incidents")
struct IncidentRulesTests {
    let rules = IncidentRules(libraryName: "Yiana", root: "/home/me/Yiana", publicURL: "http://box.local:8080")
    let start = Date(timeIntervalSinceReferenceDate: 815_000_000)

    func damaged(_ paths: [String]) -> [Observation] {
        paths.map { Observation(kind: .damaged, path: $0, detail: "its end record is missing") }
    }

    @Test func anIncidentIsToldOnceThenJoinedWithinTheHourThenResolvedOnce() {
        var state: [String: Incident] = [:]
        let first = rules.messages(for: damaged(["a.yianazip", "b.yianazip"]), state: &state, now: start)
        #expect(first.count == 1)
        #expect(first[0].title == "Yiana: 2 documents damaged on arrival" && first[0].level == .warning)
        #expect(first[0].body.contains("- a.yianazip: its end record is missing") && first[0].body.contains("yiana repair --library /home/me/Yiana --dry-run"))
        #expect(first[0].body.contains("Open: http://box.local:8080/health"))

        // The same again, and a third one within the hour: nothing yet.
        #expect(rules.messages(for: damaged(["a.yianazip", "b.yianazip"]), state: &state, now: start + 60).isEmpty)
        #expect(rules.messages(for: damaged(["a.yianazip", "b.yianazip", "c.yianazip"]), state: &state, now: start + 600).isEmpty)
        // The hour over: the third alone, the others counted as told before.
        let joined = rules.messages(for: damaged(["a.yianazip", "b.yianazip", "c.yianazip"]), state: &state, now: start + 3601)
        #expect(joined.count == 1 && joined[0].title == "Yiana: 1 document damaged on arrival")
        #expect(joined[0].body.contains("c.yianazip") && !joined[0].body.contains("- a.yianazip") && joined[0].body.contains("(3 in all, 2 told before)"))

        // One repaired: nothing; all gone: resolved once, then nothing.
        #expect(rules.messages(for: damaged(["b.yianazip", "c.yianazip"]), state: &state, now: start + 4000).isEmpty)
        let resolved = rules.messages(for: [], state: &state, now: start + 4100)
        #expect(resolved.count == 1 && resolved[0].level == .success && resolved[0].title == "Yiana: resolved: damaged documents")
        #expect(rules.messages(for: [], state: &state, now: start + 4200).isEmpty)
        #expect(state.isEmpty)
    }

    @Test func theMassLossAlarmIsToldAtOnceAndItsLoweringOnce() {
        var state: [String: Incident] = [:]
        // Something else was told a minute ago: the alarm does not wait for any hour.
        _ = rules.messages(for: damaged(["a.yianazip"]), state: &state, now: start)
        let alarm = [Observation(kind: .massLoss, path: ".", detail: "MASS LOSS: 12 of 40 documents were deleted or overwritten since …\nFrom: Letters/ (12)")]
        let raised = rules.messages(for: damaged(["a.yianazip"]) + alarm, state: &state, now: start + 60)
        #expect(raised.count == 1 && raised[0].level == .failure && raised[0].incident == "mass-loss")
        #expect(raised[0].body.contains("MASS LOSS: 12 of 40") && raised[0].body.contains("From: Letters/ (12)") && raised[0].body.contains("Open: http://box.local:8080/deleted"))
        // It stands (more lost since): told once.
        let grown = [Observation(kind: .massLoss, path: ".", detail: "MASS LOSS: 20 of 40 documents …")]
        #expect(rules.messages(for: damaged(["a.yianazip"]) + grown, state: &state, now: start + 120).isEmpty)
        let lowered = rules.messages(for: damaged(["a.yianazip"]), state: &state, now: start + 900)
        #expect(lowered.map(\.title) == ["Yiana: resolved: the mass-loss alarm"])
    }

    @Test func aConflictCopyIsToldOnlyOnceItHasWaitedAnHour() {
        var state: [String: Incident] = [:]
        let copy = [Observation(kind: .conflicts, path: "Bank (conflicted copy).yianazip", detail: "a diverged copy of Bank.yianazip")]
        #expect(rules.messages(for: copy, state: &state, now: start).isEmpty)
        #expect(rules.messages(for: copy, state: &state, now: start + 3599).isEmpty)
        let told = rules.messages(for: copy, state: &state, now: start + 3600)
        #expect(told.map(\.title) == ["Yiana: a conflict copy waiting for over an hour"])
        #expect(told[0].body.contains("yiana conflicts resolve --library /home/me/Yiana") && told[0].body.contains("/conflicts"))
        // Resolved within the hour by a person: a copy never told is never told resolved.
        var quiet: [String: Incident] = [:]
        _ = rules.messages(for: copy, state: &quiet, now: start)
        #expect(rules.messages(for: [], state: &quiet, now: start + 60).isEmpty)
    }

    @Test func manyDocumentsAreNamedFiveAndCounted() {
        var state: [String: Incident] = [:]
        let paths = (1...40).map { "Scans/doc \($0).yianazip" }
        let message = rules.messages(for: damaged(paths), state: &state, now: start)[0]
        #expect(message.title == "Yiana: 40 documents damaged on arrival")
        #expect(message.body.components(separatedBy: "\n- Scans/").count == 5 && message.body.contains("- and 35 more"))
    }
}

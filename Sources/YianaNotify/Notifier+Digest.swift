import Foundation
import YianaLibrary

extension Notifier {
    /// The period the digest is due for at `now`, or nil: none is due (the schedule's next time
    /// after the last digest has not come), or digests are off. The first call only starts the
    /// count: the first digest tells of what happened from then on. A box that was off over
    /// several due times sends one digest for the whole time.
    public func digestDue(_ schedule: DigestSchedule, now: Date = Date()) -> DateInterval? {
        guard schedule.period != .off else { return nil }
        // Read only: written once, when the count starts (this runs after every pass).
        var through = stateFile.load()?.digestThrough
        if through == nil {
            _ = try? stateFile.update(initial: NotifyState()) { state in
                if state.digestThrough == nil { state.digestThrough = now }
                through = state.digestThrough
            }
        }
        guard let through, let due = schedule.next(after: through), due <= now, through < now else { return nil }
        return DateInterval(start: through, end: now)
    }

    /// Queues the digest of `content` (which ``digestDue(_:now:)`` asked for) to every URL, and
    /// counts its period as told.
    public func queueDigest(_ content: DigestContent, now: Date = Date()) {
        let message = DigestWriter(rules: rules).message(content, now: now)
        _ = try? stateFile.update(initial: NotifyState()) { state in
            state.waiting.append(Waiting(message: message, targets: targets.map { Attempt(key: $0.key, shown: $0.shown, next: now) }))
            state.digestThrough = content.to
            remember(state)
        }
    }

    /// The digest of `content` for the library at `library`, as it is sent (`yiana notify digest`).
    public static func digestMessage(_ content: DigestContent, library: Library, publicURL: String? = nil, now: Date = Date()) -> NotifyMessage {
        DigestWriter(rules: IncidentRules(library: library, publicURL: publicURL)).message(content, now: now)
    }
}

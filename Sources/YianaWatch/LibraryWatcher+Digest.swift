import Foundation
import YianaLibrary
import YianaNotify

extension LibraryWatcher {
    /// Queues the digest when its time has come (`--digest`): checked after each pass and
    /// every minute between passes.
    func digestIfDue(now: Date = Date()) {
        guard let notifier = options.notifier, let schedule = options.digest,
              let period = notifier.digestDue(schedule, now: now) else { return }
        notifier.queueDigest(Self.digestContent(library: library, log: log, period: period, standing: notifier.standing), now: now)
    }

    /// What a digest of `period` tells, from the watcher's event log, the keeper's journal
    /// and the problems standing.
    public static func digestContent(library: Library, log: EventLog, period: DateInterval, standing: [Observation]) -> DigestContent {
        var content = DigestContent(from: period.start, to: period.end)
        var arrived = Set<String>(), removed = Set<String>()
        for event in log.events(from: period.start, to: period.end) {
            guard let path = event.path else { continue }
            switch event.kind {
            case .indexed: if arrived.insert(path).inserted { content.arrived.append(path) }
            case .removed: if removed.insert(path).inserted { content.removed.append(path) }
            case .ocr: content.recognised += 1
            default: break
            }
        }
        let days = TimeInterval(KeeperRetention().deletedDays) * 86_400
        content.lost = Keeper(library: library).lost(since: period.start).filter { $0.goneAt < period.end }.map { lost in
            DigestContent.Lost(path: lost.path, overwritten: lost.how == .overwritten, goneAt: lost.goneAt,
                               restorableUntil: lost.goneAt.addingTimeInterval(days))
        }
        content.standing = standing
        return content
    }
}

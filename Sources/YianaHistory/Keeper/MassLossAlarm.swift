import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// Raised when a large share of the library disappears or turns to bytes that are not
/// documents within a short time: a wiped device's deletions arriving, ransomware rewriting
/// files. It stays raised (in `yiana status`, its exit code, the health page and the
/// watcher's log) until the documents are back (`yiana versions restore --deleted --since
/// TIME`) or a person dismisses it (`yiana versions dismiss-alarm`).
public struct MassLossAlarm: Codable, Sendable, Equatable {
    public let raisedAt: Date
    /// The first loss in the window.
    public let since: Date
    /// Documents lost in the window.
    public let lost: Int
    /// Documents the library held before.
    public let documents: Int
    /// The lost documents' paths (the first 20).
    public let paths: [String]

    /// What a person reads.
    public var message: String {
        "MASS LOSS: \(lost) of \(documents) documents were deleted or overwritten since \(LocalTime(since).text); "
            + "every state seen here is kept: `yiana versions list --deleted` lists them, "
            + "`yiana versions restore --deleted --since '\(LocalTime(since.addingTimeInterval(-1)).text)' --dry-run` shows what one command brings back."
    }
}

/// When the alarm is raised: more than `share` of the documents, and at least `minimum`,
/// lost within `window` seconds. `$YIANA_ALARM_SHARE` (0…1) and `$YIANA_ALARM_MINIMUM` change
/// the defaults (a tenth, 5 documents, an hour).
public struct MassLossRule: Sendable, Equatable {
    public var share = 0.1
    public var minimum = 5
    public var window: TimeInterval = 3600

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let share = environment["YIANA_ALARM_SHARE"].flatMap(Double.init), (0...1).contains(share) { self.share = share }
        if let minimum = environment["YIANA_ALARM_MINIMUM"].flatMap(Int.init), minimum >= 1 { self.minimum = minimum }
    }
}

extension Keeper {
    var alarmFile: StateFile<MassLossAlarm> { StateFile(url: place.folder.appendingPathComponent("alarm.json")) }

    /// The raised alarm, if any.
    public func alarm() -> MassLossAlarm? {
        alarmFile.load()
    }

    /// Lowers the alarm (a person looked and the loss was meant).
    /// - Returns: the alarm that was raised.
    @discardableResult
    public func dismissAlarm() -> MassLossAlarm? {
        let alarm = alarmFile.load()
        Sys.removeIfPresent(alarmFile.url.path)
        return alarm
    }

    /// Raises the alarm when this look's losses pass the rule, lowers it when every document it
    /// named is back; returns the alarm raised now or still raised.
    func updateAlarm(_ catalog: KeeperCatalog, rule: MassLossRule = MassLossRule(), now: Date) -> MassLossAlarm? {
        let holding = catalog.holding
        let lost = catalog.losses(since: now.addingTimeInterval(-rule.window), first: 20)
        let existing = alarm()
        let documents = holding + lost.count
        if lost.count >= rule.minimum, Double(lost.count) > rule.share * Double(documents), let first = lost.earliest.first {
            guard existing == nil || existing!.lost < lost.count else { return existing }
            let alarm = MassLossAlarm(raisedAt: existing?.raisedAt ?? now, since: min(existing?.since ?? .distantFuture, first.at),
                                      lost: lost.count, documents: documents, paths: lost.earliest.map(\.path))
            _ = try? alarmFile.update(initial: alarm) { $0 = alarm }
            return alarm
        }
        guard let existing else { return nil }
        // Lowered once every document it named is a document again.
        let back = existing.paths.allSatisfy { path in
            if case .document? = catalog.record(of: path)?.state { return true }
            return catalog.heldElsewhere(lastStateOf: path)
        }
        if back { Sys.removeIfPresent(alarmFile.url.path) }
        return back ? nil : existing
    }
}

import Foundation

/// When the digest is sent: every day, or every Monday, at a set local time.
public struct DigestSchedule: Sendable, Equatable {
    public enum Period: String, CaseIterable, Sendable {
        case daily, weekly, off
    }

    public let period: Period
    /// Minutes after local midnight.
    public let minute: Int
    /// The calendar given, or nil for this machine's (made only when a digest falls due: a
    /// calendar loads ICU's data, megabytes a watcher without a digest would hold for nothing).
    private let given: Calendar?
    public var calendar: Calendar { given ?? .current }

    /// - Parameter at: `HH:MM`, local time.
    /// - Parameter calendar: this machine's when nil.
    /// - Throws: ``NotifyError/badDigest(_:)`` for a time that is not one.
    public init(_ period: Period, at: String = "08:00", calendar: Calendar? = nil) throws {
        let parts = at.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let hour = Int(parts[0]), let minute = Int(parts[1]), parts[1].count == 2,
              (0..<24).contains(hour), (0..<60).contains(minute) else {
            throw NotifyError.badDigest("--digest-at \(at): give a local time as HH:MM, e.g. 08:00 or 18:30")
        }
        self.period = period
        self.minute = hour * 60 + minute
        given = calendar
    }

    /// The first time the digest is due strictly after `date` (nil when off).
    public func next(after date: Date) -> Date? {
        guard period != .off else { return nil }
        var components = DateComponents()
        components.hour = minute / 60
        components.minute = minute % 60
        components.second = 0
        if period == .weekly { components.weekday = 2 }  // Monday
        return calendar.nextDate(after: date, matching: components, matchingPolicy: .nextTime)
    }
}

/// What a digest tells: what arrived or changed over its period, what was lost (and until
/// when it can be brought back), and what waits for a person now.
public struct DigestContent: Sendable, Equatable {
    public struct Lost: Sendable, Equatable {
        public let path: String
        /// Deleted, or overwritten by bytes that are not a document.
        public let overwritten: Bool
        public let goneAt: Date
        /// Until when its states are kept at least.
        public let restorableUntil: Date

        public init(path: String, overwritten: Bool, goneAt: Date, restorableUntil: Date) {
            self.path = path
            self.overwritten = overwritten
            self.goneAt = goneAt
            self.restorableUntil = restorableUntil
        }
    }

    public var from: Date
    public var to: Date
    /// Documents indexed over the period: arrived from another device, or changed here.
    public var arrived: [String] = []
    /// Documents that left the index over the period (deleted, or moved out).
    public var removed: [String] = []
    /// Documents lost over the period whose states the keeper holds.
    public var lost: [Lost] = []
    /// Problems standing now.
    public var standing: [Observation] = []
    /// OCR passes over the period.
    public var recognised = 0

    public init(from: Date, to: Date) {
        self.from = from
        self.to = to
    }
}

/// Writes the digest as one plain-text message (an email's body as it is), commands included.
struct DigestWriter {
    let rules: IncidentRules
    /// The names listed under each heading; the rest are counted.
    static let listed = 10

    func message(_ content: DigestContent, now: Date) -> NotifyMessage {
        let length = Int((content.to.timeIntervalSince(content.from) / 86_400).rounded())
        let days = length <= 1 ? "day" : length == 7 ? "week" : "\(length) days"
        var lines = ["Since \(Self.format(content.from)):"]
        lines += section("Arrived or changed", content.arrived)
        let lostPaths = Set(content.lost.map(\.path))
        lines += section("Deleted or overwritten, kept here", content.lost.map { lost in
            "\(lost.path) (\(lost.overwritten ? "overwritten" : "deleted") \(Self.format(lost.goneAt)); restorable until \(Self.day(lost.restorableUntil)))"
        })
        if !content.lost.isEmpty {
            lines.append("  Bring one back: yiana versions restore DOCUMENT VERSION \(rules.libraryOption); "
                         + "all since a time: yiana versions restore --deleted --since 'YYYY-MM-DD HH:MM' \(rules.libraryOption)")
        }
        lines += section("Gone from the index", content.removed.filter { !lostPaths.contains($0) })
        if content.recognised > 0 { lines.append("OCR recognised \(content.recognised) document\(content.recognised == 1 ? "" : "s").") }
        let needs = content.standing
        if needs.isEmpty {
            lines += ["", "Nothing waits for you."]
        } else {
            lines += ["", "Waiting for you:"]
            for kind in IncidentKind.allCases {
                let present = needs.filter { $0.kind == kind }
                guard !present.isEmpty else { continue }
                lines.append("- \(kind.heading(present.count)): \(kind.whatToDo(root: rules.root))")
                if kind != .massLoss, kind != .index, kind != .keeperFull {
                    lines += present.prefix(Self.listed).map { "    \($0.path)" }
                    if present.count > Self.listed { lines.append("    and \(present.count - Self.listed) more") }
                }
            }
        }
        if let publicURL = rules.publicURL { lines += ["", "Open: \(IncidentRules.join(publicURL, "health"))"] }
        lines.append("Library: \(rules.root)")
        let quiet = content.arrived.isEmpty && content.lost.isEmpty && content.removed.isEmpty && needs.isEmpty
        let summary = quiet ? "all quiet" : [
            content.arrived.isEmpty ? nil : "\(content.arrived.count) arrived or changed",
            content.lost.isEmpty ? nil : "\(content.lost.count) deleted or overwritten",
            needs.isEmpty ? nil : "\(needs.count) waiting for you",
        ].compactMap { $0 }.joined(separator: ", ")
        return NotifyMessage(incident: "digest", level: needs.isEmpty ? .info : .warning,
                             title: "\(rules.libraryName): the \(days) in brief: \(summary)", body: lines.joined(separator: "\n"), created: now)
    }

    private func section(_ heading: String, _ items: [String]) -> [String] {
        guard !items.isEmpty else { return [] }
        var lines = ["", "\(heading) (\(items.count)):"]
        lines += items.prefix(Self.listed).map { "- \($0)" }
        if items.count > Self.listed { lines.append("- and \(items.count - Self.listed) more") }
        return lines
    }

    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func day(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: date)
    }
}

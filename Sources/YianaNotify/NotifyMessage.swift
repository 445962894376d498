import Foundation

/// One message to the library's person, to every configured URL.
public struct NotifyMessage: Codable, Sendable, Equatable {
    /// Apprise's notification types (a service shows a failure in red, a success in green).
    public enum Level: String, Codable, Sendable {
        case info, success, warning, failure
    }

    public let id: String
    /// The incident it tells of (``IncidentKind``'s raw value), or `test`, `digest`.
    public let incident: String
    public let level: Level
    public let title: String
    public let body: String
    public let created: Date

    public init(incident: String, level: Level, title: String, body: String, created: Date = Date()) {
        id = UUID().uuidString
        self.incident = incident
        self.level = level
        self.title = title
        self.body = body
        self.created = created
    }
}

/// What the notifier keeps in the library's local state (`notify.json`, never in the synced
/// folder): the messages still to deliver, the last ones sent, and each incident as last told,
/// so that a restart repeats nothing.
struct NotifyState: Codable, Sendable, Equatable {
    var waiting: [Waiting] = []
    var sent: [Sent] = []
    var incidents: [String: Incident] = [:]
    var heartbeat: HeartbeatRecord?
    /// The end of the period the last digest told of (or when digests began to be counted).
    var digestThrough: Date?
    /// What the watcher last observed (for `yiana notify digest`).
    var observed: [Observation]?

    /// The number of sent messages remembered.
    static let sentKept = 20
}

/// A message not yet delivered to every URL.
struct Waiting: Codable, Sendable, Equatable {
    var message: NotifyMessage
    var targets: [Attempt]
}

/// Delivery of one message to one URL: the URL known by its key (a hash, never the URL
/// itself, which may hold a secret) and as apprise shows it.
struct Attempt: Codable, Sendable, Equatable {
    let key: String
    let shown: String
    var tries = 0
    var next: Date
    var lastError: String?

    /// Seconds before try `n + 1` after `n` failed: 30 s, doubling, at most an hour.
    static func backOff(after tries: Int) -> TimeInterval {
        min(3600, 30 * pow(2, Double(max(0, tries - 1))))
    }
}

/// A message delivered (or given up for a URL no longer configured).
public struct Sent: Codable, Sendable, Equatable {
    public let title: String
    public let incident: String
    public let at: Date
    /// The URLs it reached, as apprise shows them.
    public let to: [String]
    /// The URLs it could not reach, and why.
    public let notDelivered: [String: String]
}

/// One incident of a kind, as last told.
struct Incident: Codable, Sendable, Equatable {
    /// Told, and not yet told resolved.
    var open = false
    /// When it was last told.
    var told: Date?
    /// What was told (documents' paths; `.` for the library).
    var toldPaths: Set<String> = []
    /// When each present problem was first seen.
    var firstSeen: [String: Date] = [:]
}

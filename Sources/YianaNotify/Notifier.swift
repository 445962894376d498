import Crypto
import Foundation
import YianaLibrary
import YianaSystem

/// A URL messages go to, checked by apprise at start.
public struct NotifyTarget: Sendable, Equatable {
    public let url: String
    /// As apprise shows it, its secrets hidden: what is printed, logged and kept.
    public let shown: String
    /// Names it in the library's local state without its secrets (a hash of the URL).
    public let key: String

    /// Checks `url` with apprise's dry run.
    /// - Throws: ``NotifyError/badURL(_:reason:)``.
    public init(_ url: String, apprise: Apprise) throws {
        self.url = url.trimmingCharacters(in: .whitespaces)
        shown = try apprise.check(self.url)
        key = SHA256.hash(data: Data(self.url.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The URLs of `--notify` options, then those of `$YIANA_NOTIFY` (separated by spaces).
    public static func urls(options: [String], environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var seen = Set<String>()
        let fromEnvironment = (environment["YIANA_NOTIFY"] ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
        return (options + fromEnvironment).filter { seen.insert($0).inserted }
    }
}

/// Tells a library's person what the watcher sees, through apprise: each incident once (a
/// restart repeats nothing: what was told is kept in the library's local state), and never
/// loses a message: one that cannot be delivered waits in the same state, and is tried again
/// with a back-off (30 s, doubling, at most an hour) until it is, however long that takes.
/// Sending never blocks the caller's pass: ``deliver(now:)`` runs where the caller puts it.
public final class Notifier: @unchecked Sendable {
    // @unchecked: `observations` is touched only under `lock`, deliveries run one at a time
    // under `deliveries`; the state file has a lock of its own.
    public let targets: [NotifyTarget]
    let apprise: Apprise
    let rules: IncidentRules
    let stateFile: StateFile<NotifyState>
    private let lock = NSLock()
    private var observations: [Observation]?
    /// When the earliest waiting message is to be tried (nil: none, or a delivery runs).
    private var nextTry: Date?
    private let deliveries = NSLock()

    public init(library: Library, targets: [NotifyTarget], apprise: Apprise, publicURL: String? = nil,
                environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.targets = targets
        self.apprise = apprise
        rules = IncidentRules(library: library, publicURL: publicURL)
        stateFile = Self.stateFile(for: library, environment: environment)
    }

    static func stateFile(for library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) -> StateFile<NotifyState> {
        LocalState(library: library, environment: environment).stateFile("notify.json")
    }

    /// What the watcher sees after a pass: new incidents become messages (queued, not sent).
    /// `keeping`: a pass that could not look at everything: of the kinds not in `observed`,
    /// what was observed before stands (none is told resolved for not being seen).
    public func observe(_ observed: [Observation], keeping: Bool = false, now: Date = Date()) {
        lock.withLock {
            guard keeping else { return observations = observed }
            let kinds = Set(observed.map(\.kind))
            observations = (observations ?? []).filter { !kinds.contains($0.kind) } + observed
        }
        evaluate(now: now)
    }

    /// What was last observed (for the digest's "waiting for you").
    public var standing: [Observation] { lock.withLock { observations ?? [] } }

    /// Incidents told when their time comes (a conflict copy an hour old; more of the same
    /// once the hour since the last message is over), from what was last observed.
    public func evaluate(now: Date = Date()) {
        guard let observed = lock.withLock({ observations }) else { return }
        _ = try? stateFile.update(initial: NotifyState()) { state in
            state.observed = observed
            for message in rules.messages(for: observed, state: &state.incidents, now: now) {
                state.waiting.append(Waiting(message: message, targets: targets.map { Attempt(key: $0.key, shown: $0.shown, next: now) }))
            }
            remember(state)
        }
    }

    /// Notes when the earliest waiting message is due.
    func remember(_ state: NotifyState) {
        let next = state.waiting.flatMap(\.targets).map(\.next).min()
        lock.withLock { nextTry = next }
    }

    /// True when a waiting message is due at `now` (a try after its back-off): the caller then
    /// delivers. Claimed once: false again until the delivery has run.
    public func claimDue(now: Date = Date()) -> Bool {
        lock.withLock {
            guard let next = nextTry, next <= now else { return false }
            nextTry = nil
            return true
        }
    }

    /// When the earliest waiting message is due, for the watcher's wait.
    public var nextDue: Date? { lock.withLock { nextTry } }

    /// Delivers what is due (every waiting message whose next try has come), one delivery
    /// at a time, outside the state's lock; returns how many deliveries failed. While
    /// another call delivers, it waits for that one to end (`ifIdle`: returns at once).
    @discardableResult
    public func deliver(now: Date = Date(), ifIdle: Bool = false) -> Int {
        if ifIdle {
            guard deliveries.try() else { return 0 }
        } else {
            deliveries.lock()
        }
        defer { deliveries.unlock() }
        let due = (stateFile.load() ?? NotifyState()).waiting.flatMap { waiting in
            waiting.targets.filter { $0.next <= now }.map { (waiting.message, $0.key) }
        }
        var outcomes: [String: [String: Delivery]] = [:]  // message id → target key → outcome
        for (message, key) in due {
            guard let target = targets.first(where: { $0.key == key }) else { continue }
            outcomes[message.id, default: [:]][key] = apprise.send(message, to: target.url)
        }
        var failures = 0
        _ = try? stateFile.update(initial: NotifyState()) { state in
            failures = record(outcomes, in: &state, now: now)
            remember(state)
        }
        return failures
    }

    /// ``deliver(now:ifIdle:)`` on a thread of its own, so that a task waiting for it does not
    /// hold a thread of Swift's pool while apprise runs.
    @discardableResult
    public func deliverOffPool(now: Date = Date()) async -> Int {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: self.deliver(now: now)) }
        }
    }

    /// Waits for a delivery under way to end (off Swift's pool), so that a watcher that stops
    /// does not cut one between apprise's answer and its record: a restart would send that
    /// message again. At most apprise's time limit for each URL.
    public func waitForDelivery() async {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                self.deliveries.withLock {}
                continuation.resume()
            }
        }
    }

    /// Applies what the deliveries came to; moves a message delivered everywhere (or whose
    /// remaining URLs are no longer configured) to the sent ones. Returns the failures.
    private func record(_ outcomes: [String: [String: Delivery]], in state: inout NotifyState, now: Date) -> Int {
        var failures = 0
        var still: [Waiting] = []
        for var waiting in state.waiting {
            var reached: [String] = []
            var notDelivered: [String: String] = [:]
            waiting.targets = waiting.targets.compactMap { attempt in
                var attempt = attempt
                guard targets.contains(where: { $0.key == attempt.key }) else {
                    notDelivered[attempt.shown] = "no longer configured (after \(attempt.tries) tries: \(attempt.lastError ?? "not tried"))"
                    return nil
                }
                switch outcomes[waiting.message.id]?[attempt.key] {
                case .delivered?:
                    reached.append(attempt.shown)
                    return nil
                case .failed(let reason)?:
                    failures += 1
                    attempt.tries += 1
                    attempt.lastError = reason
                    attempt.next = now.addingTimeInterval(Attempt.backOff(after: attempt.tries))
                    return attempt
                case nil:
                    return attempt
                }
            }
            if !reached.isEmpty || !notDelivered.isEmpty {
                state.sent.append(Sent(title: waiting.message.title, incident: waiting.message.incident, at: now, to: reached, notDelivered: notDelivered))
            }
            if !waiting.targets.isEmpty { still.append(waiting) }
        }
        state.waiting = still
        state.sent = Array(state.sent.suffix(NotifyState.sentKept))
        return failures
    }

    /// What the watcher of `library` last observed (problems standing then).
    public static func lastObserved(in library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) -> [Observation] {
        stateFile(for: library, environment: environment).load()?.observed ?? []
    }

    /// What `yiana status` and the health page say of notifications.
    public static func status(of library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) -> NotifyStatus {
        let state = stateFile(for: library, environment: environment).load() ?? NotifyState()
        return NotifyStatus(lastSent: state.sent.last, waiting: state.waiting.flatMap { waiting in
            waiting.targets.map { NotifyStatus.Waiting(title: waiting.message.title, to: $0.shown, tries: $0.tries, next: $0.next, lastError: $0.lastError) }
        }, heartbeat: state.heartbeat)
    }
}

/// Notifications as the library's state has them.
public struct NotifyStatus: Codable, Sendable, Equatable {
    public struct Waiting: Codable, Sendable, Equatable {
        public let title: String
        public let to: String
        public let tries: Int
        public let next: Date
        public let lastError: String?
    }

    public let lastSent: Sent?
    public let waiting: [Waiting]
    /// The last heartbeat (`--heartbeat`).
    public let heartbeat: HeartbeatRecord?

    /// Nothing sent, waiting or beaten yet.
    public var isEmpty: Bool { lastSent == nil && waiting.isEmpty && heartbeat == nil }
}

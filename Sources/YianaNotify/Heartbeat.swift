import Foundation
import YianaLibrary
import YianaSystem

/// A dead man's switch for a monitor that is not on this box (healthchecks.io, Uptime Kuma's
/// push monitors): an address requested every few minutes while the watcher is healthy, and
/// its failing form while the mass-loss alarm or an error stands. A dead box, a dead watcher
/// or a full disk is then noticed because the requests stop.
public final class Heartbeat: @unchecked Sendable {
    // @unchecked: `last` and `sending` are touched only under `lock`.
    public let url: URL
    /// Seconds between two requests.
    public let every: TimeInterval
    /// The address without what may be its secret (a check's id in its path or query).
    public let shown: String
    let stateFile: StateFile<NotifyState>
    private let lock = NSLock()
    private var last: Date?
    private var sending = false

    /// - Throws: ``NotifyError/badURL(_:reason:)`` for an address that is not http(s).
    public init(_ text: String, every: TimeInterval, library: Library,
                environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), !(url.host ?? "").isEmpty else {
            throw NotifyError.badURL(Apprise.sketch(text), reason: "a heartbeat is an http:// or https:// address (a healthchecks.io check, an Uptime Kuma push monitor)")
        }
        self.url = url
        self.every = every
        shown = Apprise.sketch(text)
        stateFile = Notifier.stateFile(for: library, environment: environment)
    }

    /// The address for a healthy or failing box: where the address says `status=up` (Uptime
    /// Kuma), `status=down`; else `/fail` after its path (healthchecks.io).
    public func address(failing: Bool) -> URL {
        guard failing else { return url }
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        if let items = parts.queryItems, items.contains(where: { $0.name == "status" && $0.value == "up" }) {
            parts.queryItems = items.map { $0.name == "status" ? URLQueryItem(name: "status", value: "down") : $0 }
        } else {
            parts.path = (parts.path.hasSuffix("/") ? String(parts.path.dropLast()) : parts.path) + "/fail"
        }
        return parts.url ?? url
    }

    /// When the next request is due (while one is under way, a second from now at the
    /// soonest: a caller that waits until then does not spin).
    public var nextDue: Date {
        lock.withLock {
            let due = last.map { $0.addingTimeInterval(every) } ?? .distantPast
            return sending ? max(due, Date().addingTimeInterval(1)) : due
        }
    }

    /// Requests the address (its failing form when `failing`) if one is due, beside the
    /// caller: a request still under way (a slow network) is not doubled.
    public func beatIfDue(failing: Bool, now: Date = Date()) {
        guard start(now: now, due: true) else { return }
        Task.detached { [self] in await request(failing: failing, now: now) }
    }

    /// Requests the address now and waits for the answer (`watch --once`, `notify test`).
    /// Returns what went wrong, or nil.
    @discardableResult
    public func beat(failing: Bool, now: Date = Date()) async -> String? {
        guard start(now: now, due: false) else { return "a request is already under way" }
        return await request(failing: failing, now: now)
    }

    private func start(now: Date, due: Bool) -> Bool {
        lock.withLock {
            guard !sending, !due || last.map({ now.timeIntervalSince($0) >= every }) ?? true else { return false }
            sending = true
            last = now
            return true
        }
    }

    /// One request; what it came to is kept for `yiana status`.
    @discardableResult
    private func request(failing: Bool, now: Date) async -> String? {
        var problem: String?
        do {
            let status = try await Ping.get(address(failing: failing), userAgent: "yiana")
            if !(200..<300).contains(status) { problem = "answered \(status)" }
        } catch {
            problem = "\(error)"
        }
        let beat = HeartbeatRecord(at: now, to: shown, failing: failing, error: problem)
        _ = try? stateFile.update(initial: NotifyState()) { $0.heartbeat = beat }
        lock.withLock { sending = false }
        return problem
    }
}

/// The last heartbeat: when, to where (shown), healthy or failing, and what went wrong.
public struct HeartbeatRecord: Codable, Sendable, Equatable {
    public let at: Date
    public let to: String
    public let failing: Bool
    public let error: String?
}

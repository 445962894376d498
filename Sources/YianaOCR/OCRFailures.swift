import Foundation
import YianaLibrary

/// Documents OCR failed on, kept in this machine's state for the library (never in the
/// synced folder): each waits before the next try as the app's service waits, 5 minutes
/// after the first failure, 15 after the second, an hour after the third and 6 hours after
/// any later one. `yiana status` and `yiana index --problems` list them.
public struct OCRFailures: Sendable {
    public struct Failure: Codable, Sendable, Equatable {
        public var count: Int
        public var lastAttempt: Date
        public var code: String
        public var reason: String

        /// When the document may be tried again.
        public var retryAfter: Date { lastAttempt.addingTimeInterval(OCRFailures.backoff(afterFailures: count)) }
    }

    private let file: StateFile<[String: Failure]>

    public init(library: Library) {
        file = LocalState(library: library).stateFile("ocr-failures.json")
    }

    /// The service's back-off (`DocumentWatcher.shouldBackOff` in lh/Yiana), in seconds.
    public static func backoff(afterFailures count: Int) -> TimeInterval {
        switch count {
        case ...0: 0
        case 1: 5 * 60
        case 2: 15 * 60
        case 3: 60 * 60
        default: 6 * 60 * 60
        }
    }

    /// Every document that failed, by library-relative path.
    public func all() -> [String: Failure] { file.load() ?? [:] }

    /// The failure holding `path` back at `now`, or nil when it may be tried.
    public func backingOff(_ path: String, now: Date = Date()) -> (until: Date, code: String, reason: String)? {
        guard let failure = all()[path], failure.retryAfter > now else { return nil }
        return (failure.retryAfter, failure.code, failure.reason)
    }

    /// Records a failure; returns when the document may be tried again (nil if the state
    /// cannot be written: it is then simply tried on the next run).
    @discardableResult
    public func record(_ path: String, code: String, reason: String, now: Date = Date()) -> Date? {
        let value = try? file.update(initial: [:]) { failures in
            let count = (failures[path]?.count ?? 0) + 1
            failures[path] = Failure(count: count, lastAttempt: now, code: code, reason: reason)
        }
        return value?[path]?.retryAfter
    }

    public func clear(_ path: String) {
        guard all()[path] != nil else { return }
        _ = try? file.update(initial: [:]) { $0[path] = nil }
    }
}

import Foundation
import YianaSystem
import YianaArchive

/// Documents a sync program may still be writing. rclone, for one, writes a document in
/// place under its real name over seconds; until it is done the file looks damaged. A
/// document whose file changed within the last few seconds, or beside which a sync
/// program's temporary file for it stands, is "still arriving": `verify` and `index` say so
/// instead of calling it damaged, and `repair` and `conflicts resolve` leave it for a later
/// run (`--now` overrides). A file this machine's `yiana` wrote, untouched since
/// (``OwnWrites``), is never arriving.
public struct Arrival: Sendable {
    /// How long a file must have been left alone to count as arrived: `$YIANA_SETTLE_SECONDS`,
    /// else 5 seconds.
    public static var defaultWindow: Double {
        ProcessInfo.processInfo.environment["YIANA_SETTLE_SECONDS"].flatMap(Double.init).map { max(0, $0) } ?? 5
    }

    let shadowed: Set<String>
    let now: Date
    let window: Double

    /// - Parameters:
    ///   - scan: the library scan (its sync programs' temporary files).
    ///   - window: seconds; 0 treats every file as arrived (`--now`).
    public init(scan: LibraryScan, now: Date = Date(), window: Double = Arrival.defaultWindow) {
        shadowed = window > 0 ? scan.shadowed : []
        self.now = now
        self.window = window
    }

    /// Why a file may still be arriving.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// A sync program's temporary file for it is beside it: a newer version is coming.
        case shadowed
        /// It changed this many seconds ago (only a sign when it does not read whole).
        case changed(Double)

        public var description: String {
            switch self {
            case .shadowed: "a sync program's temporary file for it is beside it"
            case .changed(let age): "it changed \(String(format: "%.1f", age)) s ago"
            }
        }
    }

    /// Why the file at `url` may still be arriving, or nil when it has settled.
    public func stillArriving(_ url: URL) -> Reason? {
        stillArriving(file: url.path)
    }

    /// ``stillArriving(_:)`` of the file at `path` (absolute).
    public func stillArriving(file path: String) -> Reason? {
        guard window > 0 else { return nil }
        if shadowed.contains(path) { return .shadowed }
        guard let st = try? Sys.lstat(path) else { return nil }
        let changed = max(st.modifiedSeconds, st.changedSeconds)
        let age = now.timeIntervalSince1970 - changed
        // What this machine's own writer put there, untouched since, is not arriving.
        return age < window && !OwnWrites.wrote(path) ? .changed(max(0, age)) : nil
    }

    /// Why a file that reads `whole` (or not) is still arriving: one that does not read
    /// whole and changed just now, or any beside which a sync program's temporary file stands.
    public func stillArriving(_ url: URL, whole: Bool) -> Reason? {
        stillArriving(file: url.path, whole: whole)
    }

    /// ``stillArriving(_:whole:)`` of the file at `path` (absolute).
    public func stillArriving(file path: String, whole: Bool) -> Reason? {
        // A whole file is arriving only when shadowed: no need to look at its times.
        if whole { return window > 0 && shadowed.contains(path) ? .shadowed : nil }
        guard let reason = stillArriving(file: path) else { return nil }
        return !whole || reason == .shadowed ? reason : nil
    }

    /// The notice `verify` gives such a file: not damage, not yet.
    public static func notice(_ path: String, _ why: Reason) -> VerifyProblem {
        var notice = VerifyProblem(code: .stillArriving,
                                   message: "\(path): still arriving (\(why)); it is checked again on a later run, or now with --now.")
        notice.isNotice = true
        return notice
    }
}

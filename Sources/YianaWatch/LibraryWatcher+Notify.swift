import Foundation
import YianaArchive
import YianaLibrary
import YianaNotify
import YianaOCR
import YianaSearch
import YianaSync

extension LibraryWatcher {
    /// Failures of one document's OCR after which the person is told it keeps failing.
    static let failuresTold = 3

    /// Hands what this pass found to the notifier (`--notify`), which tells each incident
    /// once, and starts delivering what is due beside the watcher: a pass never waits on a
    /// message service.
    func tellNotifier(_ problems: [Problem]) {
        guard let notifier = options.notifier else { return }
        var observed: [Observation] = problems.compactMap { problem in
            switch problem.code {
            case "mass-loss":
                Observation(kind: .massLoss, path: ".", detail: problem.detail + (alarm.map { "\nFrom: " + Self.folders($0.paths) } ?? ""))
            case IndexStatus.damaged.rawValue:
                Observation(kind: .damaged, path: problem.path, detail: problem.detail)
            case IndexStatus.failed.rawValue:
                // Text extraction failed (the index tries a failed document again at every run).
                Observation(kind: .failing, path: problem.path, detail: "text extraction failed: \(problem.detail)")
            case ConflictReport.Role.conflictCopy.rawValue:
                Observation(kind: .conflicts, path: problem.path, detail: problem.detail)
            default:
                nil
            }
        }
        if options.ocr != nil {
            observed += OCRFailures(library: library).all().filter { $0.value.count >= Self.failuresTold }.sorted { $0.key < $1.key }.map { path, failure in
                Observation(kind: .failing, path: path, detail: "OCR failed \(failure.count) times: \(failure.reason)")
            }
        }
        if Keeper.isEnabled(), let usage = Keeper(library: library).usage(), usage.isNearlyFull {
            observed.append(Observation(kind: .keeperFull, path: ".", detail: Self.describe(usage)))
        }
        notifier.observe(observed)
        digestIfDue()
        deliverInBackground()
    }

    /// A pass that failed: what was last observed stands (nothing is told resolved for not
    /// being seen), and an index that cannot be used is told.
    func tellNotifier(failed index: IndexUnusable?) {
        guard let notifier = options.notifier else { return }
        let unusable = index.map { Observation(kind: .index, path: ".", detail: $0.description) }
        notifier.observe(unusable.map { [$0] } ?? [], keeping: true)
        deliverInBackground()
    }

    static func describe(_ usage: KeeperUsage) -> String {
        var text = "The keeper takes \(readableByteCount(usage.bytes)) of its budget of \(readableByteCount(usage.budget)) "
            + "(\(Int((usage.share * 100).rounded()))%, at its last prune): past it, the oldest states go first."
        if usage.forcedOut > 0 {
            text += " The budget already forced out the last state of \(usage.forcedOut) recently deleted document\(usage.forcedOut == 1 ? "" : "s")."
        }
        return text
    }

    /// True while the mass-loss alarm stands or the last pass logged an error: the heartbeat
    /// then requests its failing address.
    var failing: Bool {
        alarm != nil || health.lastErrorAt.map { $0 >= (health.lastPass ?? .distantPast) } ?? false
    }

    /// Between passes (every minute): incidents whose time has come, and deliveries due again.
    func notifyTick() {
        guard let notifier = options.notifier else { return }
        notifier.evaluate()
        digestIfDue()
        deliverInBackground()
    }

    /// A message whose back-off has passed is tried again at once, not at the next minute.
    func retryDue() {
        if options.notifier?.claimDue() == true { deliverInBackground() }
    }

    private func deliverInBackground() {
        guard let notifier = options.notifier else { return }
        Thread.detachNewThread { notifier.deliver(ifIdle: true) }
    }

    /// The folders the lost documents were in, the most first: "Letters/ (12), the top (3)".
    static func folders(_ paths: [String]) -> String {
        var counts: [String: Int] = [:]
        for path in paths {
            let folder = (path as NSString).deletingLastPathComponent
            counts[folder.isEmpty ? "the library's top folder" : folder + "/", default: 0] += 1
        }
        return counts.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.prefix(3).map { "\($0.key) (\($0.value))" }.joined(separator: ", ")
            + (paths.count >= 20 ? ", among the first 20" : "")
    }
}

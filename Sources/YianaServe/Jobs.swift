import Foundation
import YianaLibrary

/// The one job at a time a library's pages may start (recognise the scans, extract the
/// people, index, download, repair, put leftover temporary files away): run in the server's
/// process on the same library code as the commands, its progress on `/jobs` and pushed on
/// `/events`, stopped between two documents by Cancel.
final class Jobs: @unchecked Sendable {
    // @unchecked: `status` and `cancelled` are touched only under `lock`.
    enum Kind: String, CaseIterable, Sendable {
        case ocr, retryOCR = "ocr-retry", extract, index, download, repair, removeTemps = "remove-temps"
    }

    /// What a button asked for: a kind of job, on one document or on all it applies to.
    struct Job: Sendable, Equatable {
        var kind: Kind
        /// One document (relative to the library), or nil for every document it applies to.
        var path: String?
        /// Repair: where nothing can be recovered, put back the newest kept version that verifies.
        var fromVersion = false

        var label: String {
            let one = path.map { " \u{201C}\($0)\u{201D}" }
            switch kind {
            case .ocr: return one.map { "Recognising\($0) (OCR)" } ?? "Recognising the scans (OCR)"
            case .retryOCR: return "Recognising again the documents OCR failed on"
            case .extract: return one.map { "Finding the people in\($0)" } ?? "Finding the people in the documents"
            case .index: return "Indexing the library"
            case .download: return one.map { "Downloading\($0)" } ?? "Downloading the evicted documents"
            case .repair: return one.map { "Repairing\($0)" } ?? "Repairing the damaged documents"
            case .removeTemps: return "Putting away the leftover temporary files"
            }
        }

        /// The command that does the same from a terminal.
        var command: String {
            let target = path.map { " " + Shell.quoted($0) }
            switch kind {
            case .ocr: return "yiana ocr" + (target ?? " --all")
            case .retryOCR: return "yiana ocr --all --retry"
            case .extract: return "yiana extract" + (target ?? " --all")
            case .index: return "yiana index"
            case .download: return "yiana download" + (target ?? " --all")
            case .repair: return "yiana repair" + (fromVersion ? " --from-version" : "") + (target ?? "")
            case .removeTemps: return "yiana repair --remove-temps"
            }
        }
    }

    struct Status: Codable, Sendable, Equatable {
        var kind: String
        var label: String
        /// `running`, `done`, `failed` or `cancelled`.
        var state: String
        var done = 0
        var total = 0
        var message = ""
        var command: String
        /// The document it was started for, if one.
        var path: String?
        /// What it did, one line per document (at most ``Jobs/detailLimit``).
        var details: [String] = []
        /// Counts up with every change, so a page can tell the status moved.
        var serial = 0
    }

    /// What a job's work returns.
    struct Outcome: Sendable {
        var state: String
        var message: String
        var details: [String] = []
    }

    static let detailLimit = 200

    private let lock = NSLock()
    private var status: Status?
    private var cancelled = false
    private var serial = 0

    /// What runs now, or ran last.
    var current: Status? { lock.withLock { status } }
    /// True once Cancel was pressed for the job that runs.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Starts `job`; false when a job runs already.
    func start(_ job: Job, _ work: @escaping @Sendable (Jobs) async -> Outcome) -> Bool {
        let started = lock.withLock { () -> Bool in
            if status?.state == "running" { return false }
            serial += 1
            status = Status(kind: job.kind.rawValue, label: job.label, state: "running", command: job.command, path: job.path, serial: serial)
            cancelled = false
            return true
        }
        guard started else { return false }
        Task.detached {
            let outcome = await work(self)
            self.change { status in
                status.state = self.cancelled && outcome.state == "done" ? "cancelled" : outcome.state
                status.message = outcome.message
                status.details = Array(outcome.details.prefix(Self.detailLimit))
            }
        }
        return true
    }

    func progress(_ done: Int, of total: Int) {
        change { status in
            status.done = done
            status.total = total
        }
    }

    /// Asks the running job to stop after the document it is on.
    func cancel() {
        lock.withLock { if status?.state == "running" { cancelled = true } }
    }

    private func change(_ body: (inout Status) -> Void) {
        lock.withLock {
            guard var changed = status else { return }
            body(&changed)
            if changed != status {
                serial += 1
                changed.serial = serial
                status = changed
            }
        }
    }
}

/// Words as a POSIX shell reads them back.
enum Shell {
    static func quoted(_ word: String) -> String {
        let plain = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-_./,:+@%"))
        if !word.isEmpty, word.unicodeScalars.allSatisfy({ $0.isASCII && plain.contains($0) }) { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

import Foundation
import YianaLibrary

/// The one job at a time a library's pages may start (recognise the scans, extract the
/// people, index): run in the server's process on the same library code as the commands, its
/// progress on `/jobs`, stopped between two documents by Cancel.
final class Jobs: @unchecked Sendable {
    enum Kind: String, CaseIterable, Sendable {
        case ocr, extract, index

        var label: String {
            switch self {
            case .ocr: "Recognising the scans (OCR)"
            case .extract: "Finding the people in the documents"
            case .index: "Indexing the library"
            }
        }

        /// The command that does the same from a terminal.
        var command: String {
            switch self {
            case .ocr: "yiana ocr --all"
            case .extract: "yiana extract --all"
            case .index: "yiana index"
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
    }

    private let lock = NSLock()
    private var status: Status?
    private var cancelled = false

    /// What runs now, or ran last.
    var current: Status? { lock.withLock { status } }
    /// True once Cancel was pressed for the job that runs.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// Starts `kind`; false when a job runs already.
    func start(_ kind: Kind, _ work: @escaping @Sendable (Jobs) async -> (state: String, message: String)) -> Bool {
        let started = lock.withLock { () -> Bool in
            if status?.state == "running" { return false }
            status = Status(kind: kind.rawValue, label: kind.label, state: "running", command: kind.command)
            cancelled = false
            return true
        }
        guard started else { return false }
        Task.detached {
            let (state, message) = await work(self)
            self.lock.withLock {
                self.status?.state = self.cancelled && state == "done" ? "cancelled" : state
                self.status?.message = message
            }
        }
        return true
    }

    func progress(_ done: Int, of total: Int) {
        lock.withLock {
            status?.done = done
            status?.total = total
        }
    }

    /// Asks the running job to stop after the document it is on.
    func cancel() {
        lock.withLock { if status?.state == "running" { cancelled = true } }
    }
}

import Foundation
import YianaSystem

/// A one-line progress bar on standard error, drawn only when standard error is a terminal
/// and redrawn at most ten times a second.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`; updates come from task-group completions.
    private let lock = NSLock()
    private let enabled = Sys.isTerminal(Sys.standardError)
    private var lastDraw = Date.distantPast
    private var drawn = false
    private let label: String

    init(label: String) {
        self.label = label
    }

    func update(completed: Int, total: Int, current: String) {
        guard enabled else { return }
        lock.lock()
        defer { lock.unlock() }
        let now = Date()
        guard completed == total || now.timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = now
        let width = 30
        let filled = total == 0 ? width : width * completed / total
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let name = current.count > 40 ? "…" + current.suffix(39) : current
        FileHandle.standardError.write(Data("\r\u{1B}[K\(label) [\(bar)] \(completed)/\(total) \(name)".utf8))
        drawn = true
    }

    /// Clears the bar so that the report starts on a clean line.
    func finish() {
        lock.lock()
        defer { lock.unlock() }
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
        drawn = false
    }
}

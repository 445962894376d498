import Foundation

/// Runs a closure on a thread of its own; `wait()` returns when it has finished and rethrows
/// its error. For two blocking jobs that use different resources at once (a kernel copy and
/// a checksum; an `fsync` and a verification read).
package final class BackgroundWork: @unchecked Sendable {
    // @unchecked: `error` is written by the thread before it signals and read only after
    // `wait()` has seen that signal, so the semaphore orders the two accesses.
    private let done = DispatchSemaphore(value: 0)
    private var error: Error?

    package init(_ work: @escaping @Sendable () throws -> Void) {
        let thread = Thread { [self] in
            do { try work() } catch { self.error = error }
            done.signal()
        }
        thread.stackSize = 512 << 10
        thread.start()
    }

    package func wait() throws {
        done.wait()
        if let error { throw error }
    }
}

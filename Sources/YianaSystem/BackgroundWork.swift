import Foundation

/// Runs a closure on a thread of its own; `wait()` returns its result when it has finished,
/// or rethrows its error. For blocking jobs that use different resources at once (a kernel
/// copy, a checksum and a hash of the same file; an `fsync` and a verification read).
package final class BackgroundWork<Result>: @unchecked Sendable {
    // @unchecked: `outcome` is written by the thread before it signals and read only after
    // `wait()` has seen that signal, so the semaphore orders the two accesses.
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Swift.Result<Result, Error>?

    package init(_ work: @escaping @Sendable () throws -> Result) {
        let thread = Thread { [self] in
            outcome = Swift.Result { try work() }
            done.signal()
        }
        thread.stackSize = 512 << 10
        thread.start()
    }

    /// Waits for the work to end; its result, or the error it threw. Call it once.
    package func wait() throws -> Result {
        done.wait()
        return try outcome!.get()
    }
}

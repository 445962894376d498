#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Foundation

/// SIGINT and SIGTERM turned into a request to stop, for a long-running command: the signals'
/// default action (dying at once) is replaced by a flag and a byte written to a pipe, which the
/// command's wait (`poll`) watches, so it wakes, finishes or abandons its current item safely,
/// and exits. A second signal while stopping ends the process at once, as a person pressing
/// Ctrl-C twice expects.
package final class StopSignals: @unchecked Sendable {
    // @unchecked: `count` is touched only on `queue`; the pipe's descriptors never change.
    /// Readable once a stop was asked for.
    package let fd: Int32
    private let writeEnd: Int32
    private let queue = DispatchQueue(label: "yiana.stop-signals")
    private var sources: [DispatchSourceSignal] = []
    private let requests = ManagedAtomicFlag()

    package init(_ signals: [Int32] = [SIGINT, SIGTERM]) throws(SystemError) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Sys.lastError("pipe", "stop signals") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, O_NONBLOCK)
        }
        fd = ends[0]
        writeEnd = ends[1]
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [weak self] in self?.received(number) }
            source.resume()
            sources.append(source)
        }
    }

    deinit {
        for source in sources { source.cancel() }
        Sys.close(fd)
        Sys.close(writeEnd)
    }

    /// True once SIGINT or SIGTERM arrived.
    package var requested: Bool { requests.isSet }

    private func received(_ number: Int32) {
        if requests.isSet {
            // The second one: stop now, with the signal's own status.
            signal(number, SIG_DFL)
            raise(number)
            return
        }
        requests.set()
        var byte: UInt8 = 1
        _ = Glibc.write(writeEnd, &byte, 1)
    }
}

/// A flag set once, read from any thread.
final class ManagedAtomicFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }
}

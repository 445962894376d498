import Foundation
import NIOCore
import PostgresNIO

/// The connections a ``PostgresDatabase`` shares out: an idle one when there is one, a new one
/// while fewer than `limit` are open, else a short wait for one to come back.
actor ConnectionPool {
    /// Every pool not closed yet: a connection must be closed before it goes (postgres-nio checks),
    /// so a pool whose database was dropped without ``PostgresDatabase/close()`` is kept, not freed
    /// with its connections open; the process's end closes them.
    nonisolated(unsafe) private static var live: [ObjectIdentifier: ConnectionPool] = [:]
    private static let liveLock = NSLock()

    static func keep(_ pool: ConnectionPool) {
        liveLock.withLock { live[ObjectIdentifier(pool)] = pool }
    }

    let configuration: PostgresConnection.Configuration
    let location: PostgresLocation
    let limit: Int
    private var idle: [PostgresConnection] = []
    /// Each open connection and its watch (``ConnectionWatch``), made once when it is opened;
    /// counted in ``open`` until it closes, whatever the work on it does then. (The work on a
    /// connection closed under it may never end: postgres-nio can leave a statement sent as it
    /// closed unanswered; its fix, vapor/postgres-nio#487, was reverted in #501. Its slot is
    /// freed by the close, not by the work; else a pool of one would wait on it for ever, each
    /// later call failing at its timeout.)
    private var connections: [ObjectIdentifier: (connection: PostgresConnection, watch: ConnectionWatch)] = [:]
    private var open = 0
    private var closed = false

    init(configuration: PostgresConnection.Configuration, location: PostgresLocation, limit: Int) {
        self.configuration = configuration
        self.location = location
        self.limit = limit
    }

    func take() async throws -> (connection: PostgresConnection, watch: ConnectionWatch) {
        while true {
            if closed { throw CancellationError() }
            while let connection = idle.popLast() {
                if !connection.isClosed, let watch = connections[ObjectIdentifier(connection)]?.watch { return (connection, watch) }
                forget(connection)
            }
            if open < limit {
                open += 1
                do {
                    // Within connect_timeout, log-in included (a server shutting down can take the
                    // connection and never answer it).
                    let configuration = self.configuration
                    let connection = try await PostgresDatabase.within(location.connectTimeout, location, late: { let _: EventLoopFuture<Void> = $0.close() }) {
                        try await PostgresConnection.connect(configuration: configuration, id: Int.random(in: 1...Int.max), logger: PostgresDatabase.logger)
                    }
                    let watch = ConnectionWatch()
                    connections[ObjectIdentifier(connection)] = (connection, watch)
                    connection.closeFuture.whenComplete { _ in
                        watch.closed()
                        Task { await self.forget(connection) }
                    }
                    return (connection, watch)
                } catch {
                    open -= 1
                    _ = handOver(nil)  // the place this caller took, to the next one waiting
                    throw error
                }
            }
            // All in use: wait for one to be given back (handed over, in the order the callers
            // came), or for one to close (then open another). Cancelled by the caller's timeout.
            if let connection = try await turn(), !connection.isClosed, let watch = connections[ObjectIdentifier(connection)]?.watch {
                return (connection, watch)
            }
        }
    }

    /// Callers waiting for a connection, first come first served (waking them to look again
    /// every half millisecond cost `serve` a third of its time at 32 searches at once).
    private var waiters: [(ticket: Int, continuation: CheckedContinuation<PostgresConnection?, Error>)] = []
    private var tickets = 0

    /// A connection given back for this caller, or nil when one closed (a place to open one).
    private func turn() async throws -> PostgresConnection? {
        tickets += 1
        let ticket = tickets
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiters.append((ticket, continuation))
            }
        } onCancel: {
            Task { await self.leave(ticket) }
        }
    }

    private func leave(_ ticket: Int) {
        guard let index = waiters.firstIndex(where: { $0.ticket == ticket }) else { return }
        waiters.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Gives `connection` (nil: a place freed) to the caller waiting longest; false when none waits.
    private func handOver(_ connection: PostgresConnection?) -> Bool {
        guard !waiters.isEmpty else { return false }
        waiters.removeFirst().continuation.resume(returning: connection)
        return true
    }

    func give(_ connection: PostgresConnection) async {
        if closed, !connection.isClosed { try? await connection.close() }
        if connection.isClosed || closed { forget(connection) } else if !handOver(connection) { idle.append(connection) }
    }

    /// A connection that is closed (or about to be), no longer counted; once, however many
    /// times it is said.
    private func forget(_ connection: PostgresConnection) {
        guard connections.removeValue(forKey: ObjectIdentifier(connection)) != nil else { return }
        open -= 1
        _ = handOver(nil)
    }

    /// A connection whose work failed: kept if the server only refused a statement, else closed.
    func drop(_ connection: PostgresConnection, healthy: Bool) async {
        if healthy, !connection.isClosed {
            if !handOver(connection) { idle.append(connection) }
            return
        }
        forget(connection)
        try? await connection.close()
    }

    func closeAll() async {
        closed = true
        for waiter in waiters { waiter.continuation.resume(throwing: CancellationError()) }
        waiters = []
        let all = idle
        idle = []
        for connection in all {
            forget(connection)
            try? await connection.close()
        }
        Self.liveLock.withLock { Self.live[ObjectIdentifier(self)] = nil }
    }
}

/// The one answer of ``PostgresDatabase/within(_:_:_:)``: the first of the work's result, the
/// timeout and the caller's cancellation; the others are dropped.
final class Outcome<T: Sendable>: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Error>?
    private var early: Result<T, Error>?
    private var finished = false
    private var cleanups: [@Sendable () -> Void] = []

    func start(_ continuation: CheckedContinuation<T, Error>) {
        let answer: Result<T, Error>? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let answer { continuation.resume(with: answer) }
    }

    func onFinish(_ cleanup: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            if finished { return true }
            cleanups.append(cleanup)
            return false
        }
        if now { cleanup() }
    }

    /// Answers the caller with `result` unless it was answered already; whether it was this.
    @discardableResult
    func finish(with result: Result<T, Error>) -> Bool {
        let taken: (waiting: CheckedContinuation<T, Error>?, cleanups: [@Sendable () -> Void])? = lock.withLock {
            guard !finished else { return nil }
            finished = true
            defer { continuation = nil; self.cleanups = [] }
            if continuation == nil { early = result }
            return (continuation, self.cleanups)
        }
        guard let taken else { return false }
        taken.waiting?.resume(with: result)
        taken.cleanups.forEach { $0() }
        return true
    }
}

extension Result where Failure == Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}

/// The connection a ``PostgresDatabase/run(within:_:)`` works on, to close when it is given up.
final class HeldConnection: @unchecked Sendable {
    // @unchecked: `connection` and `abandoned` are guarded by `lock`.
    private let lock = NSLock()
    private var connection: PostgresConnection?
    private var abandoned = false

    func set(_ connection: PostgresConnection) {
        let close = lock.withLock { () -> Bool in
            self.connection = connection
            return abandoned
        }
        if close { let _: EventLoopFuture<Void> = connection.close() }
    }

    func close() {
        let connection = lock.withLock { () -> PostgresConnection? in
            abandoned = true
            return self.connection
        }
        let _: EventLoopFuture<Void>? = connection?.close()
    }
}

/// Tells the work using a connection when the connection closes under it (one callback per
/// connection, made when it opens; the work arms and disarms it).
final class ConnectionWatch: @unchecked Sendable {
    // @unchecked: `onClose` and `isClosed` are guarded by `lock`.
    private let lock = NSLock()
    private var onClose: (@Sendable () -> Void)?
    private var isClosed = false

    func arm(_ action: @escaping @Sendable () -> Void) {
        let now = lock.withLock { () -> Bool in
            onClose = action
            return isClosed
        }
        if now { action() }
    }

    func disarm() {
        lock.withLock { onClose = nil }
    }

    func closed() {
        let action = lock.withLock { () -> (@Sendable () -> Void)? in
            isClosed = true
            return onClose
        }
        action?()
    }
}

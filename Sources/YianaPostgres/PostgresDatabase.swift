import Foundation
import Logging
import NIOCore
import NIOSSL
import PostgresNIO

/// A connection to the PostgreSQL server an index lives on: made within the location's
/// `connect_timeout` (a dead server is an error naming it, never a hang), with TLS as its
/// `sslmode` asks, every problem said as ``PostgresIndexError`` in words a person can act on.
public final class PostgresDatabase: Sendable {
    public let location: PostgresLocation
    private let pool: ConnectionPool
    /// postgres-nio's log: nothing, unless `$YIANA_POSTGRES_LOG` names a level (`debug`,
    /// `trace`, …), then to standard error: what was sent and received, to tell where a problem is.
    static let logger: Logger = {
        guard let name = ProcessInfo.processInfo.environment["YIANA_POSTGRES_LOG"], let level = Logger.Level(rawValue: name) else {
            return Logger(label: "yiana.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: "yiana.postgres", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }()

    private init(location: PostgresLocation, pool: ConnectionPool) {
        self.location = location
        self.pool = pool
    }

    /// Connects (and logs in) within `location.connectTimeout` seconds; later work shares up to
    /// `connections` connections (opened when first needed: the indexer needs one, `serve` a few).
    public static func connect(_ location: PostgresLocation, connections: Int = 1) async throws(PostgresIndexError) -> PostgresDatabase {
        let configuration = try Self.configuration(location)
        let pool = ConnectionPool(configuration: configuration, location: location, limit: max(1, connections))
        ConnectionPool.keep(pool)
        do {
            // Bounded by connect_timeout inside (log-in included): no second timer here.
            let first = try await pool.take()
            await pool.give(first.connection)
        } catch let error as PostgresIndexError {
            await pool.closeAll()
            throw error
        } catch {
            await pool.closeAll()
            throw PostgresIndexError(error, location: location)
        }
        return PostgresDatabase(location: location, pool: pool)
    }

    public func close() async {
        await pool.closeAll()
    }

    /// Runs `body` on a connection of its own, failing with a timeout error naming the server
    /// after `seconds` (a search must never hang on a server that stopped answering). A
    /// connection that failed or was cut off by the timeout is closed, and the next call opens a
    /// new one: a server restarted meanwhile is simply used again.
    public func run<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(PostgresIndexError) -> T {
        let pool = self.pool, location = self.location
        let held = HeldConnection()
        do {
            // Given up on (too slow, or the caller cancelled): the connection is closed, which
            // ends whatever the work was waiting for on it.
            return try await Self.within(seconds, location, onGiveUp: { held.close() }) { fail in
                let (connection, watch) = try await pool.take()
                held.set(connection)
                // Closed under the work (the server went away between two statements): the work
                // is failed now, as postgres-nio may never answer a statement sent after that.
                watch.arm { fail(PostgresIndexError(.notAnswering("it closed the connection"), location: location)) }
                do {
                    let value = try await body(connection)
                    watch.disarm()
                    await pool.give(connection)
                    return value
                } catch {
                    watch.disarm()
                    await pool.drop(connection, healthy: !Task.isCancelled && error is PSQLError && (error as! PSQLError).code == .server)
                    throw error
                }
            }
        } catch let error as PostgresIndexError {
            throw error
        } catch {
            throw PostgresIndexError(error, location: location)
        }
    }

    /// Runs `body` in a transaction (committed when it returns, rolled back when it throws); a
    /// deadlock or serialization failure with another machine's writer is tried again.
    public func transaction<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(PostgresIndexError) -> T {
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try await run(within: seconds) { connection in
                    try await connection.query("BEGIN", logger: Self.logger)
                    do {
                        let value = try await body(connection)
                        try await connection.query("COMMIT", logger: Self.logger)
                        return value
                    } catch {
                        await Self.rollback(connection, after: error)
                        throw error
                    }
                }
            } catch where attempt < 5 && (error.sqlState == "40P01" || error.sqlState == "40001") {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...50) * attempt))
            }
        }
    }

    /// Ends the transaction `error` interrupted, if the connection is still there: on a
    /// connection the server has gone from, nothing is sent (postgres-nio may never answer a
    /// statement queued as it closes; the server rolls back what a lost session left).
    static func rollback(_ connection: PostgresConnection, after error: any Error) async {
        guard !connection.isClosed, (error as? PSQLError)?.code == .server else { return }
        _ = try? await connection.query("ROLLBACK", logger: logger)
    }

    /// `body`'s result, or ``PostgresIndexError`` `.timedOut` after `seconds` (`body` cancelled).
    static func within<T: Sendable>(_ seconds: Double, _ location: PostgresLocation, late: @escaping @Sendable (T) -> Void = { _ in },
                                    _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await within(seconds, location, onGiveUp: {}, late: late) { _ in try await body() }
    }

    /// ``within(_:_:_:)``, `body` given a way to fail at once (the caller answered, the work
    /// cancelled), `onGiveUp` run when the work is left unfinished, and `late` given what the
    /// work made after its caller was answered (a connection, to close: nothing is dropped open).
    static func within<T: Sendable>(_ seconds: Double, _ location: PostgresLocation, onGiveUp: @escaping @Sendable () -> Void,
                                    late: @escaping @Sendable (T) -> Void = { _ in },
                                    _ body: @escaping @Sendable (_ fail: @escaping @Sendable (Error) -> Void) async throws -> T) async throws -> T {
        // Not a task group: a group waits for all its tasks, so work that does not end when
        // cancelled (a reply the server will never send) would keep the caller waiting too.
        // Here the caller is answered by whichever comes first; the work is cancelled.
        let outcome = Outcome<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
                outcome.start(continuation)
                let fail: @Sendable (Error) -> Void = { error in if outcome.finish(with: .failure(error)) { onGiveUp() } }
                let work = Task {
                    let result = await Result { try await body(fail) }
                    if !outcome.finish(with: result), case .success(let value) = result { late(value) }
                }
                let timer = Task {
                    try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                    if outcome.finish(with: .failure(PostgresIndexError(.timedOut(seconds), location: location))) { onGiveUp() }
                }
                // The timer too: a search's timer left to run its ten seconds out kept thousands
                // of sleeping timers under load, their heap a tenth of `serve`'s time.
                outcome.onFinish { work.cancel(); timer.cancel() }
            }
        } onCancel: {
            if outcome.finish(with: .failure(CancellationError())) { onGiveUp() }
        }
    }

    /// postgres-nio's configuration for `location`: a socket, or TCP with TLS as `sslmode` says
    /// (`disable`; `allow` and `prefer` use TLS when the server offers it, unverified; `require`
    /// insists on it, unverified; `verify-ca` checks the chain; `verify-full` the name too).
    static func configuration(_ location: PostgresLocation) throws(PostgresIndexError) -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if location.isSocket {
            configuration = .init(unixSocketPath: location.socketPath, username: location.user, password: location.password, database: location.database)
        } else {
            let tls: PostgresConnection.Configuration.TLS
            do {
                var client = TLSConfiguration.makeClientConfiguration()
                switch location.sslMode {
                case .disable:
                    tls = .disable
                case .allow, .prefer, .require:
                    client.certificateVerification = .none
                    tls = location.sslMode == .require ? .require(try NIOSSLContext(configuration: client)) : .prefer(try NIOSSLContext(configuration: client))
                case .verifyCA, .verifyFull:
                    client.certificateVerification = location.sslMode == .verifyCA ? .noHostnameVerification : .fullVerification
                    if let roots = location.sslRootCertificate { client.trustRoots = .file(roots) }
                    tls = .require(try NIOSSLContext(configuration: client))
                }
            } catch {
                throw PostgresIndexError(.tls("its TLS set-up failed (\(error)); check sslrootcert"), location: location)
            }
            configuration = .init(host: location.host, port: location.port, username: location.user, password: location.password,
                                  database: location.database, tls: tls)
        }
        configuration.options.connectTimeout = .milliseconds(Int64(location.connectTimeout * 1000))
        // Statements prepared once (``FixedStatements``) are planned for each search's own words:
        // how often they occur decides the plan (a common word: every page, in parallel; a rare
        // one: its GIN entries). PostgreSQL's generic plan, chosen after five runs, guesses 500
        // matching pages for every word and took twice as long on 100,000 documents.
        configuration.options.additionalStartupParameters = [("plan_cache_mode", "force_custom_plan")]
        return configuration
    }
}

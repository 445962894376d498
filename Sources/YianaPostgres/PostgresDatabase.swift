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
    static let logger = Logger(label: "yiana.postgres")

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
            let first = try await within(location.connectTimeout, location) { try await pool.take() }
            await pool.give(first)
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
        let pool = self.pool
        do {
            return try await Self.within(seconds, location) {
                let connection = try await pool.take()
                do {
                    let value = try await body(connection)
                    await pool.give(connection)
                    return value
                } catch {
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
                        _ = try? await connection.query("ROLLBACK", logger: Self.logger)
                        throw error
                    }
                }
            } catch where attempt < 5 && (error.sqlState == "40P01" || error.sqlState == "40001") {
                try? await Task.sleep(for: .milliseconds(Int.random(in: 5...50) * attempt))
            }
        }
    }

    /// `body`'s result, or ``PostgresIndexError`` `.timedOut` after `seconds` (`body` cancelled).
    static func within<T: Sendable>(_ seconds: Double, _ location: PostgresLocation, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw PostgresIndexError(.timedOut(seconds), location: location)
            }
            return value
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
        return configuration
    }
}

/// What went wrong with the server an index lives on, said with the server's name.
public struct PostgresIndexError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing answers at the address (refused, no such socket, no route).
        case notAnswering(String)
        case timedOut(Double)
        /// The server refused the user or password.
        case refused(String)
        case noSuchDatabase
        case tls(String)
        /// The index's schema is newer than this version of yiana.
        case schemaTooNew(found: Int, known: Int)
        /// Anything else the server said, or the connection did.
        case other(String)
    }

    public let kind: Kind
    public let location: PostgresLocation
    /// The server's SQLSTATE, when it said one.
    public internal(set) var sqlState: String?

    public init(_ kind: Kind, location: PostgresLocation) {
        self.kind = kind
        self.location = location
    }

    /// Sorts a postgres-nio error into a ``Kind``.
    public init(_ error: any Error, location: PostgresLocation) {
        self.location = location
        guard let psql = error as? PSQLError else {
            kind = .other(String(describing: error))
            return
        }
        let state = psql.serverInfo?[.sqlState], message = psql.serverInfo?[.message] ?? ""
        sqlState = state
        switch psql.code {
        case .server where state == "28P01" || state == "28000":
            kind = .refused(message)
        case .server where state == "3D000":
            kind = .noSuchDatabase
        case .server:
            kind = .other("\(message)\(state.map { " (SQLSTATE \($0))" } ?? "")")
        case .authMechanismRequiresPassword:
            kind = .refused("it asks for a password and none was given")
        case .sslUnsupported:
            kind = .tls("the server does not offer TLS, and sslmode=\(location.sslMode.rawValue) asks for it")
        case .failedToAddSSLHandler:
            kind = .tls("TLS could not be set up (\(psql.underlying.map { String(describing: $0) } ?? "no reason given"))")
        case .connectionError where psql.underlying is NIOSSLError:
            kind = .tls("the TLS handshake failed (\(psql.underlying.map { String(describing: $0) } ?? "")): for sslmode=verify-ca or verify-full, "
                        + "give the certificate of the server's CA with sslrootcert=FILE, and for verify-full use the name the certificate holds")
        case .connectionError where Self.isConnectTimeout(psql.underlying):
            // postgres-nio's own connect timeout (the same length as ours) fired first.
            kind = .timedOut(location.connectTimeout)
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            kind = .notAnswering(psql.underlying.map { String(describing: $0) } ?? "\(psql.code)")
        default:
            kind = .other("\(psql.code)\(psql.underlying.map { ": \($0)" } ?? "")")
        }
    }

    static func isConnectTimeout(_ error: (any Error)?) -> Bool {
        if let channel = error as? ChannelError, case .connectTimeout = channel { return true }
        return false
    }

    public var description: String {
        let server = location.isSocket ? "the PostgreSQL server at the socket \(location.socketPath)" : "the PostgreSQL server \(location.host):\(location.port)"
        switch kind {
        case .notAnswering(let why):
            return "\(server) is not answering (\(why)): is it running, and is this its address? (index \(location))"
        case .timedOut(let seconds):
            return "\(server) did not answer within \(seconds.formatted()) s (connect_timeout in the URL, or $PGCONNECT_TIMEOUT, sets how long to wait). (index \(location))"
        case .refused(let why):
            let password = location.passwordSource.map { "the password came from \($0)" } ?? "no password was given: put it in ~/.pgpass (mode 0600) or $PGPASSWORD"
            return "\(server) refused the user \(location.user): \(why) (\(password))."
        case .noSuchDatabase:
            return "\(server) has no database \(location.database): make it with `createdb \(location.database)` (or name another in the URL)."
        case .tls(let why):
            return "\(server): \(why). (index \(location))"
        case .schemaTooNew(let found, let known):
            return "the index at \(location) has schema version \(found), newer than this yiana knows (\(known)): update yiana on this machine."
        case .other(let why):
            return "\(server): \(why). (index \(location))"
        }
    }
}

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
    private var open = 0
    private var closed = false

    init(configuration: PostgresConnection.Configuration, location: PostgresLocation, limit: Int) {
        self.configuration = configuration
        self.location = location
        self.limit = limit
    }

    func take() async throws -> PostgresConnection {
        while true {
            if closed { throw CancellationError() }
            while let connection = idle.popLast() {
                if !connection.isClosed { return connection }
                open -= 1
            }
            if open < limit {
                open += 1
                do {
                    return try await PostgresConnection.connect(configuration: configuration, id: Int.random(in: 1...Int.max), logger: PostgresDatabase.logger)
                } catch {
                    open -= 1
                    throw error
                }
            }
            try await Task.sleep(for: .microseconds(500))  // cancelled by the caller's timeout
        }
    }

    func give(_ connection: PostgresConnection) async {
        if closed, !connection.isClosed { try? await connection.close() }
        if connection.isClosed || closed { open -= 1 } else { idle.append(connection) }
    }

    /// A connection whose work failed: kept if the server only refused a statement, else closed.
    func drop(_ connection: PostgresConnection, healthy: Bool) async {
        if healthy, !connection.isClosed {
            idle.append(connection)
            return
        }
        open -= 1
        try? await connection.close()
    }

    func closeAll() async {
        closed = true
        let all = idle
        idle = []
        open -= all.count
        for connection in all { try? await connection.close() }
        Self.liveLock.withLock { Self.live[ObjectIdentifier(self)] = nil }
    }
}

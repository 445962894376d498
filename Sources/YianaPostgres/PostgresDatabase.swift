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
    let connection: PostgresConnection
    static let logger = Logger(label: "yiana.postgres")

    init(location: PostgresLocation, connection: PostgresConnection) {
        self.location = location
        self.connection = connection
    }

    /// Connects (and logs in) within `location.connectTimeout` seconds.
    public static func connect(_ location: PostgresLocation) async throws(PostgresIndexError) -> PostgresDatabase {
        let configuration = try Self.configuration(location)
        do {
            let connection = try await within(location.connectTimeout, location) {
                try await PostgresConnection.connect(configuration: configuration, id: Int.random(in: 1...Int.max), logger: logger)
            }
            return PostgresDatabase(location: location, connection: connection)
        } catch let error as PostgresIndexError {
            throw error
        } catch {
            throw PostgresIndexError(error, location: location)
        }
    }

    public func close() async {
        try? await connection.close()
    }

    /// Runs `body` on the connection, failing with a timeout error naming the server after
    /// `seconds` (a search must never hang on a server that stopped answering).
    public func run<T: Sendable>(within seconds: Double, _ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws(PostgresIndexError) -> T {
        let connection = self.connection
        do {
            return try await Self.within(seconds, location) { try await body(connection) }
        } catch let error as PostgresIndexError {
            throw error
        } catch {
            throw PostgresIndexError(error, location: location)
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

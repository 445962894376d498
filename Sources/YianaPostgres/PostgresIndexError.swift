import Foundation
import NIOCore
import NIOSSL
import PostgresNIO

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
        case .server where state?.hasPrefix("57P") == true:
            // Shutting down, or cut off by its administrator or a crash.
            kind = .notAnswering(message)
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
        case .clientClosedConnection:
            kind = .notAnswering("it closed the connection")
        case .connectionError, .serverClosedConnection, .uncleanShutdown:
            kind = .notAnswering(Self.reason(psql.underlying.map { String(describing: $0) } ?? "\(psql.code)"))
        default:
            kind = .other("\(psql.code)\(psql.underlying.map { ": \($0)" } ?? "")")
        }
    }

    /// The system's words for why a connection failed ("Connection refused", "No such file or
    /// directory" for a socket), not NIO's whole report of every address it tried.
    static func reason(_ report: String) -> String {
        let known = ["Connection refused", "No such file or directory", "No route to host", "Network is unreachable", "Connection reset by peer",
                     "Permission denied", "Host is down"]
        if let found = known.first(where: { report.contains($0) }) { return found.prefix(1).lowercased() + found.dropFirst() }
        return report
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
        case .timedOut(let seconds) where seconds == location.connectTimeout:
            return "\(server) did not answer within \(seconds.formatted()) s (connect_timeout in the URL, or $PGCONNECT_TIMEOUT, sets how long to wait). (index \(location))"
        case .timedOut(let seconds):
            return "\(server) did not finish the work within \(seconds.formatted()) s: is it overloaded, or is a transaction of another program holding a lock on the index's tables (pg_stat_activity shows them)? (index \(location))"
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

import Foundation

/// Where a search index on a PostgreSQL server is, written as libpq's users write it:
/// `postgres://[user[:password]@][host][:port][/dbname][?param=value&…]` (or `postgresql://`).
/// The host is a name, an IPv4 or `[IPv6]` address, or a folder holding the server's socket
/// (percent-encoded, `postgres://me@%2Fvar%2Frun%2Fpostgresql/yiana`, or `?host=/dir`).
/// Parameters: `host`, `port`, `user`, `password`, `dbname`, `sslmode` (`disable`, `allow`,
/// `prefer`, `require`, `verify-ca`, `verify-full`), `sslrootcert`, `connect_timeout`
/// (seconds), `application_name` (taken, unused). What the URL leaves out comes from
/// `$PGHOST`, `$PGPORT`, `$PGUSER`, `$PGDATABASE`, `$PGSSLMODE`, `$PGCONNECT_TIMEOUT`, then
/// libpq's defaults; the password from the URL, else `$PGPASSWORD`, else the password file
/// (`$PGPASSFILE` or `~/.pgpass`, ignored unless only its owner can read it, as libpq does).
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    public enum SSLMode: String, Sendable, CaseIterable {
        case disable, allow, prefer, require, verifyCA = "verify-ca", verifyFull = "verify-full"
    }

    public var user: String
    public var password: String?
    /// A host name or address, or (starting with `/`) the folder of the server's socket.
    public var host: String
    public var port: Int
    public var database: String
    public var sslMode: SSLMode
    /// A file of CA certificates for `verify-ca` and `verify-full` (else the system's).
    public var sslRootCertificate: String?
    public var connectTimeout: Double
    /// Where the password came from, for error messages: "the URL", "$PGPASSWORD", a file, or nil.
    public var passwordSource: String?

    /// libpq's socket folder on Debian.
    public static let defaultSocketFolder = "/var/run/postgresql"

    public var isSocket: Bool { host.hasPrefix("/") }
    public var socketPath: String { host + "/.s.PGSQL.\(port)" }

    /// The location as a URL without its password, for messages.
    public var description: String {
        let shownHost = isSocket ? host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
            : host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shownHost):\(port)/\(database)"
    }

    /// Whether `text` names a PostgreSQL server rather than an SQLite file.
    public static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// - Throws: ``PostgresLocationError`` naming what is wrong in `url`.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws(PostgresLocationError) {
        guard Self.isURL(url) else { throw PostgresLocationError(url, "it does not start with postgres:// or postgresql://") }
        var rest = Substring(url[url.index(after: url.range(of: "://")!.lowerBound)...].dropFirst(2))
        var parameters: [String: String] = [:]
        if let question = rest.firstIndex(of: "?") {
            for pair in rest[rest.index(after: question)...].split(separator: "&") where !pair.isEmpty {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, let key = Self.decoded(parts[0]), let value = Self.decoded(parts[1]) else {
                    throw PostgresLocationError(url, "the parameter \(pair) is not name=value")
                }
                parameters[key] = value
            }
            rest = rest[..<question]
        }
        var path: Substring = ""
        if let slash = rest.firstIndex(of: "/") {
            path = rest[rest.index(after: slash)...]
            rest = rest[..<slash]
        }
        var userPart: Substring?
        if let at = rest.lastIndex(of: "@") {
            userPart = rest[..<at]
            rest = rest[rest.index(after: at)...]
        }
        var urlUser: String?, urlPassword: String?
        if let userPart {
            let parts = userPart.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            urlUser = Self.decoded(parts[0])
            if parts.count == 2 { urlPassword = Self.decoded(parts[1]) }
            guard urlUser != nil, parts.count == 1 || urlPassword != nil else { throw PostgresLocationError(url, "its user or password is not percent-encoded well") }
        }
        var urlHost: String?, urlPort: String?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw PostgresLocationError(url, "an [IPv6 address] is not closed") }
            urlHost = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            if after.hasPrefix(":") { urlPort = String(after.dropFirst()) } else if !after.isEmpty { throw PostgresLocationError(url, "after the IPv6 address comes \(after)") }
        } else if !rest.isEmpty {
            let parts = rest.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            urlHost = parts[0].isEmpty ? nil : Self.decoded(parts[0])
            if parts.count == 2 { urlPort = String(parts[1]) }
        }
        func pick(_ parameter: String, _ fromURL: String?, _ variable: String) -> String? {
            parameters[parameter] ?? fromURL ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        user = pick("user", urlUser, "PGUSER") ?? environment["USER"] ?? NSUserName()
        host = pick("host", urlHost, "PGHOST") ?? Self.defaultSocketFolder
        let portText = pick("port", urlPort, "PGPORT") ?? "5432"
        guard let port = Int(portText), (1...65535).contains(port) else { throw PostgresLocationError(url, "the port \(portText) is not a number from 1 to 65535") }
        self.port = port
        database = pick("dbname", path.isEmpty ? nil : Self.decoded(path), "PGDATABASE") ?? user
        let mode = pick("sslmode", nil, "PGSSLMODE") ?? "prefer"
        guard let sslMode = SSLMode(rawValue: mode) else {
            throw PostgresLocationError(url, "sslmode \(mode) is none of \(SSLMode.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.sslMode = sslMode
        sslRootCertificate = parameters["sslrootcert"]
        let timeoutText = pick("connect_timeout", nil, "PGCONNECT_TIMEOUT") ?? "10"
        guard let timeout = Double(timeoutText), timeout > 0 else { throw PostgresLocationError(url, "connect_timeout \(timeoutText) is not a number of seconds above 0") }
        connectTimeout = min(timeout, 3600)
        if let given = parameters["password"] ?? urlPassword {
            (password, passwordSource) = (given, "the URL")
        } else if let variable = environment["PGPASSWORD"], !variable.isEmpty {
            (password, passwordSource) = (variable, "$PGPASSWORD")
        } else {
            let file = environment["PGPASSFILE"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
            if let found = PasswordFile.password(in: file, host: host, port: port, database: database, user: user) {
                (password, passwordSource) = (found, file)
            }
        }
    }

    static func decoded(_ text: Substring) -> String? {
        String(text).removingPercentEncoding
    }
}

/// A `postgres://` location that cannot be used, and why.
public struct PostgresLocationError: Error, Sendable, CustomStringConvertible {
    public let description: String

    init(_ url: String, _ why: String) {
        // Never repeat a password given in the URL.
        let shown = url.replacingOccurrences(of: #"(://[^:/@]*):[^@/]*@"#, with: "$1:…@", options: .regularExpression)
        description = "--index \(shown): \(why)."
    }
}

/// libpq's password file: lines `host:port:database:user:password`, `*` matching anything,
/// `\:` and `\\` escaped, `#` comments; used only when only its owner may read it.
enum PasswordFile {
    static func password(in path: String, host: String, port: Int, database: String, user: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
              let permissions = attributes[.posixPermissions] as? Int, permissions & 0o077 == 0,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        // libpq also takes "localhost" for a socket in its default folder.
        let hosts = host == PostgresLocation.defaultSocketFolder ? [host, "localhost"] : [host]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = split(line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: [String]) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], hosts), matches(fields[1], [String(port)]), matches(fields[2], [database]), matches(fields[3], [user]) {
                return fields[4]
            }
        }
        return nil
    }

    /// The fields of a line, split at unescaped colons, escapes removed.
    static func split(_ line: Substring) -> [String] {
        var fields: [String] = [], current = "", escaped = false
        for character in line {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        fields.append(current)
        return fields
    }
}

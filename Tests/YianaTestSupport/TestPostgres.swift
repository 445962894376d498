#if canImport(Glibc)
import Glibc
#endif
import Foundation
import YianaSystem

/// A PostgreSQL server of the test's own (Debian's, 15): `initdb` in a new folder, started by
/// `pg_ctl` on a socket in that folder and on a free loopback port, stopped when the test is
/// done. Its superuser `yiana` logs in without a password on the socket and with `password`
/// (SCRAM) over TCP. No test touches a server it did not start. Run as root (CI), the server
/// runs as the `postgres` user, which initdb asks for.
public final class TestPostgres: @unchecked Sendable {
    public let folder: String
    public let port: Int
    public let password = "test password 1"
    public var socketFolder: String { folder + "/socket" }
    let bin: String
    let asPostgres: Bool

    /// Whether Debian's PostgreSQL is installed (Scripts/test.sh installs it).
    public static var binFolder: String? {
        let base = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []).compactMap(Int.init).sorted()
        return versions.last.map { "\(base)/\($0)/bin" }.flatMap { FileManager.default.fileExists(atPath: $0 + "/initdb") ? $0 : nil }
    }

    /// With `tlsName`, the server also takes TLS, with a certificate made for that name and
    /// 127.0.0.1 (``certificate`` is its file, to trust).
    public let tlsName: String?
    public var certificate: String { folder + "/server.crt" }

    /// Connections the server takes (PostgreSQL's default is 100).
    let maxConnections: Int

    public init(tlsName: String? = nil, maxConnections: Int = 100) throws {
        self.tlsName = tlsName
        self.maxConnections = maxConnections
        guard let bin = Self.binFolder else { throw TestPostgresError("PostgreSQL is not installed (apt-get install postgresql; Scripts/test.sh does)") }
        self.bin = bin
        asPostgres = getuid() == 0
        folder = "/tmp/yiana-pg-\(UUID().uuidString.prefix(8))"
        port = try Sys.freeLoopbackPort()
        try FileManager.default.createDirectory(atPath: socketFolder, withIntermediateDirectories: true)
        try (password + "\n").write(toFile: folder + "/pwfile", atomically: true, encoding: .utf8)
        if let tlsName {
            try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=\(tlsName)",
                                         "-addext", "subjectAltName=DNS:\(tlsName),IP:127.0.0.1", "-keyout", folder + "/server.key", "-out", certificate], asServer: false)
            chmod(folder + "/server.key", 0o600)
        }
        if asPostgres { try run("/bin/chown", ["-R", "postgres:postgres", folder], asServer: false) }
        try run(bin + "/initdb", ["-D", folder + "/data", "-U", "yiana", "--auth-local=trust", "--auth-host=scram-sha-256",
                                  "--pwfile=" + folder + "/pwfile", "-E", "UTF8", "--locale=C.UTF-8"])
        try start()
    }

    /// `postgres://yiana@…/DB`: over the socket, or over TCP on 127.0.0.1 (password needed).
    public func url(database: String = "postgres", tcp: Bool = false, extra: String = "") -> String {
        let host = tcp ? "127.0.0.1:\(port)" : (socketFolder.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? socketFolder) + ":\(port)"
        return "postgres://yiana@\(host)/\(database)\(extra.isEmpty ? "" : "?" + extra)"
    }

    public func start() throws {
        try run(bin + "/pg_ctl", ["-D", folder + "/data", "-l", folder + "/log", "-w", "-t", "30", "start", "-o",
                                  "-k \(socketFolder) -p \(port) -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=\(maxConnections)"
                                    + (tlsName == nil ? "" : " -c ssl=on -c ssl_cert_file=\(certificate) -c ssl_key_file=\(folder)/server.key")])
    }

    /// Stops the server (fast: sessions are cut, as when a server goes down).
    public func stop() {
        _ = try? run(bin + "/pg_ctl", ["-D", folder + "/data", "-w", "-m", "fast", "stop"])
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// Runs `program` to its end (as `postgres` when this process is root), its output to a
    /// file. Not with Foundation's Process: pg_ctl leaves the server running, and the server
    /// would inherit the descriptor Process waits on, so it would wait for ever. Here the child
    /// gets no descriptor of this process but its output (closefrom 3).
    @discardableResult
    func run(_ program: String, _ arguments: [String], asServer: Bool = true) throws -> String {
        let argv = asServer && asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
        let outputPath = NSTemporaryDirectory() + "yiana-pg-output-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // glibc's closefrom action (2.34 and later), which Swift's Glibc module does not declare.
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
            throw TestPostgresError("this C library has no posix_spawn_file_actions_addclosefrom_np (glibc 2.34 or later)")
        }
        _ = unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3)
        var cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, argv[0], &actions, nil, &cArguments, environ)
        guard spawned == 0 else { throw TestPostgresError("\(argv[0]) could not be started (\(spawned))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            throw TestPostgresError("\(program) \(arguments.joined(separator: " ")) failed: \(text)")
        }
        return text
    }
}

public struct TestPostgresError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

/// A loopback port that takes connections (the kernel completes them) and never says a word:
/// a server that hangs.
public final class SilentListener: @unchecked Sendable {
    let fd: Int32

    public init(port: Int) throws {
        guard let (fd, _) = listeningSocket(port: port) else { throw TestPostgresError("cannot listen on 127.0.0.1:\(port)") }
        self.fd = fd
    }

    public func close() { Glibc.close(fd) }
}

extension TestPostgres {
    private static let sharedServer = Result { try TestPostgres(maxConnections: 500) }

    /// One server for the whole test process (started when first asked for, stopped when the
    /// process exits); each test takes a database of its own (``makeDatabase()``).
    public static func shared() throws -> TestPostgres {
        let server = try sharedServer.get()
        _ = stopAtExit
        return server
    }

    private static let stopAtExit: Void = {
        atexit {
            if case .success(let server) = TestPostgres.sharedServer {
                server.stop()
                try? FileManager.default.removeItem(atPath: server.folder)
            }
        }
    }()

    /// A new empty database on this server; its name.
    public func makeDatabase() throws -> String {
        let name = "test_" + UUID().uuidString.prefix(12).lowercased().replacingOccurrences(of: "-", with: "")
        try run(bin + "/createdb", ["-h", socketFolder, "-p", String(port), "-U", "yiana", name])
        return name
    }
}

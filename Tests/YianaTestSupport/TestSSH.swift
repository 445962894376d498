#if canImport(Glibc)
import Glibc
#endif
import Foundation
import YianaSystem

/// Debian's OpenSSH server of the test's own: its own host key, client key and port on
/// 127.0.0.1, password logins off, SFTP served in-process (`internal-sftp`); stopped when the
/// test is done. For restic's `sftp:` repositories (issue 58).
public final class TestSSH: @unchecked Sendable {
    public let port: Int
    public let folder: TemporaryFolder
    /// The user logged in as (the test's own).
    public let user: String

    public static let sshd = "/usr/sbin/sshd"

    public init() throws {
        folder = try TemporaryFolder()
        user = NSUserName()
        port = try Sys.freeLoopbackPort()
        for key in ["host", "client"] {
            let made = try runProcess(URL(fileURLWithPath: "/usr/bin/ssh-keygen"), ["-q", "-t", "ed25519", "-N", "", "-f", folder.path(key)])
            guard made.status == 0 else { throw TestSSHError("ssh-keygen: \(made.stderr)") }
        }
        try FileManager.default.copyItem(atPath: folder.path("client.pub"), toPath: folder.path("authorized_keys"))
        try """
            Port \(port)
            ListenAddress 127.0.0.1
            HostKey \(folder.path("host"))
            PidFile \(folder.path("sshd.pid"))
            AuthorizedKeysFile \(folder.path("authorized_keys"))
            StrictModes no
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            Subsystem sftp internal-sftp
            LogLevel ERROR
            """.write(toFile: folder.path("sshd_config"), atomically: true, encoding: .utf8)
        // Run as root, sshd wants its privilege separation folder (Debian's service makes it).
        if getuid() == 0, FileKind.at("/run/sshd") == .missing { try FileManager.default.createDirectory(atPath: "/run/sshd", withIntermediateDirectories: true) }
        // As a daemon of its own, not a child of the test's: Foundation's Process, which starts
        // restic, then reaps its children as they end (with sshd a Process child beside them,
        // restic's end was never seen).
        let started = try runProcess(URL(fileURLWithPath: Self.sshd), ["-f", folder.path("sshd_config")], timeout: 10)
        guard started.status == 0 else { throw TestSSHError("sshd: \(started.stderr)") }
        // Up once it listens: it writes its process id after binding its port.
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            if pid != nil { return }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestSSHError("sshd did not listen on 127.0.0.1:\(port) within 10 s")
    }

    /// `ssh` to the server as ``user``, with the client key, the host key not recorded anywhere.
    public var ssh: [String] {
        ["-p", String(port), "-i", folder.path("client"), "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
         "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "\(user)@127.0.0.1"]
    }

    /// restic's `-o sftp.command=…` for this server.
    public var resticOption: String {
        "sftp.command=ssh " + ssh.joined(separator: " ") + " -s sftp"
    }

    /// The server's process id, from its pid file.
    var pid: pid_t? {
        (try? String(contentsOfFile: folder.path("sshd.pid"), encoding: .utf8)).flatMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    public func stop() {
        if let pid { kill(pid, SIGTERM) }
        try? FileManager.default.removeItem(atPath: folder.path("sshd.pid"))
    }

    deinit { stop() }
}

public struct TestSSHError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

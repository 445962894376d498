import Foundation
import Testing
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// Debian's restic, run for real against repositories in temporary folders: what it is asked
/// and what it refuses, each said so that a person knows what to do, no password shown.
@Suite("keeper: restic driven")
struct ResticTests {
    func environment(_ folder: TemporaryFolder, password: String? = nil) throws -> [String: String] {
        try resticEnvironment(folder, password: password)
    }

    @Test func versionsAreReadAndLocationsShownWithoutTheirPasswords() {
        #expect(Restic.version(in: "restic 0.14.0 compiled with go1.19.8 on linux/amd64\n") == "0.14.0")
        #expect(Restic.version(in: "restic 0.16.4-dev (compiled manually) compiled with go1.22") == "0.16.4-dev")
        #expect(Restic.version(in: "command not found") == nil)
        #expect(Restic.atLeast("0.14.0", Restic.minimumVersion) && Restic.atLeast("0.16.4-dev", Restic.minimumVersion))
        #expect(Restic.atLeast("1.0", Restic.minimumVersion) && !Restic.atLeast("0.13.1", Restic.minimumVersion) && !Restic.atLeast("0.9.6", Restic.minimumVersion))
        #expect(Restic.shown("rest:https://yiana:hunter2@127.0.0.1:8000/box") == "rest:https://yiana:***@127.0.0.1:8000/box")
        #expect(Restic.shown("sftp:backup@host:/srv/restic") == "sftp:backup@host:/srv/restic")
        #expect(Restic.shown("/mnt/backup/restic") == "/mnt/backup/restic")
    }

    @Test func noResticOrNoRepositoryIsSaid() throws {
        let folder = try TemporaryFolder()
        var bare = try environment(folder)
        bare["PATH"] = folder.path("nothing-here")
        #expect(throws: ResticError.missing) { try Restic(repository: "/tmp/x", environment: bare) }
        #expect(throws: ResticError.noRepositoryGiven) { try Restic(repository: nil, environment: try environment(folder)) }
        #expect(throws: ResticError.noRepositoryGiven) { try Restic(repository: "", environment: try environment(folder)) }
        var named = try environment(folder)
        named["RESTIC_REPOSITORY"] = folder.path("repo")
        #expect(try Restic(repository: nil, environment: named).shownRepository == folder.path("repo"))
        #expect(ResticError.missing.description.contains("apt install restic"))
    }

    @Test func eachRefusalIsSaidPlainly() throws {
        let folder = try TemporaryFolder()
        let repository = folder.path("repo")
        let good = try environment(folder, password: "correct horse")
        // Nothing there yet.
        let none = try Restic(repository: repository, environment: good)
        #expect(throws: ResticError.noRepository(repository)) { try none.run(["snapshots"]) }
        try none.run(["init"])
        // A wrong password, and none at all: said, never shown.
        let wrong = try Restic(repository: repository, environment: try environment(folder, password: "hunter2-wrong"))
        #expect { try wrong.run(["snapshots"]) } throws: { error in
            error as? ResticError == .wrongPassword(repository) && !"\(error)".contains("hunter2") && "\(error)".contains("RESTIC_PASSWORD_FILE")
        }
        #expect(throws: ResticError.noPassword) { try Restic(repository: repository, environment: try environment(folder)).run(["snapshots"]) }
        // Another restic holding the lock: a backup reading from a pipe that stays open.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: none.executable)
        holder.arguments = ["--repo", repository, "backup", "--stdin", "--stdin-filename", "held"]
        holder.environment = good
        let pipe = Pipe()
        holder.standardInput = pipe
        holder.standardOutput = FileHandle.nullDevice
        holder.standardError = FileHandle.nullDevice
        try holder.run()
        defer { try? pipe.fileHandleForWriting.close(); holder.waitUntilExit() }
        let locks = URL(fileURLWithPath: repository).appendingPathComponent("locks")
        let deadline = Date().addingTimeInterval(20)
        while ((try? FileManager.default.contentsOfDirectory(atPath: locks.path)) ?? []).isEmpty && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect { try none.run(["prune"]) } throws: { error in
            guard case .locked(let detail)? = error as? ResticError else { return false }
            return detail.contains("locked by PID") && "\(error)".contains("restic unlock")
        }
        try pipe.fileHandleForWriting.close()
        holder.waitUntilExit()
        #expect(try none.run(["check"]).status == 0, "the repository the held backup wrote to")
    }

    @Test func aBackupStreamsItsProgressAndSaysItsSnapshot() throws {
        let folder = try TemporaryFolder()
        let data = folder.url.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        for index in 0..<20 { try Data("document \(index)".utf8).write(to: data.appendingPathComponent("d\(index).txt")) }
        let restic = try Restic(repository: folder.path("repo"), environment: try environment(folder, password: "pw"))
        try restic.run(["init"])
        let lines = Lines()
        let run = try restic.run(["backup", "--json", "--tag", "yiana", data.path]) { lines.append($0) }
        #expect(run.status == 0)
        let messages = lines.all.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(messages.count == lines.all.count, "every line a JSON message")
        let summary = try #require(messages.first { $0["message_type"] as? String == "summary" })
        #expect(summary["files_new"] as? Int == 20)
        let id = try #require(summary["snapshot_id"] as? String)
        let snapshots = try #require(try JSONSerialization.jsonObject(with: Data(try restic.output(["snapshots", "--json"]).utf8)) as? [[String: Any]])
        #expect(snapshots.count == 1 && (snapshots[0]["id"] as? String)?.hasPrefix(id) == true && snapshots[0]["tags"] as? [String] == ["yiana"])
        #expect(try restic.run(["check"]).status == 0)
    }
}

/// An environment with none of the caller's restic settings, the cache inside `folder`, and
/// `password` (when given) in a file there.
func resticEnvironment(_ folder: TemporaryFolder, password: String? = nil) throws -> [String: String] {
    var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("RESTIC_") }
    environment["RESTIC_CACHE_DIR"] = folder.path("cache")
    if let password {
        let file = folder.path("password-" + password.utf8.map { String($0, radix: 16) }.joined())
        try Data((password + "\n").utf8).write(to: URL(fileURLWithPath: file))
        environment["RESTIC_PASSWORD_FILE"] = file
    }
    return environment
}

/// Lines gathered from restic's reading thread.
final class Lines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}

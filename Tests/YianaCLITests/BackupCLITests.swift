import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// `yiana backup` from the command line, with the real restic: each refusal's exit code and
/// words, the JSON reports, the status line, and the repository read back by `versions` and
/// `backup restore`.
@Suite("yiana backup")
struct BackupCLITests {
    /// A library of two documents, this machine's state and restic's cache in a folder of
    /// their own, and restic's password in a file.
    struct Setup {
        let library = try! TemporaryFolder(), home = try! TemporaryFolder()
        var environment: [String: String] {
            ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "RESTIC_CACHE_DIR": home.path("restic-cache"),
             "RESTIC_PASSWORD_FILE": home.path("password"), "RESTIC_REPOSITORY": "", "YIANA_SETTLE_SECONDS": "0"]
        }
        var repository: String { home.path("repo") }

        init() throws {
            try Data("the right one\n".utf8).write(to: URL(fileURLWithPath: home.path("password")))
            for name in ["One", "Two"] {
                try CoordinatedDocument.create(at: library.path("\(name).yianazip"), metadata: DocumentMetadata(title: name, pageCount: 1),
                                               pdf: .data(simplePDF(["\(name) of the backup"])))
            }
        }

        func yiana(_ arguments: [String], _ extra: [String: String] = [:]) async throws -> ProcessResult {
            try await runYiana(arguments + ["--library", library.url.path], environment: environment.merging(extra) { $1 })
        }
    }

    @Test func refusalsAreSaidWithTheirExitCodes() async throws {
        let setup = try Setup()
        let none = try await setup.yiana(["backup"])
        #expect(none.status == 2 && none.stderr.contains("--repo"), "\(none.stderr)")
        let missing = try await setup.yiana(["backup", "--repo", setup.repository])
        #expect(missing.status == 10 && missing.stderr.contains("restic init"), "\(missing.stderr)")
        _ = try await runProcess(URL(fileURLWithPath: "/usr/bin/restic"), ["init", "--repo", setup.repository], environment: ProcessInfo.processInfo.environment.merging(setup.environment) { $1 })
        try Data("not it\n".utf8).write(to: URL(fileURLWithPath: setup.home.path("wrong")))
        let wrong = try await setup.yiana(["backup", "--repo", setup.repository], ["RESTIC_PASSWORD_FILE": setup.home.path("wrong")])
        #expect(wrong.status == 12 && wrong.stderr.contains("password") && !wrong.stderr.contains("not it"), "\(wrong.stderr)")
        let noRestic = try await setup.yiana(["backup", "--repo", setup.repository], ["PATH": setup.home.path("nothing")])
        #expect(noRestic.status == 14 && noRestic.stderr.contains("apt install restic"), "\(noRestic.stderr)")
        let bad = try await setup.yiana(["backup", "--repo", setup.repository, "--restic-option", "novalue"])
        #expect(bad.status == 2)
        let status = try await setup.yiana(["status"])
        #expect(status.stdout.contains("backup: never succeeded; FAILED"), "\(status.stdout)")
    }

    @Test func aBackupIsReadBack() async throws {
        let setup = try Setup()
        _ = try await runProcess(URL(fileURLWithPath: "/usr/bin/restic"), ["init", "--repo", setup.repository], environment: ProcessInfo.processInfo.environment.merging(setup.environment) { $1 })
        let first = try await setup.yiana(["backup", "--repo", setup.repository, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(first.stdout.utf8)) as? [String: Any])
        #expect(report["documents"] as? Int == 2 && (report["snapshot"] as? String)?.count == 8 && report["incomplete"] as? Bool == false)
        let status = try await setup.yiana(["status"])
        #expect(status.stdout.contains("backup: last succeeded") && status.stdout.contains(report["snapshot"] as! String), "\(status.stdout)")

        // One document deleted: listed from the repository, brought back from it.
        let one = try Data(contentsOf: setup.library.url.appendingPathComponent("One.yianazip"))
        try FileManager.default.removeItem(at: setup.library.url.appendingPathComponent("One.yianazip"))
        let lost = try await setup.yiana(["versions", "list", "--repo", setup.repository, "--deleted", "--json"])
        #expect(lost.status == 0 && lost.stdout.contains("\"missing-here\"") && lost.stdout.contains("One.yianazip"), "\(lost.stdout)\(lost.stderr)")
        let states = try await setup.yiana(["versions", "list", "--repo", setup.repository, "One", "--json"])
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(states.stdout.utf8)) as? [[String: Any]])
        #expect(listed.count == 1 && listed.first?["snapshot"] as? String == report["snapshot"] as? String)
        let restored = try await setup.yiana(["versions", "restore", "--repo", setup.repository, "One"])
        #expect(restored.status == 0 && restored.stdout.contains("restored"), "\(restored.stderr)")
        #expect(try Data(contentsOf: setup.library.url.appendingPathComponent("One.yianazip")) == one)
        let unknown = try await setup.yiana(["versions", "restore", "--repo", setup.repository, "One", "ffffffff"])
        #expect(unknown.status == 1 && unknown.stderr.contains("holds no state"), "\(unknown.stderr)")

        // The whole library, into a new folder; the folder given must be new or empty.
        let into = setup.home.path("restored")
        let whole = try await runYiana(["backup", "restore", "--repo", setup.repository, "--to", into, "--json"], environment: setup.environment)
        #expect(whole.status == 0 && whole.stdout.contains("\"documents\" : 2"), "\(whole.stdout)\(whole.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: into + "/One.yianazip")) == one)
        let again = try await runYiana(["backup", "restore", "--repo", setup.repository, "--to", into], environment: setup.environment)
        #expect(again.status == 1 && again.stderr.contains("not empty"), "\(again.stderr)")

        let forget = try await setup.yiana(["backup", "forget", "--repo", setup.repository, "--dry-run", "--json"])
        #expect(forget.status == 0 && forget.stdout.contains("\"kept\""), "\(forget.stderr)")
        let snapshots = try await setup.yiana(["backup", "snapshots", "--repo", setup.repository])
        #expect(snapshots.stdout.contains("1 snapshot of library"), "\(snapshots.stdout)")
        let check = try await runProcess(URL(fileURLWithPath: "/usr/bin/restic"), ["check", "--repo", setup.repository],
                                         environment: ProcessInfo.processInfo.environment.merging(setup.environment) { $1 })
        #expect(check.status == 0, "\(check.stderr)")
    }
}

import ArgumentParser
import Foundation

/// yiana-realsync: the toolkit under a real sync program (scenario in Scenario.swift).
@main
struct RealSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yiana-realsync",
        abstract: "Run yiana on two devices kept in step by a real sync program, and check that nothing conflicts or is lost.",
        discussion: """
            Two folders of this machine are two devices, synced by unison (`-copyonconflict`) \
            or by two Syncthing instances on 127.0.0.1 (discovery, relays, NAT, upgrades and \
            reports off). A document is imported and synced; while the devices are apart one \
            adds a tag and the other changes the title; they sync (the program makes its \
            conflict copy); `yiana conflicts resolve --strategy merge` runs on one; they sync \
            again. Checked: both edits kept by a three-way merge, both devices the same, no \
            conflict copy of a document or of the toolkit's own files, `verify` clean on both, \
            every kept version listed by `versions list` on both with its bytes, and nothing \
            but documents and the shared state (no lock, no scratch file) ever in the library.

            Exit status: 0 when every check passed, 1 otherwise.
            """
    )

    @Option(help: "unison or syncthing.")
    var program: String

    @Option(help: "Work folder (default: a new folder in /tmp, removed when all is well).")
    var work: String?

    @Option(help: "The SampleDocs folder.")
    var samples = "SampleDocs"

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard ["unison", "syncthing"].contains(program) else { throw ValidationError("--program is unison or syncthing.") }
    }

    func run() async throws {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let workURL = work.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yiana-realsync-\(UUID().uuidString.prefix(8))")
        let a = workURL.appendingPathComponent("device-a"), b = workURL.appendingPathComponent("device-b")
        for folder in [workURL, a, b] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        var environment = ProcessInfo.processInfo.environment
        // This machine's state for both devices (each has its own: they are different paths).
        environment["XDG_STATE_HOME"] = workURL.appendingPathComponent("machine/state").path
        environment["XDG_CACHE_HOME"] = workURL.appendingPathComponent("machine/cache").path
        environment["NO_COLOR"] = "1"
        let shell = Shell(scratch: workURL, environment: environment)
        let scenario = Scenario(shell: shell, yiana: bin.appendingPathComponent("yiana").path,
                                samples: URL(fileURLWithPath: samples).standardizedFileURL, a: a, b: b)
        var result: Scenario.Result
        if program == "unison" {
            var unison = try Unison(shell: shell, work: workURL)
            try await unison.start(a: a, b: b)
            result = try await scenario.run(&unison)
        } else {
            var syncthing = Syncthing(shell: shell, work: workURL)
            defer { syncthing.stop() }
            try await syncthing.start(a: a, b: b)
            result = try await scenario.run(&syncthing)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print("""
                \(result.program): both edits kept \(result.bothEditsKept ? "yes" : "NO") (three-way \(result.mergedThreeWay ? "yes" : "NO")); \
                conflict copies left: documents \(result.documentConflictCopiesLeft), toolkit files \(result.stateConflictCopiesLeft); \
                converged \(result.converged ? "yes" : "NO"); verify clean \(result.verifyClean.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
                versions listed \(result.versionsListed.map(String.init).joined(separator: "/")) of \(result.versionsKept) kept; \
                files that travelled but must not: \(result.travelled.count); \(String(format: "%.1f", result.seconds)) s
                """)
            for problem in result.problems { print("FAILED: \(problem)") }
        }
        if result.passed, work == nil { try? FileManager.default.removeItem(at: workURL) }
        if !result.passed {
            FileHandle.standardError.write(Data("work folder kept: \(workURL.path)\n".utf8))
            throw ExitCode.failure
        }
    }
}

import ArgumentParser
import Foundation
import YianaSystem
import YianaLibrary
import enum YianaTestSupport.FaultShim

/// yiana-harness: the crash, fault and concurrency harness over every write path.
@main
struct HarnessCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yiana-harness",
        abstract: "Kill and fault every write path of yiana, run them concurrently, and check nothing is damaged or lost.",
        discussion: """
            For each write path (import, repair, edit, conflicts resolve, download, evict, \
            sync, versions restore, index, ocr, watch --once; and `yiana serve` answering an import, a restore and a \
            resolve) a starting library is built, then the command is run \
            again and again from it: killed with SIGKILL at a random moment or just before a \
            random one of its I/O calls, or given one I/O fault (EIO, ENOSPC, a short write or \
            read) at a random call by the LD_PRELOAD shim libFaultShim.so (Tools/FaultShim, compiled \
            beside this program when it is missing or older than its source). After each run: \
            every document is what it was or a document that verifies; no document's bytes \
            from before are missing from the libraries, version stores and cloud store; every \
            leftover temporary file is reported by `yiana verify`; the index opens and a \
            following `yiana index` brings it up to date; and the same command run again \
            without faults finishes the job. Then several processes run at once in one \
            library, with the same checks.

            Prints a table; exits 1 if anything was damaged, lost or crashed.
            """
    )

    @Option(help: "Kills that land, per write path.")
    var kills = 64

    @Option(help: "Faults injected, per write path.")
    var faults = 64

    @Option(help: "Rounds of the concurrency test.")
    var rounds = 10

    @Option(help: "Only these write paths (comma-separated names from the table; `concurrency` for the concurrency rounds).")
    var only: String?

    @Option(help: "Every write path but these (comma-separated, as for --only).")
    var skip: String?

    @Option(help: "Seed for the moments, calls and kinds of faults.")
    var seed: UInt64 = 1

    @Option(help: "Work folder (default: a new folder in /tmp, removed when all is well).")
    var work: String?

    @Option(help: "The SampleDocs folder.")
    var samples = "SampleDocs"

    @Flag(help: "Print the table as JSON as well.")
    var json = false

    func run() async throws {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let yiana = bin.appendingPathComponent("yiana")
        guard FileManager.default.fileExists(atPath: yiana.path) else {
            throw ValidationError("\(yiana.path) is missing: build it first (swift build --product yiana).")
        }
        let shim = try FaultShim.library(in: bin)
        let workURL = work.map { URL(fileURLWithPath: $0) } ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yiana-harness-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: workURL, withIntermediateDirectories: true)
        // This machine's state for the libraries of a run (cloud attachment, dataless records,
        // device ids, scratch) lives inside the run folder, so that every run starts from the
        // template's, for the commands and for the checks made in this process alike.
        let machine = workURL.appendingPathComponent("run").appendingPathComponent(Checks.machineFolder)
        setenv("XDG_STATE_HOME", machine.appendingPathComponent("state").path, 1)
        // A killed `yiana backup` leaves restic to this process, which reaps it (Runner.killTree).
        _ = Sys.becomeSubreaper()
        setenv("XDG_CACHE_HOME", machine.appendingPathComponent("cache").path, 1)
        let runner = Runner(yiana: yiana, shim: shim, scratch: workURL)
        let samplesURL = URL(fileURLWithPath: samples).standardizedFileURL
        let say: (String) -> Void = { FileHandle.standardError.write(Data(($0 + "\n").utf8)) }

        let names = { (list: String) in Set(list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        let wanted = only.map(names), skipped = skip.map(names) ?? []
        var results: [PathResult] = []
        var harness = CrashHarness(runner: runner, work: workURL, samples: samplesURL, random: SeededGenerator(seed: seed),
                                   kills: kills, faults: faults, progress: say)
        for scenario in Scenarios.all where wanted?.contains(scenario.name) ?? true && !skipped.contains(scenario.name) {
            let started = Date()
            let result = try await harness.run(scenario)
            say("\(scenario.name): \(result.runs) runs in \(Int(Date().timeIntervalSince(started))) s")
            results.append(result)
        }
        var concurrency: ConcurrencyHarness.Result? = nil
        if rounds > 0, wanted?.contains("concurrency") ?? true, !skipped.contains("concurrency") {
            var harness = ConcurrencyHarness(runner: runner, work: workURL, samples: samplesURL, random: SeededGenerator(seed: seed &+ 1), progress: say)
            concurrency = try await harness.run(rounds: rounds)
        }
        Report(results: results, concurrency: concurrency, seed: seed).print(json: json)
        let failed = results.contains(where: \.failed) || concurrency?.tally.failed == true
        if failed {
            say("FAILED; the work folder is kept: \(workURL.path)")
            throw ExitCode.failure
        }
        try? FileManager.default.removeItem(at: workURL)
    }
}

/// The table.
struct Report {
    let results: [PathResult]
    let concurrency: ConcurrencyHarness.Result?
    let seed: UInt64

    func print(json: Bool) {
        let header = ["write path", "runs", "kills (at I/O call + at random time)", "faults (eio/enospc/short)", "damaged", "bytes lost", "crashes", "temps left (found by verify / removed by repair --remove-temps)", "recovered by a rerun"]
        var rows = results.map { r in
            [r.name, "\(r.runs)", "\(r.kills) (\(r.killsAtCall) + \(r.killsAtTime))",
             "\(r.faultCount) (\(r.faults["eio", default: 0])/\(r.faults["enospc", default: 0])/\(r.faults["short", default: 0]))",
             "\(r.tally.damaged)", "\(r.tally.lost)", "\(r.tally.crashes)", "\(r.temps) (\(r.temps - r.tally.unfoundTemps) / \(r.tempsRemoved))",
             "\(r.recovered)/\(r.runs)"]
        }
        let totalKills = results.reduce(0) { $0 + $1.kills }, totalFaults = results.reduce(0) { $0 + $1.faultCount }
        rows.append(["total", "\(results.reduce(0) { $0 + $1.runs })", "\(totalKills)", "\(totalFaults)",
                     "\(results.reduce(0) { $0 + $1.tally.damaged })", "\(results.reduce(0) { $0 + $1.tally.lost })",
                     "\(results.reduce(0) { $0 + $1.tally.crashes })",
                     "\(results.reduce(0) { $0 + $1.temps }) (\(results.reduce(0) { $0 + $1.temps - $1.tally.unfoundTemps }) / \(results.reduce(0) { $0 + $1.tempsRemoved }))",
                     "\(results.reduce(0) { $0 + $1.recovered })/\(results.reduce(0) { $0 + $1.runs })"])
        let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max()! }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }.joined(separator: "  ")
        }
        Swift.print("crash and fault harness (seed \(seed))")
        Swift.print(line(header))
        Swift.print(line(widths.map { String(repeating: "-", count: $0) }))
        for row in rows { Swift.print(line(row)) }
        if let c = concurrency {
            Swift.print("\nconcurrency: \(c.rounds) rounds × 10 processes at once (2 import, 2 index, 2 edit, conflicts resolve, download, sync, verify) in one library: \(c.processes) processes, \(c.editsChecked) edits each found afterwards in some version, \(c.failedProcesses) reported a document they could not handle then, \(c.tally.crashes) crashed; damaged \(c.tally.damaged), bytes lost \(c.tally.lost), temps not found by verify \(c.tally.unfoundTemps), index problems \(c.tally.indexProblems)")
        }
        for r in results where !r.tally.failures.isEmpty {
            Swift.print("\n\(r.name):")
            for failure in r.tally.failures { Swift.print("  - \(failure)") }
        }
        for failure in concurrency?.tally.failures ?? [] { Swift.print("  - concurrency: \(failure)") }
        if json {
            let object: [String: Any] = [
                "seed": seed,
                "paths": results.map { ["path": $0.name, "runs": $0.runs, "kills": $0.kills, "faults": $0.faultCount, "damaged": $0.tally.damaged,
                                        "bytesLost": $0.tally.lost, "crashes": $0.tally.crashes, "temps": $0.temps, "tempsRemoved": $0.tempsRemoved, "recovered": $0.recovered] },
                "concurrency": concurrency.map { ["rounds": $0.rounds, "processes": $0.processes, "edits": $0.editsChecked, "crashes": $0.tally.crashes, "damaged": $0.tally.damaged, "bytesLost": $0.tally.lost] } ?? [:],
            ]
            if let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) {
                Swift.print(String(decoding: data, as: UTF8.self))
            }
        }
    }
}

import Foundation
import YianaLibrary

/// Several `yiana` processes importing, indexing, resolving, downloading and syncing in one
/// library at once; afterwards everything verifies, nothing is lost, and the index works.
struct ConcurrencyHarness {
    let runner: Runner
    let work: URL
    let samples: URL
    var random: SeededGenerator
    let progress: (String) -> Void

    struct Result {
        var rounds = 0
        var processes = 0
        var failedProcesses = 0
        var editsChecked = 0
        var tally = Tally()
    }

    mutating func run(rounds: Int) async throws -> Result {
        var result = Result()
        let root = work.appendingPathComponent("run")
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let context = Context(runner: runner, root: root, samples: samples)
        let lib = context.path("lib"), index = context.path("index/index.sqlite")
        try buildStart(context, lib: lib, index: index)
        let template = work.appendingPathComponent("template-concurrency")
        try? FileManager.default.removeItem(at: template)
        try runner.copyTree(root, to: template)
        let libraries = [root.appendingPathComponent("lib")]
        let before = Checks.documents(in: libraries, root: root)
        let commands: [[String]] = [
            ["import", "--library", lib, context.path("in1")],
            ["import", "--library", lib, context.path("in2")],
            ["index", "--library", lib, "--index", index],
            ["index", "--library", lib, "--index", index],
            ["conflicts", "resolve", "--strategy", "newest", "--library", lib],
            ["download", "--all", "--library", lib],
            ["sync", "--library", lib],
            ["verify", "--library", lib],
        ]
        let editors = 2
        let words = ["k1", "k3", "n1", "n3", "m1", "shared1"].map(Scenarios.word)

        for round in 0..<rounds {
            try? FileManager.default.removeItem(at: root)
            try runner.copyTree(template, to: root)
            // Edits with a tag of their own: each one written must survive somewhere.
            let tags = (0..<editors).map { "round\(round)editor\($0)" }
            let batch = commands + tags.map { ["edit", "--library", lib, "--tag", $0, "--json", "k1", "k2", "k3", "k4"] }
            let delays = batch.map { _ in Double.random(in: 0...0.05, using: &random) }
            let outcomes = try await runAtOnce(batch, delays: delays)
            result.rounds += 1
            for (command, outcome) in zip(batch, outcomes) {
                result.processes += 1
                if let signal = outcome.signal {
                    result.tally.crashes += 1
                    result.tally.fail("round \(round): `yiana \(command.prefix(2).joined(separator: " "))` died of signal \(signal): \(outcome.stderr.suffix(400))")
                } else if outcome.status != 0 && command[0] != "verify" {
                    // A command may report a document it could not handle now (another
                    // process holds it); that is not damage, but it is counted.
                    result.failedProcesses += 1
                    if result.failedProcesses <= 3 {
                        let said = (outcome.stderr + outcome.stdout).split(separator: "\n").filter { !$0.hasPrefix("imported") }.prefix(3)
                        progress("  round \(round): `yiana \(command.prefix(2).joined(separator: " "))` exited \(outcome.status): \(said.joined(separator: " | "))")
                    }
                }
            }
            var findings = await Checks.afterRun(libraries: libraries, root: root, before: before)
            let everyTag = Checks.tagsInEveryVersion(under: root)
            for (tag, outcome) in zip(tags, outcomes.suffix(editors)) {
                for edited in Checks.editedPaths(outcome.stdout) where !everyTag.contains(tag) {
                    findings.lost.append("the edit \(tag) of \(edited)")
                }
            }
            result.editsChecked += tags.count
            result.tally.record(findings, "round \(round)")
            // The index opens, a following `yiana index` finishes, and every document is found.
            let update = try runner.run(["index", "--library", lib, "--index", index])
            var indexProblem: String? = update.signal == nil && update.status == 0 ? nil : "`yiana index` after the round exits \(update.status): \(update.stderr.prefix(300))"
            for word in words where indexProblem == nil {
                let found = try runner.run(["search", "--library", lib, "--index", index, word])
                if found.status != 0 { indexProblem = "\"\(word)\" is not found after the round (exit \(found.status))" }
            }
            if let indexProblem {
                result.tally.indexProblems += 1
                result.tally.fail("round \(round): \(indexProblem)")
            }
        }
        return result
    }

    /// The library every round starts from: a cloud, evicted documents, conflict copies, an
    /// index, and folders of PDFs to import (two of them into the same library at once).
    private func buildStart(_ context: Context, lib: String, index: String) throws {
        try context.folder("lib")
        try runner.must(["cloud", "init", "--library", lib, "--device", "a", context.path("cloud")])
        try context.importPDFs(["k1", "k2", "k3", "k4", "k5", "kbig"], into: "lib", big: ["kbig"])
        try runner.must(["sync", "--library", lib])
        try runner.must(["evict", "--library", lib, "k5", "kbig"])
        for name in ["k1", "k2"] {
            let copy = "lib/\(name) (Bob's conflicted copy 2026-03-01).yianazip"
            try FileManager.default.copyItem(at: context.url("lib/\(name).yianazip"), to: context.url(copy))
            try context.edit(copy) { $0.tags = ["bob"] }
        }
        try runner.must(["index", "--library", lib, "--index", index])
        for name in ["n1", "n2", "n3", "shared1", "shared2"] { try context.pdf(name, in: "in1", big: name == "n3") }
        for name in ["m1", "shared1", "shared2"] { try context.pdf(name, in: "in2") }
    }

    /// Runs every command of `batch` at once, each after its small delay.
    private func runAtOnce(_ batch: [[String]], delays: [Double]) async throws -> [Outcome] {
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            for (i, command) in batch.enumerated() {
                let runner = self.runner, delay = delays[i]
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
                    return (i, try runner.run(command))
                }
            }
            var outcomes: [(Int, Outcome)] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes.sorted { $0.0 < $1.0 }.map(\.1)
        }
    }
}

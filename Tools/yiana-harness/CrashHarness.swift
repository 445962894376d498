import Foundation
import YianaLibrary
import YianaSystem

/// One line of the table: what happened to one write path.
struct PathResult {
    let name: String
    var runs = 0
    var killsAtCall = 0
    var killsAtTime = 0
    var faults: [String: Int] = [:]
    var temps = 0
    /// Temporary files `yiana repair --remove-temps` removed after the rerun.
    var tempsRemoved = 0
    var recovered = 0
    var tally = Tally()

    var kills: Int { killsAtCall + killsAtTime }
    var faultCount: Int { faults.values.reduce(0, +) }
    var failed: Bool { tally.failed || recovered < runs }
}

/// Runs each write path many times, killing it with SIGKILL at random moments and injecting
/// I/O faults at random calls, and checks after every run that nothing is damaged or lost.
struct CrashHarness {
    let runner: Runner
    let work: URL
    let samples: URL
    var random: SeededGenerator
    /// Per path: at least this many kills that landed, and this many faults injected.
    let kills: Int
    let faults: Int
    let progress: (String) -> Void

    var root: URL { work.appendingPathComponent("run") }

    /// Copies `template` to the run folder.
    func reset(from template: URL) throws {
        try? FileManager.default.removeItem(at: root)
        try runner.copyTree(template, to: root)
    }

    mutating func run(_ scenario: Scenario) async throws -> PathResult {
        var result = PathResult(name: scenario.name)
        // The starting state is built at the run folder's own path (a cloud attachment
        // records its store's absolute path), then kept as the template.
        try? FileManager.default.removeItem(at: root)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let arguments = try scenario.build(Context(runner: runner, root: root, samples: samples))
        let template = work.appendingPathComponent("template-\(scenario.name.replacingOccurrences(of: " ", with: "-"))")
        try? FileManager.default.removeItem(at: template)
        try runner.copyTree(root, to: template)
        let libraries = scenario.libraries.map { root.appendingPathComponent($0) }
        let before = Checks.documents(in: libraries, root: root)

        // Calibration: a clean run, counting the calls the shim could fault.
        let log = work.appendingPathComponent("shim.log").path
        try? FileManager.default.removeItem(atPath: log)
        let clean = try runner.run(arguments, injection: Runner.Injection(root: root.path, log: log))
        let calls = ShimLog(path: log).calls.max() ?? 0
        guard clean.signal == nil, calls > 0 else { throw HarnessError("\(scenario.name): the clean run failed (\(clean.stderr))") }
        let afterClean = await Checks.afterRun(libraries: libraries, root: root, before: before)
        guard afterClean.clean else { throw HarnessError("\(scenario.name): the clean run fails the checks: \(afterClean.summary)") }
        if let problem = scenario.finished?(libraries[0]) { throw HarnessError("\(scenario.name): after the clean run: \(problem)") }
        progress("\(scenario.name): clean run exits \(clean.status) in \(String(format: "%.2f", clean.seconds)) s with \(calls) I/O calls on its files")

        let kinds = ["eio", "enospc", "short"]
        var attempt = 0
        while (result.kills < kills || result.faultCount < faults) && attempt < 4 * (kills + faults) + 8 {
            attempt += 1
            try reset(from: template)
            try? FileManager.default.removeItem(atPath: log)
            let wantKill = result.kills < kills && (result.faultCount >= faults || attempt % 2 == 1)
            var outcome: Outcome
            var description: String
            if wantKill && attempt % 4 == 1 {
                // SIGKILL at a random moment of the run, from outside.
                let moment = Double.random(in: 0...(clean.seconds * 1.1), using: &random)
                description = "killed at \(String(format: "%.3f", moment)) s"
                outcome = try runner.run(arguments, killAfter: moment)
                if outcome.signal == Sys.killSignal { result.killsAtTime += 1 }
            } else if wantKill {
                // SIGKILL just before a random one of its I/O calls.
                let at = Int.random(in: 1...calls, using: &random)
                description = "killed at I/O call \(at)"
                outcome = try runner.run(arguments, injection: Runner.Injection(root: root.path, at: at, kind: "kill", log: log))
                if outcome.signal == Sys.killSignal, !ShimLog(path: log).faults.isEmpty { result.killsAtCall += 1 }
            } else {
                let at = Int.random(in: 1...calls, using: &random)
                let kind = kinds[Int.random(in: 0..<kinds.count, using: &random)]
                let sticky = kind == "enospc" && Bool.random(using: &random)
                description = "\(kind)\(sticky ? " (disk stays full)" : "") at I/O call \(at)"
                outcome = try runner.run(arguments, injection: Runner.Injection(root: root.path, at: at, kind: kind, sticky: sticky, log: log))
                if let fault = ShimLog(path: log).faults.first {
                    result.faults[fault.kind, default: 0] += 1
                    description += " (\(fault.call))"
                }
            }
            result.runs += 1
            if let signal = outcome.signal, signal != Sys.killSignal || !wantKill {
                result.tally.crashes += 1
                result.tally.fail("\(description): the process died of signal \(signal): \(outcome.stderr.suffix(600))")
            }

            var findings = await Checks.afterRun(libraries: libraries, root: root, before: before)
            result.temps += findings.temps
            if !scenario.indexWords.isEmpty, let problem = try indexCheck(library: libraries[0], arguments: arguments, words: scenario.indexWords) {
                result.tally.indexProblems += 1
                findings.other.append(problem)
            }
            result.tally.record(findings, description)

            try await recover(arguments, libraries: libraries, before: before, clean: clean, after: description,
                              finished: scenario.finished, mayFindItDone: scenario.rerunMayFindItDone, into: &result)
        }
        return result
    }

    /// Recovery: the same command again, with no faults, must finish the job; then
    /// `yiana repair --remove-temps` must clear every leftover temporary file (keeping its
    /// bytes: the check that nothing is lost runs after it).
    private func recover(_ arguments: [String], libraries: [URL], before: [String: String], clean: Outcome, after description: String,
                         finished: ((URL) -> String?)?, mayFindItDone: Bool, into result: inout PathResult) async throws {
        let again = try runner.run(arguments)
        var recovered = await Checks.afterRun(libraries: libraries, root: root, before: before)
        let leftTemps = recovered.temps > 0
        var cleanup: [String] = []
        if leftTemps {
            let count = recovered.temps
            for library in libraries {
                let temps = recovered.tempFiles.filter { $0.path.hasPrefix(library.path + "/") }
                guard !temps.isEmpty else { continue }
                let removal = try runner.run(["repair", "--remove-temps", "--library", library.path] + temps.map(\.path))
                if removal.signal != nil || removal.status != 0 {
                    cleanup.append("repair --remove-temps exited \(removal.status): \(removal.stderr.suffix(300))")
                }
            }
            recovered = await Checks.afterRun(libraries: libraries, root: root, before: before)
            result.tempsRemoved += count - recovered.temps
            if recovered.temps > 0 { cleanup.append("\(recovered.temps) temporary files left after repair --remove-temps") }
        }
        if let problem = finished?(libraries[0]) { cleanup.append("the job is not finished: \(problem)") }
        let foundDone = mayFindItDone && again.status == 1 && finished != nil
        if again.signal == nil, again.status == clean.status || ((leftTemps || foundDone) && again.status == 1), recovered.clean, cleanup.isEmpty {
            result.recovered += 1
        } else {
            result.tally.fail("\(description), then a clean run: exit \(again.status) (clean run: \(clean.status)); \(recovered.summary) \(cleanup.joined(separator: "; ")) \(again.stderr.suffix(400))")
        }
    }

    /// After a run on the index: it opens, a following `yiana index` brings it up to date,
    /// and every document is found by its word.
    func indexCheck(library: URL, arguments: [String], words: [String]) throws -> String? {
        let index = arguments[arguments.firstIndex(of: "--index")! + 1]
        let opens = try runner.run(["search", "--library", library.path, "--index", index, words[0]])
        guard opens.signal == nil, opens.status == 0 || opens.status == 1 else {
            return "the index does not open after the run (exit \(opens.status)): \(opens.stderr.prefix(300))"
        }
        let update = try runner.run(arguments)
        guard update.signal == nil, update.status == 0 else {
            return "`yiana index` after the run exits \(update.status): \(update.stderr.prefix(300))"
        }
        for word in words {
            let found = try runner.run(["search", "--library", library.path, "--index", index, word])
            if found.status != 0 { return "after `yiana index`, \"\(word)\" is not found (exit \(found.status))" }
        }
        return nil
    }
}

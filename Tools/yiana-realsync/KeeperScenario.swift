import Foundation
import YianaLibrary

/// Nothing lost, whoever deletes: device b deletes documents, overwrites some with random
/// bytes and one with zero bytes, and edits one; the sync program carries all of it to a,
/// where `yiana watch` runs. On a, every deleted and overwritten document must be listed
/// (`versions list --deleted`) and brought back byte for byte (`versions restore --deleted
/// --since`), the restores must reach b, b's edit must survive, and verify must be clean on
/// both. One more deletion is made while no watcher runs: the last `index` run saw it, so it
/// must be recoverable too. The mass-loss alarm must be raised on a, and lowered by the restore.
struct KeeperScenario {
    let base: Scenario

    struct Result: Codable {
        var program = ""
        var documents = 0
        /// Deleted, overwritten with random bytes, with zero bytes, on b.
        var deleted: [String] = []
        var overwritten: [String] = []
        /// What `versions list --deleted` on a listed, and how long after the sync it took.
        var listed: [String] = []
        var secondsToList = 0.0
        var alarmRaised = false
        var alarmLowered = false
        /// Documents restored on a whose bytes are those seen before (SHA-256), and on b after the sync.
        var restoredIdentical = [0, 0]
        /// The deletion made while no watcher ran, recovered.
        var unwatchedRecovered = false
        var editKept = false
        var converged = false
        var verifyClean = [false, false]
        var travelled: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: base)
        let a = base.a, b = base.b
        func sync() async throws { try await trip.sync(program) }
        try base.yiana(["import", "--library", a.path, base.samples.appendingPathComponent("pdfs").path], allowed: [0, 1])
        try base.yiana(["import", "--library", a.path, "--into", "Scans", base.samples.appendingPathComponent("scans").path], allowed: [0, 1])
        try base.yiana(["index", "--library", a.path])
        try await sync()
        let documents = Tree.files(b).filter { !$0.hasPrefix(".") && $0.hasSuffix(".yianazip") }.sorted()
        result.documents = documents.count
        let originals = Dictionary(uniqueKeysWithValues: try documents.map { ($0, Tree.sha(try Data(contentsOf: a.appendingPathComponent($0)))) })
        guard documents.count >= 6 else {
            result.problems.append("only \(documents.count) documents to work with")
            return result
        }

        let watcher = try await watch(a)
        defer { if watcher.isRunning { watcher.terminate(); watcher.waitUntilExit() } }

        let since = Date()
        let edited = try damage(documents, on: b, into: &result)
        try await sync()
        let arrived = Date()

        // a: listed once the watcher has seen what arrived.
        let lost = Set(result.deleted + result.overwritten)
        while Date().timeIntervalSince(arrived) < 60 {
            let listing = Scenario.array(try base.yiana(["versions", "list", "--deleted", "--json", "--library", a.path]).stdout)
            result.listed = listing.compactMap { $0["path"] as? String }.sorted()
            if Set(result.listed) == lost { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        result.secondsToList = Date().timeIntervalSince(arrived)
        result.alarmRaised = try base.shell.run(base.yiana, ["status", "--library", a.path]).status == 3
        watcher.terminate()
        watcher.waitUntilExit()

        // A deletion while no watcher runs, of a document the last index run saw.
        let unwatched = documents[6 % documents.count]
        if !lost.contains(unwatched), unwatched != edited {
            try FileManager.default.removeItem(at: a.appendingPathComponent(unwatched))
            try base.yiana(["index", "--library", a.path], allowed: [0, 1])  // 1: the overwritten documents are damaged
        }

        try base.yiana(["versions", "restore", "--deleted", "--since", ISO8601DateFormatter().string(from: since.addingTimeInterval(-1)), "--library", a.path])
        let recovered = Scenario.array(try base.yiana(["versions", "list", "--deleted", "--json", "--library", a.path]).stdout)
        if !lost.contains(unwatched), unwatched != edited {
            // Deleted after `since`: restored with the rest.
            let back = (try? Data(contentsOf: a.appendingPathComponent(unwatched))).map(Tree.sha)
            result.unwatchedRecovered = back != nil && back == originals[unwatched]
        }
        let statusAfter = try base.shell.run(base.yiana, ["status", "--library", a.path]).status
        result.alarmLowered = recovered.isEmpty && statusAfter == 0
        try await sync()
        try await sync()

        for (index, root) in [a, b].enumerated() {
            result.restoredIdentical[index] = lost.filter { path in
                (try? Data(contentsOf: root.appendingPathComponent(path))).map(Tree.sha) == originals[path]
            }.count
            result.verifyClean[index] = try base.shell.run(base.yiana, ["verify", "--library", root.path]).status == 0
        }
        let info = Scenario.object(try base.yiana(["info", "--library", b.path, "--json", String(edited.dropLast(".yianazip".count))]).stdout)
        result.editKept = (info["metadata"] as? [String: Any])?["title"] as? String == "Edited on b"
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        trip.finish(&result)

        judge(&result, lost: lost, unwatchedChecked: !lost.contains(unwatched) && unwatched != edited)
        return result
    }

    /// `yiana watch` on `library`, as a service would run it, past its first pass.
    private func watch(_ library: URL) async throws -> Process {
        let watcher = Process()
        watcher.executableURL = URL(fileURLWithPath: base.yiana)
        watcher.arguments = ["watch", "--library", library.path]
        watcher.environment = base.shell.environment
        watcher.standardOutput = FileHandle.nullDevice
        watcher.standardError = FileHandle.nullDevice
        try watcher.run()
        try await Task.sleep(nanoseconds: 1_500_000_000)
        return watcher
    }

    /// On b: two deletions, two overwrites with random bytes (written beside and renamed, as
    /// programs save), one with zero bytes, and one edit (whose document it returns).
    private func damage(_ documents: [String], on b: URL, into result: inout Result) throws -> String {
        result.deleted = Array(documents[0...1])
        result.overwritten = Array(documents[2...4])
        for path in result.deleted { try FileManager.default.removeItem(at: b.appendingPathComponent(path)) }
        for (index, path) in result.overwritten.enumerated() {
            let bytes = index == 2 ? Data() : Data((0..<5000).map { _ in UInt8.random(in: 0...255) })
            let temp = b.appendingPathComponent(path + ".new")
            try bytes.write(to: temp)
            _ = rename(temp.path, b.appendingPathComponent(path).path)
        }
        try base.yiana(["edit", "--library", b.path, "--title", "Edited on b", String(documents[5].dropLast(".yianazip".count))])
        return documents[5]
    }

    /// The problems `result` shows.
    private func judge(_ result: inout Result, lost: Set<String>, unwatchedChecked: Bool) {
        if Set(result.listed) != lost { result.problems.append("versions list --deleted on a listed \(result.listed), not \(lost.sorted())") }
        if !result.alarmRaised { result.problems.append("the mass-loss alarm was not raised on a (status did not exit 3)") }
        if !result.alarmLowered { result.problems.append("after the restore, documents are still listed as lost, or the alarm is still raised") }
        if result.restoredIdentical != [lost.count, lost.count] { result.problems.append("restored byte for byte on a and b: \(result.restoredIdentical) of \(lost.count)") }
        if unwatchedChecked, !result.unwatchedRecovered { result.problems.append("the deletion made while no watcher ran was not recovered") }
        if !result.editKept { result.problems.append("b's edit was lost") }
        if !result.converged { result.problems.append("the devices did not converge") }
        if result.verifyClean != [true, true] { result.problems.append("verify is not clean on both devices") }
    }
}

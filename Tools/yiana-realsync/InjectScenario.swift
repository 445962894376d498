import Foundation
import YianaLibrary

/// The same rendered letter dropped in `.letters/inject/` on both devices while they are
/// apart (the render service ran on each), and a second letter on one of them; `yiana inject`
/// on both, a real sync (which conflict-copies the document both changed), `yiana conflicts
/// resolve --strategy merge` on one (without `--now`), and two more syncs: each letter's pages
/// must be in the document exactly once on both devices.
struct InjectScenario {
    let base: Scenario
    static let document = "Flow control paper"
    static let letterID = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
    /// The second letter, dropped on device b alone.
    static let secondLetterID = "1b4e28ba-2fa1-41d2-883f-0016d3cca427"

    struct Result: Codable {
        var program = ""
        /// Appends `yiana inject` made, on both devices together.
        var appendsMade = 0
        /// Conflict copies of the document the program made.
        var documentCopiesMade = 0
        /// The document's pages on each device at the end, and what they should be.
        var pages = [0, 0]
        var expectedPages = 0
        var conflictCopiesLeft: [String] = []
        /// Documents on each device at the end: the one (no "(other PDF)" document beside it).
        var documents = [0, 0]
        var bytesNeeded = 0
        var bytesRetrievable = [0, 0]
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
        let doc = Self.document
        try base.yiana(["import", "--library", a.path, base.samples.appendingPathComponent("pdfs/\(doc).pdf").path])
        let imported = Scenario.object(try base.yiana(["info", "--library", a.path, "--json", doc]).stdout)
        let pagesBefore = (imported["metadata"] as? [String: Any])?["pageCount"] as? Int ?? 0
        try FileManager.default.createDirectory(at: a.appendingPathComponent(".letters/inject"), withIntermediateDirectories: true)
        try await sync()
        try await program.disconnect()
        let letter = base.samples.appendingPathComponent("pdfs/Filled form.pdf")
        let letterPages = 1
        let second = base.samples.appendingPathComponent("pdfs/Bank statement reminder.pdf")
        let secondPages = 2
        for root in [a, b] {
            let inject = root.appendingPathComponent(".letters/inject")
            try FileManager.default.createDirectory(at: inject, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: letter, to: inject.appendingPathComponent("\(doc)_\(Self.letterID).pdf"))
            if root == b { try FileManager.default.copyItem(at: second, to: inject.appendingPathComponent("\(doc)_\(Self.secondLetterID).pdf")) }
        }
        for root in [a, b] {
            let report = Scenario.object(try base.yiana(["inject", "--json", "--library", root.path]).stdout)
            result.appendsMade += (report["letters"] as? [[String: Any]] ?? []).filter { $0["outcome"] as? String == "appended" }.count
            try await Task.sleep(nanoseconds: 1_100_000_000)
        }
        try await program.reconnect()
        try await sync()

        // Every document file on either device before resolving, and the letter (each
        // device's inject copy was kept in its version store when appended).
        var before = Tree.contentHashes(a).union(Tree.contentHashes(b))
        before.insert(Tree.sha(try Data(contentsOf: letter)))
        before.insert(Tree.sha(try Data(contentsOf: second)))
        result.bytesNeeded = before.count
        result.documentCopiesMade = Tree.files(a).filter { ConflictName(fileName: ($0 as NSString).lastPathComponent).isSyncConflict && !$0.hasPrefix(".yiana/") }.count
        try base.yiana(["conflicts", "resolve", "--library", a.path, "--strategy", "merge", "--json"])
        try await sync()
        try await sync()

        result.expectedPages = pagesBefore + letterPages + secondPages
        for (index, root) in [a, b].enumerated() {
            let info = Scenario.object(try base.yiana(["info", "--library", root.path, "--json", doc]).stdout)
            result.pages[index] = (info["metadata"] as? [String: Any])?["pageCount"] as? Int ?? 0
            result.conflictCopiesLeft += Tree.files(root).filter { !$0.hasPrefix(".yiana/") && ConflictName(fileName: ($0 as NSString).lastPathComponent).isSyncConflict }
                .map { "\(index == 0 ? "a" : "b"): \($0)" }
            result.documents[index] = Tree.files(root).filter { !$0.hasPrefix(".") && $0.hasSuffix(".yianazip") }.count
            result.verifyClean[index] = try base.shell.run(base.yiana, ["verify", "--library", root.path]).status == 0
            let kept = try Tree.keptVersions(Library(root: root))
            result.bytesRetrievable[index] = before.filter { kept.contains($0) || Tree.holds(root, $0) }.count
        }
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        trip.finish(&result)
        if result.appendsMade != 3 { result.problems.append("yiana inject appended \(result.appendsMade) times on the two devices, not 3 (the letter on each, the second on b)") }
        if result.pages != [result.expectedPages, result.expectedPages] { result.problems.append("the document has \(result.pages) pages, not \(result.expectedPages) on both") }
        if result.documents != [1, 1] { result.problems.append("documents at the end: \(result.documents), not the one on each device") }
        if !result.conflictCopiesLeft.isEmpty { result.problems.append("conflict copies left: \(result.conflictCopiesLeft)") }
        if result.bytesRetrievable != [result.bytesNeeded, result.bytesNeeded] { result.problems.append("bytes retrievable \(result.bytesRetrievable) of \(result.bytesNeeded)") }
        if !result.converged { result.problems.append("the devices did not converge") }
        if result.verifyClean != [true, true] { result.problems.append("verify is not clean on both devices") }
        return result
    }
}

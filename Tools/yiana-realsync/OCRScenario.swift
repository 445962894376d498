import Foundation
import YianaLibrary

/// Both devices recognise the same scan while apart (two Linux machines each running
/// `yiana ocr`), then meet: the sync program conflict-copies the document and its results
/// files; `conflicts resolve --strategy merge` on one device, `yiana ocr --all` there settles
/// the results' copies, and they sync again.
struct OCRScenario {
    let base: Scenario
    static let document = "Clinic letter (scan)"

    struct Result: Codable {
        var program = ""
        var documentConflictGroups = 0
        var resultCopiesMade = 0
        var overruled: [String] = []
        var resultCopiesSettled = 0
        var conflictCopiesLeft: [String] = []
        var converged = false
        var verifyClean = [false, false]
        /// The document is done and its results files are those of the recognition it holds.
        var resultsMatch = [false, false]
        /// `yiana search` finds a word only the scan holds, on its page 1.
        var foundOnPage = [false, false]
        var travelled: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: base)
        let a = base.a, b = base.b
        func sync() async throws { try await trip.sync(program) }
        try base.yiana(["import", "--library", a.path, base.samples.appendingPathComponent("scans/\(Self.document).pdf").path])
        try await sync()
        try await program.disconnect()
        // On a, the document yiana imported there: no --now. On b, the sync program placed it
        // a moment ago: it is still arriving, and a person would wait; the scenario says --now.
        try base.yiana(["ocr", "--all", "--jobs", "1", "--library", a.path])
        try await Task.sleep(nanoseconds: 1_100_000_000)  // the two recognitions a second apart, as on two machines
        try base.yiana(["ocr", "--all", "--now", "--jobs", "1", "--library", b.path])
        try await program.reconnect()
        try await sync()

        let listed = Scenario.object(try base.yiana(["conflicts", "list", "--library", a.path, "--json"], allowed: [0, 1]).stdout)
        result.documentConflictGroups = (listed["groups"] as? [Any])?.count ?? 0
        result.resultCopiesMade = Self.conflictCopies(a).filter { $0.hasPrefix(".ocr_results/") }.count
        let resolved = Scenario.object(try base.yiana(["conflicts", "resolve", "--library", a.path, "--strategy", "merge", "--json"]).stdout)
        result.overruled = (resolved["resolutions"] as? [[String: Any]] ?? []).flatMap { $0["overruled"] as? [String] ?? [] }
        let settled = Scenario.object(try base.yiana(["ocr", "--all", "--json", "--library", a.path]).stdout)
        result.resultCopiesSettled = (settled["documents"] as? [[String: Any]] ?? []).reduce(0) { $0 + ($1["resultCopiesRemoved"] as? Int ?? 0) }
        try await sync()
        try await sync()  // a second round: nothing may be left to carry

        result.conflictCopiesLeft = Self.conflictCopies(a).map { "a: \($0)" } + Self.conflictCopies(b).map { "b: \($0)" }
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        for (index, root) in [a, b].enumerated() {
            result.verifyClean[index] = try base.shell.run(base.yiana, ["verify", "--library", root.path]).status == 0
            result.resultsMatch[index] = try resultsMatch(root)
            let index_ = base.shell.scratch.appendingPathComponent("index-\(index).sqlite").path
            try base.yiana(["index", "--library", root.path, "--index", index_])
            let hits = try base.shell.run(base.yiana, ["search", "--library", root.path, "--index", index_, "--json", "cholesterol"])
            let pages = (try? JSONSerialization.jsonObject(with: Data(hits.stdout.utf8)) as? [[String: Any]])?.first?["pages"] as? [[String: Any]]
            result.foundOnPage[index] = pages?.first?["number"] as? Int == 1
        }
        trip.finish(&result)

        if result.documentConflictGroups == 0 { result.problems.append("the sync program made no conflict of the document: the scenario did not happen") }
        if !result.overruled.isEmpty { result.problems.append("overruled: \(result.overruled)") }
        if result.resultCopiesSettled != result.resultCopiesMade { result.problems.append("\(result.resultCopiesMade) conflict copies of results files made, \(result.resultCopiesSettled) settled") }
        if !result.conflictCopiesLeft.isEmpty { result.problems.append("conflict copies left: \(result.conflictCopiesLeft)") }
        if !result.converged { result.problems.append("the devices did not converge") }
        if result.verifyClean != [true, true] { result.problems.append("verify is not clean on both devices") }
        if result.resultsMatch != [true, true] { result.problems.append("the results files are not those of the document's recognition on both devices") }
        if result.foundOnPage != [true, true] { result.problems.append("search does not find the scan's word on its page on both devices") }
        return result
    }

    /// Every conflict copy a sync program made in `root`: of documents, the toolkit's state and the results files.
    static func conflictCopies(_ root: URL) -> [String] {
        Tree.files(root).filter { !Tree.isSyncProgramsOwn($0) && ConflictName(fileName: ($0 as NSString).lastPathComponent).isSyncConflict }
    }

    /// The document is done, and its JSON and XML results record the time of its recognition.
    func resultsMatch(_ root: URL) throws -> Bool {
        let info = Scenario.object(try base.yiana(["info", "--library", root.path, "--json", Self.document]).stdout)
        let metadata = info["metadata"] as? [String: Any] ?? [:]
        guard metadata["ocrCompleted"] as? Bool == true, let seconds = metadata["ocrProcessedAt"] as? Double else { return false }
        let processed = Date(timeIntervalSinceReferenceDate: seconds)
        let json = root.appendingPathComponent(".ocr_results/\(Self.document).json")
        guard let data = FileManager.default.contents(atPath: json.path),
              let results = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let time = (results["processedAt"] as? String).flatMap({ ISO8601DateFormatter().date(from: $0) }) else { return false }
        let others = ["xml", "hocr"].allSatisfy { FileManager.default.fileExists(atPath: root.appendingPathComponent(".ocr_results/\(Self.document).\($0)").path) }
        return abs(time.timeIntervalSince(processed)) < 1 && others
    }
}

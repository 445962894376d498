import Crypto
import Foundation
import YianaLibrary

/// What a folder holds, for comparing two devices and for finding what must never travel.
enum Tree {
    /// Relative path → SHA-256 of every file but the sync program's own (its temporary
    /// files, `.stfolder`, `.stversions`): what both devices must agree on.
    static func documentsAndState(_ root: URL) -> [String: String] {
        var result: [String: String] = [:]
        for relative in files(root) where !isSyncProgramsOwn(relative) {
            if let data = FileManager.default.contents(atPath: root.appendingPathComponent(relative).path) {
                result[relative] = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
            }
        }
        return result
    }

    static func files(_ root: URL) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: root.path) else { return [] }
        var found: [String] = []
        while let relative = walker.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root.appendingPathComponent(relative).path, isDirectory: &isFolder), !isFolder.boolValue {
                found.append(relative)
            }
        }
        return found.sorted()
    }

    static func isSyncProgramsOwn(_ relative: String) -> Bool {
        relative.split(separator: "/").contains { part in
            guard let kind = LibraryScanner.foreign(String(part), isFolder: true)?.kind else { return false }
            return [.syncthingVersions, .syncthingMarker, .syncthingTemp, .unisonTemp].contains(kind)
        }
    }

    /// Files in the library the toolkit may write: documents, in `.yiana/` only each
    /// device's own logs and the content-addressed objects, and in `.ocr_results/` the app's
    /// results files (`.json`, `.xml`, `.hocr`, never a hidden temporary file). Anything else
    /// (a lock, a scratch file, a partial download, local state) would travel to the other device.
    static func notAllowed(_ root: URL) -> [String] {
        files(root).filter { relative in
            if isSyncProgramsOwn(relative) { return false }
            let parts = relative.split(separator: "/").map(String.init)
            // The app's own files (not their temporary files): they are the user's and travel.
            if let companion = CompanionFile.classify(relative), !companion.isTemp { return false }
            if parts.first == ".ocr_results", let name = parts.last, !parts.dropFirst().contains(where: { $0.hasPrefix(".") }) {
                return !["json", "xml", "hocr"].contains((name as NSString).pathExtension)
            }
            if parts.first == Library.stateFolderName {
                // The library's id (an index on a shared server keeps its rows under it), and a
                // sync program's copy of it when two machines made one apart.
                if parts.count == 2, parts[1].hasPrefix(LibraryIdentity.fileName) { return false }
                if parts.count == 4, parts[1] == "devices", LocalState.isDeviceID(parts[2]),
                   SharedState.Log(rawValue: parts[3]) != nil { return false }
                if parts.count == 5, parts[1] == "versions", parts[2] == "objects", parts[4].count == 64 { return false }
                return true
            }
            return LibraryScanner.documentName(of: parts.last ?? "") == nil || parts.contains { $0.hasPrefix(".") }
        }
    }

    static func sha(_ data: Data) -> String { SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined() }

    /// The SHA-256 of every file of the library but the toolkit's state and the sync
    /// program's own: what must stay retrievable.
    static func contentHashes(_ root: URL) -> Set<String> {
        Set(documentsAndState(root).filter { !$0.key.hasPrefix(Library.stateFolderName + "/") }.values)
    }

    /// The SHA-256 of every version the library's store holds.
    static func keptVersions(_ library: Library) throws -> Set<String> {
        let store = VersionStore(library: library)
        return Set(try store.records().compactMap { record in FileManager.default.contents(atPath: store.objectURL(record).path).map(sha) })
    }

    /// True when a file of the library now has these bytes (nothing to retrieve: it is there).
    static func holds(_ root: URL, _ hash: String) -> Bool {
        contentHashes(root).contains(hash)
    }

    /// Conflict copies a sync program made of the toolkit's own files.
    static func conflictCopiesOfState(_ root: URL) -> [String] {
        files(root).filter { $0.hasPrefix(Library.stateFolderName + "/") && ConflictName(fileName: ($0 as NSString).lastPathComponent).isSyncConflict }
    }
}

/// One run of the scenario: import, sync, edits on both devices while apart (a tag on one,
/// the title on the other), reconnect, `conflicts resolve --strategy merge`, sync again.
struct Scenario {
    let shell: Shell
    let yiana: String
    let samples: URL
    let a: URL, b: URL

    struct Result: Codable {
        var program = ""
        var bothEditsKept = false
        var mergedThreeWay = false
        var overruled: [String] = []
        var conflictGroupsBeforeResolve = 0
        var documentConflictCopiesLeft = 0
        var stateConflictCopiesLeft = 0
        var converged = false
        var verifyClean = [false, false]
        var versionsKept = 0
        var versionsListed = [0, 0]
        var versionBytesMissing = 0
        var travelled: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    @discardableResult
    func yiana(_ arguments: [String], allowed: Set<Int32> = [0]) throws -> Finished {
        try shell.must(yiana, arguments, allowed: allowed)
    }


    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: self)
        func sync() async throws { try await trip.sync(program) }
        let document = "Flow control paper"
        try yiana(["import", "--library", a.path, samples.appendingPathComponent("pdfs/Flow control paper.pdf").path,
                   samples.appendingPathComponent("pdfs/Bank statement reminder.pdf").path])
        try await sync()
        try await program.disconnect()
        try yiana(["edit", "--library", a.path, "--tag", "tax", document])
        try await Task.sleep(nanoseconds: 1_100_000_000)  // so that "newer" is a fact, not a tie
        try yiana(["edit", "--library", b.path, "--title", "Annual report", document])
        try await program.reconnect()
        try await sync()

        let listed = try yiana(["conflicts", "list", "--library", a.path, "--json"], allowed: [0, 1])
        result.conflictGroupsBeforeResolve = (Self.object(listed.stdout)["groups"] as? [Any])?.count ?? 0
        let resolved = try yiana(["conflicts", "resolve", "--library", a.path, "--strategy", "merge", "--json"])
        let resolutions = Self.object(resolved.stdout)["resolutions"] as? [[String: Any]] ?? []
        result.overruled = resolutions.flatMap { $0["overruled"] as? [String] ?? [] }
        let details = resolutions.flatMap { ($0["steps"] as? [[String: Any]] ?? []).compactMap { $0["detail"] as? String } }
        result.mergedThreeWay = !details.isEmpty && details.allSatisfy { !$0.contains("two-way") }
        try await sync()
        try await sync()  // a second round: nothing may be left to carry

        for root in [a, b] {
            let listing = try yiana(["conflicts", "list", "--library", root.path, "--json"], allowed: [0, 1])
            let report = Self.object(listing.stdout)
            let groups = report["groups"] as? [[String: Any]] ?? []
            result.documentConflictCopiesLeft += groups.reduce(0) { $0 + max(0, (($1["files"] as? [Any])?.count ?? 1) - 1) }
                + ((report["strayCopies"] as? [Any])?.count ?? 0)
            result.stateConflictCopiesLeft += Tree.conflictCopiesOfState(root).count
        }
        let kept = Tree.documentsAndState(a)
        result.converged = kept == Tree.documentsAndState(b)
        var bothKept = true
        for (index, root) in [a, b].enumerated() {
            let info = Self.object(try yiana(["info", "--library", root.path, "--json", document]).stdout)
            let metadata = info["metadata"] as? [String: Any] ?? [:]
            bothKept = bothKept && metadata["title"] as? String == "Annual report" && (metadata["tags"] as? [String] ?? []).contains("tax")
            result.verifyClean[index] = try shell.run(yiana, ["verify", "--library", root.path]).status == 0
            // The shared store's versions (the keeper's, this machine's own, are listed too, apart).
            let versions = Self.array(try yiana(["versions", "list", "--library", root.path, "--json", document]).stdout).filter { $0["keptHere"] == nil }
            result.versionsListed[index] = versions.count
            for version in versions {
                guard let sha = version["sha256"] as? String else { continue }
                let object = root.appendingPathComponent(".yiana/versions/objects/\(sha.prefix(2))/\(sha)")
                if !FileManager.default.fileExists(atPath: object.path) { result.versionBytesMissing += 1 }
            }
        }
        result.bothEditsKept = bothKept
        // Every version any device recorded, read straight from the logs on disk.
        var lines = Set<String>()
        for file in Tree.files(a) where file.hasPrefix(".yiana/devices/") && file.hasSuffix("/versions.jsonl") {
            let text = (try? String(contentsOf: a.appendingPathComponent(file), encoding: .utf8)) ?? ""
            lines.formUnion(text.split(separator: "\n").map(String.init).filter { $0.contains("\"originalPath\":\"Flow control paper") || $0.contains("Annual report") })
        }
        result.versionsKept = lines.count
        trip.finish(&result)

        if !result.bothEditsKept { result.problems.append("an edit was lost") }
        if !result.mergedThreeWay { result.problems.append("the merge was not three-way: \(details)") }
        if !result.overruled.isEmpty { result.problems.append("overruled: \(result.overruled)") }
        if result.conflictGroupsBeforeResolve == 0 { result.problems.append("the sync program made no conflict: the scenario did not happen") }
        if result.documentConflictCopiesLeft + result.stateConflictCopiesLeft > 0 { result.problems.append("conflict copies left") }
        if !result.converged { result.problems.append("the devices did not converge") }
        if result.verifyClean != [true, true] { result.problems.append("verify is not clean on both devices") }
        if result.versionsListed != [result.versionsKept, result.versionsKept] || result.versionsKept == 0 {
            result.problems.append("versions listed \(result.versionsListed), kept \(result.versionsKept)")
        }
        if result.versionBytesMissing > 0 { result.problems.append("\(result.versionBytesMissing) listed versions have no bytes") }
        return result
    }

    static func object(_ text: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? [:]
    }

    static func array(_ text: String) -> [[String: Any]] {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]]) ?? []
    }
}

/// One run of a scenario: its clock, and every sync, after which what travelled but must
/// stay on one machine (a lock, scratch, this machine's state) is noted on both devices.
struct Trip {
    let base: Scenario
    let started = Date()
    private(set) var travelled = Set<String>()

    init(base: Scenario) { self.base = base }

    var seconds: Double { Date().timeIntervalSince(started) }

    /// Waits until `program` has both devices in step, noting every file in either that must
    /// stay on one machine (``Tree/notAllowed(_:)``).
    mutating func sync(_ program: some SyncProgram) async throws {
        try await program.sync()
        for (side, root) in [("a", base.a), ("b", base.b)] { travelled.formUnion(Tree.notAllowed(root).map { "\(side): \($0)" }) }
    }

    /// What travelled and the time taken, in `result`; anything that travelled is a problem.
    func finish(_ result: inout some TravelResult) {
        result.travelled = travelled.sorted()
        result.seconds = seconds
        if !result.travelled.isEmpty { result.problems.append("files that must stay on one machine were in the library: \(result.travelled)") }
    }
}

/// A scenario's result that reports what travelled and the time taken.
protocol TravelResult: Outcome {
    var travelled: [String] { get set }
    var seconds: Double { get set }
    var problems: [String] { get set }
}

import Foundation
import YianaArchive
import YianaLibrary

/// `yiana rename`, `move` and `delete` under a real sync program: three documents imported on
/// a, synced, indexed on both; then a renames one (its file named as the app names it), moves
/// one into a new folder and deletes one. After syncing, b must hold the same files: the
/// renamed and moved documents byte for byte at their new paths, no copy left at the old ones,
/// nothing conflict-named. The deletion must be undoable on both devices: on a from its version
/// store (the delete kept it), on b from its keeper (its index had seen it); b's restore must
/// reach a, the same bytes.
struct OrganizeScenario {
    let base: Scenario
    static let renamed = "Bank statement reminder", moved = "Filled form", deleted = "Flow control paper"
    static let title = "Reminder from the bank", folder = "Forms"

    struct Result: Codable {
        var program = ""
        /// The renamed document's new path (a's), and whether b holds the same bytes there.
        var renamedTo = ""
        var renamedOnB = false
        var movedOnB = false
        /// Old paths still holding a file on a or b.
        var oldPathsLeft: [String] = []
        var deletedOnB = false
        /// Restorable after the deletion: on a (its version store), on b (its keeper).
        var restorable = [false, false]
        /// b's restore carried back to a, byte for byte.
        var restoredOnA = false
        var conflictCopiesLeft: [String] = []
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
        let pdfs = base.samples.appendingPathComponent("pdfs")
        try base.yiana(["import", "--library", a.path] + [Self.renamed, Self.moved, Self.deleted].map { pdfs.appendingPathComponent("\($0).pdf").path })
        try base.yiana(["index", "--library", a.path])
        try await sync()
        try base.yiana(["index", "--library", b.path])  // b's keeper sees every document
        let deletedBytes = try Data(contentsOf: a.appendingPathComponent("\(Self.deleted).yianazip"))

        try base.yiana(["rename", "--library", a.path, Self.renamed, Self.title])
        try base.yiana(["move", "--library", a.path, "--to", Self.folder, Self.moved])
        try base.yiana(["delete", "--library", a.path, Self.deleted])
        try await sync()
        try await sync()  // a second round: nothing may be left to carry

        let renamed = Tree.files(a).first { path in
            path.hasSuffix(".yianazip") && !path.hasPrefix(".") && (try? DocumentReader(path: a.appendingPathComponent(path).path).metadata().title) == Self.title
        }
        result.renamedTo = renamed ?? ""
        func same(_ path: String) -> Bool {
            guard let mine = FileManager.default.contents(atPath: a.appendingPathComponent(path).path) else { return false }
            return FileManager.default.contents(atPath: b.appendingPathComponent(path).path) == mine
        }
        result.renamedOnB = renamed.map(same) ?? false
        result.movedOnB = same("\(Self.folder)/\(Self.moved).yianazip")
        result.oldPathsLeft = [a, b].enumerated().flatMap { index, root in
            ["\(Self.renamed).yianazip", "\(Self.moved).yianazip"].filter { FileManager.default.fileExists(atPath: root.appendingPathComponent($0).path) }
                .map { "\(index == 0 ? "a" : "b"): \($0)" }
        }
        result.deletedOnB = !FileManager.default.fileExists(atPath: b.appendingPathComponent("\(Self.deleted).yianazip").path)

        // Undo on both sides: a's version store (the delete kept it first), b's keeper (seen by
        // b's index before the deletion arrived, noticed by the index run after it).
        try base.yiana(["index", "--library", b.path])
        for (index, root) in [a, b].enumerated() {
            let listed = Scenario.array(try base.yiana(["versions", "list", "--deleted", "--json", "--library", root.path]).stdout)
            result.restorable[index] = listed.contains { $0["path"] as? String == "\(Self.deleted).yianazip" }
        }
        try base.yiana(["versions", "restore", "--deleted", "--library", b.path])
        try await sync()
        try await sync()
        result.restoredOnA = FileManager.default.contents(atPath: a.appendingPathComponent("\(Self.deleted).yianazip").path) == deletedBytes

        result.conflictCopiesLeft = OCRScenario.conflictCopies(a).map { "a: \($0)" } + OCRScenario.conflictCopies(b).map { "b: \($0)" }
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        for (index, root) in [a, b].enumerated() {
            result.verifyClean[index] = try base.shell.run(base.yiana, ["verify", "--library", root.path]).status == 0
        }
        trip.finish(&result)

        if renamed == nil || renamed == "\(Self.renamed).yianazip" { result.problems.append("a: no file renamed for the title \(Self.title)") }
        if !result.renamedOnB { result.problems.append("b: the renamed document is not at \(result.renamedTo) as on a") }
        if !result.movedOnB { result.problems.append("b: the moved document is not in \(Self.folder)/ as on a") }
        if !result.oldPathsLeft.isEmpty { result.problems.append("left at the old paths: \(result.oldPathsLeft)") }
        if !result.deletedOnB { result.problems.append("b: the deletion did not arrive") }
        if result.restorable != [true, true] { result.problems.append("the deleted document restorable on a/b: \(result.restorable)") }
        if !result.restoredOnA { result.problems.append("b's restore did not bring the same bytes back to a") }
        if !result.conflictCopiesLeft.isEmpty { result.problems.append("conflict copies left: \(result.conflictCopiesLeft)") }
        if !result.converged { result.problems.append("the devices did not converge") }
        if result.verifyClean != [true, true] { result.problems.append("verify on a/b: \(result.verifyClean)") }
        return result
    }
}

extension OrganizeScenario.Result: TravelResult {
    var summary: String {
        let yes = { (value: Bool) in value ? "yes" : "NO" }
        return "\(program), rename, move and delete on a: renamed to \(renamedTo) on b \(yes(renamedOnB)); moved on b \(yes(movedOnB)); "
            + "old paths left \(oldPathsLeft.count); deletion arrived \(yes(deletedOnB)); restorable on a/b \(restorable.map(yes).joined(separator: "/")); "
            + "b's restore back on a \(yes(restoredOnA)); conflict copies left \(conflictCopiesLeft.count); converged \(yes(converged)); "
            + "verify \(verifyClean.map { $0 ? "clean" : "NOT clean" }.joined(separator: "/")); files that travelled but must not: \(travelled.count); "
            + "\(String(format: "%.1f", seconds)) s"
    }
}

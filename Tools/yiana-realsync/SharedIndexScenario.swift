import Foundation
import YianaLibrary
import YianaPostgres
import YianaSystem

/// Two devices, each running `yiana watch --index postgres://…` on its copy of one library,
/// into one database, while documents are added, edited, renamed and removed on both and the
/// sync program carries the changes across. At the end the library's rows in the database
/// must equal a fresh `yiana index` of either copy (into a second database): every document,
/// its title, tags, status, PDF and pages' text; and neither watcher may have logged an error.
struct SharedIndexScenario {
    let base: Scenario
    /// The database both watchers share, and an empty one for the fresh index.
    let shared: String, fresh: String

    struct Result: Codable {
        var program = ""
        /// Documents on each device at the end.
        var documents = [0, 0]
        var converged = false
        /// Rows of the shared index and of the fresh one.
        var indexedShared = 0, indexedFresh = 0
        var equalsFresh = false
        /// What differs between them (a path and what), when anything does.
        var differences: [String] = []
        /// Seconds from the last sync until the shared index equalled the fresh one.
        var secondsToSettle = 0.0
        var watcherErrors: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: base)
        let a = base.a, b = base.b
        func sync() async throws { try await trip.sync(program) }
        let pdfs = base.samples.appendingPathComponent("pdfs")
        try base.yiana(["import", "--library", a.path, pdfs.appendingPathComponent("Bank statement reminder.pdf").path,
                        pdfs.appendingPathComponent("Flow control paper.pdf").path, pdfs.appendingPathComponent("Filled form.pdf").path])
        // The first machine to index makes the library's id, which travels with it.
        try base.yiana(["index", "--library", a.path, "--index", shared])
        try await sync()
        let watchers = try [a, b].map { root in
            try base.shell.start(base.yiana, ["watch", "--library", root.path, "--index", shared, "--settle", "1", "--json"])
        }
        defer { watchers.forEach { $0.stop() } }
        Sys.sleep(seconds: 2)
        // Apart, then together: on each device something of every kind.
        try base.yiana(["import", "--library", a.path, pdfs.appendingPathComponent("Letter with scanned page.pdf").path])
        try base.yiana(["edit", "--library", b.path, "--title", "Flow control, revised", "Flow control paper"])
        try FileManager.default.moveItem(at: a.appendingPathComponent("Filled form.yianazip"), to: a.appendingPathComponent("Form, filled in.yianazip"))
        Sys.sleep(seconds: 3)
        try await sync()
        Sys.sleep(seconds: 3)
        try FileManager.default.removeItem(at: b.appendingPathComponent("Bank statement reminder.yianazip"))
        try base.yiana(["edit", "--library", a.path, "--tag", "archive", "Letter with scanned page"])
        try await sync()
        let synced = Date()
        result.converged = Tree.documentsAndState(a).filter { !$0.key.hasPrefix(".yiana/devices") } ==
            Tree.documentsAndState(b).filter { !$0.key.hasPrefix(".yiana/devices") }
        result.documents = [a, b].map { root in Tree.files(root).filter { LibraryScanner.documentName(of: ($0 as NSString).lastPathComponent) != nil && !$0.hasPrefix(".") }.count }

        // The fresh index of one copy, then the shared one until it is the same (the watchers
        // settle within seconds; a minute is the limit).
        try base.yiana(["index", "--library", a.path, "--index", fresh])
        let freshRows = try await Self.rows(fresh, library: a)
        var sharedRows: [String: String] = [:]
        while Date().timeIntervalSince(synced) < 60 {
            sharedRows = try await Self.rows(shared, library: a)
            if sharedRows == freshRows { break }
            Sys.sleep(seconds: 0.5)
        }
        result.secondsToSettle = Date().timeIntervalSince(synced)
        result.indexedShared = sharedRows.count
        result.indexedFresh = freshRows.count
        result.equalsFresh = sharedRows == freshRows
        for path in Set(sharedRows.keys).union(freshRows.keys).sorted() where sharedRows[path] != freshRows[path] {
            result.differences.append("\(path): shared \(sharedRows[path] ?? "missing") / fresh \(freshRows[path] ?? "missing")")
        }
        watchers.forEach { $0.stop() }
        for (name, watcher) in zip(["a", "b"], watchers) {
            let out = watcher.finish().stdout
            for line in out.split(separator: "\n") where line.contains("\"kind\":\"error\"") || line.contains("\"kind\" : \"error\"") {
                result.watcherErrors.append("\(name): \(line.prefix(300))")
            }
        }
        result.seconds = trip.seconds
        if !result.converged { result.problems.append("the two copies differ after syncing") }
        if !result.equalsFresh { result.problems.append("the shared index differs from a fresh index: \(result.differences.prefix(5))") }
        if freshRows.count != result.documents[0] { result.problems.append("the fresh index holds \(freshRows.count) documents, the library \(result.documents[0])") }
        if !result.watcherErrors.isEmpty { result.problems.append("a watcher logged errors: \(result.watcherErrors.prefix(3))") }
        return result
    }

    /// The library's documents in the index at `url`, by path: what a search can tell of each
    /// (title, tags, status, PDF, and every page's source and text), not which machine's file
    /// stamps it holds.
    static func rows(_ url: String, library root: URL) async throws -> [String: String] {
        try await IndexLocation.server(try PostgresLocation(url: url)).contents(of: try Library(root: root))
    }
}

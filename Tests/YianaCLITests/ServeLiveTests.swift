import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// What the pages follow without reloading, over `/events`: with no watcher running, the
/// server's own scan indexes an arrival (`changed`); a conflict copy raises the count in the
/// navigation (`conflicts`); a job's progress (`job`).
@Suite("yiana serve: live")
struct ServeLiveTests {
    /// A library of one document, indexed.
    static func indexedLibrary() async throws -> (TemporaryFolder, String) {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Filled form.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        return (home, lib)
    }

    @Test func anArrivalAConflictAndAJobAreHeardWithoutAWatcher() async throws {
        let (home, lib) = try await Self.indexedLibrary()
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let first = String(decoding: try await server.get("/").body, as: UTF8.self)
        #expect(first.contains(#"<span id="conflict-count" class="badge" hidden"#), "no conflict yet: \(first)")
        let port = server.base.port!

        // One connection, as a page's: the count it starts from is sent first (0); then the
        // files land as a sync program drops them, and the same connection must hear the count
        // rise and the index change. The count is taken again when the index changes (each of
        // the server's own scans, every 10 s while a page listens) or every 30 s; up to 90 s in
        // all: the server's own scan ran late while the whole suite loaded this 2-core VM.
        let library = URL(fileURLWithPath: lib)
        let listened = try await offPool { () -> (before: String, after: String, landed: String) in
            var landedAt: Int?
            var landed = "not yet: no first count heard"
            let text = try RawHTTP.stream(port: port, "/events", seconds: 90) { text in
                if landedAt == nil, text.contains("event: conflicts\ndata: 0\n") {
                    landedAt = text.utf8.count
                    do { try Self.dropAnArrivalAndAConflictCopy(in: library); landed = "yes" } catch { landed = "failed: \(error)" }
                }
                guard let at = landedAt else { return false }
                let after = String(decoding: text.utf8.dropFirst(at), as: UTF8.self)
                return landed != "yes" || (after.contains("event: conflicts\ndata: 1\n") && after.contains("event: changed"))
            }
            let at = landedAt ?? text.utf8.count
            return (String(decoding: text.utf8.prefix(at), as: UTF8.self), String(decoding: text.utf8.dropFirst(at), as: UTF8.self), landed)
        }
        #expect(listened.landed == "yes", "the first count was sent, and the files landed: \(listened.landed) \(listened.before)")
        #expect(listened.after.contains("event: conflicts\ndata: 1\n"), "the count in the navigation: \(listened.after)")
        #expect(listened.after.contains("event: changed"), "the server's own scan indexed the arrival: \(listened.after)")
        // A scan that began just before the arrival landed changes the index too (its last run)
        // without it: listened to again (the server scans while a page listens) until it is found.
        var found = false
        let deadline = Date().addingTimeInterval(60)
        while true {
            found = String(decoding: try await server.get("/?q=rhubarb").body, as: UTF8.self).contains("Allotment minutes")
            if found || Date() >= deadline { break }
            _ = try await offPool { try RawHTTP.stream(port: port, "/events", seconds: 12) { $0.contains("event: changed") } }
        }
        #expect(found, "the arrival is found once the page heard the index change")
        // A page drawn before the count moved, connecting after: it is told at once.
        let fresh = try await offPool { try RawHTTP.stream(port: port, "/events", seconds: 10) { $0.contains("event: conflicts\n") } }
        #expect(fresh.contains("event: conflicts\ndata: 1\n"), "\(fresh)")
        let page = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(page.contains(#"<span id="conflict-count" class="badge" aria-label="1 conflict copy">1</span>"#), "\(page)")

        // A job: its status is pushed as it moves, and once more when it ends.
        let token = try ServeJobTests.token(page)
        #expect(try await server.post("/jobs/start", form: ["kind": "index", "csrf": token]).status == 200)
        let job = try await offPool { try RawHTTP.stream(port: port, "/events", seconds: 10) { $0.contains(#""state":"done""#) } }
        #expect(job.contains("event: job\ndata: {") && job.contains(#""kind":"index""#) && job.contains(#""state":"done""#), "\(job)")
    }

    /// A new document and a conflict copy, dropped as a sync program would.
    static func dropAnArrivalAndAConflictCopy(in library: URL) throws {
        try CoordinatedDocument.create(at: library.appendingPathComponent("Allotment minutes.yianazip").path,
                                       metadata: DocumentMetadata(title: "Allotment minutes", pageCount: 1), pdf: .data(simplePDF(["rhubarb", "allotment"])))
        try FileManager.default.copyItem(at: library.appendingPathComponent("Filled form.yianazip"),
                                         to: library.appendingPathComponent("Filled form (Bob's conflicted copy 2026-11-26).yianazip"))
    }

    /// A read-only server writes nothing, its index included: no scan of its own.
    @Test func aReadOnlyServerDoesNotScan() async throws {
        let (home, lib) = try await Self.indexedLibrary()
        let server = try ServeCLITests.Server(library: lib, home: home, readOnly: true)
        defer { server.stop() }
        try CoordinatedDocument.create(at: home.path("Yiana/Allotment minutes.yianazip"), metadata: DocumentMetadata(title: "Allotment minutes", pageCount: 1),
                                       pdf: .data(simplePDF(["rhubarb"])))
        let port = server.base.port!
        let heard = try await offPool { try RawHTTP.stream(port: port, "/events", seconds: 4.5) { $0.contains("event: changed") } }
        #expect(!heard.contains("event: changed"), "\(heard)")
        #expect(!String(decoding: try await server.get("/?q=rhubarb").body, as: UTF8.self).contains("Allotment minutes"))
    }
}

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

        // Dropped as a sync program would, while a page listens.
        let library = URL(fileURLWithPath: lib)
        let arrival = Task.detached {
            try await Task.sleep(nanoseconds: 300_000_000)
            try CoordinatedDocument.create(at: library.appendingPathComponent("Allotment minutes.yianazip").path,
                                           metadata: DocumentMetadata(title: "Allotment minutes", pageCount: 1), pdf: .data(simplePDF(["rhubarb", "allotment"])))
            try FileManager.default.copyItem(at: library.appendingPathComponent("Filled form.yianazip"),
                                             to: library.appendingPathComponent("Filled form (Bob's conflicted copy 2026-11-26).yianazip"))
        }
        // Listened to until both are heard and the arrival is found: a scan that began just before the
        // arrival landed changes the index too (its last run) without it, so a page may hear `changed`
        // twice; the count of conflict copies is taken again when the index changes or every 30 s (so
        // it may come after the arrival is found: listened for on). Up to 90 s in all: the server's
        // own scan ran late while the whole suite loaded this 2-core VM.
        var heard = ""
        var found = false
        let deadline = Date().addingTimeInterval(90)
        repeat {
            let before = heard
            heard += try await offPool {
                try RawHTTP.stream(port: port, "/events", seconds: 12) { $0.contains("event: changed") && (before + $0).contains("event: conflicts\ndata: 1\n") }
            }
            found = String(decoding: try await server.get("/?q=rhubarb").body, as: UTF8.self).contains("Allotment minutes")
        } while !(found && heard.contains("event: conflicts\ndata: 1\n")) && Date() < deadline
        try await arrival.value
        #expect(heard.contains("event: conflicts\ndata: 1\n"), "the count in the navigation: \(heard)")
        #expect(heard.contains("event: changed"), "the server's own scan indexed the arrival: \(heard)")
        #expect(found, "the arrival is found once the page heard the index change: \(heard)")
        let page = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(page.contains(#"<span id="conflict-count" class="badge" aria-label="1 conflict copy">1</span>"#), "\(page)")

        // A job: its status is pushed as it moves, and once more when it ends.
        let token = try ServeJobTests.token(page)
        #expect(try await server.post("/jobs/start", form: ["kind": "index", "csrf": token]).status == 200)
        let job = try await offPool { try RawHTTP.stream(port: port, "/events", seconds: 10) { $0.contains(#""state":"done""#) } }
        #expect(job.contains("event: job\ndata: {") && job.contains(#""kind":"index""#) && job.contains(#""state":"done""#), "\(job)")
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

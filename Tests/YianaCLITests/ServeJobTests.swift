import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// The health page's buttons: a job run in the server on the commands' library code.
@Suite("yiana serve: jobs")
struct ServeJobTests {
    @Test func theRecogniseButtonMakesAScanSearchable() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("scans/Clinic letter (scan).pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let health = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(health.contains(">Recognise now</button>"), "\(health)")
        let token = try #require(health.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression).map { String(health[$0].suffix(65).dropLast()) })
        #expect(try await server.post("/jobs/start", form: ["kind": "burn", "csrf": token]).status == 400)
        #expect(try await server.post("/jobs/start", form: ["kind": "ocr", "csrf": "0"]).status == 403)
        #expect(try await server.post("/jobs/start", form: ["kind": "ocr", "csrf": token], origin: "http://evil.example").status == 403)
        let started = try await server.post("/jobs/start", form: ["kind": "ocr", "csrf": token])
        #expect(started.status == 200 && started.body.contains("Recognising the scans"))
        var state = ""
        for _ in 0..<300 where state != "done" {
            let jobs = try JSONSerialization.jsonObject(with: try await server.get("/api/jobs").body) as? [[String: Any]]
            state = jobs?.first?["state"] as? String ?? ""
            if state == "failed" { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(state == "done")
        let page = String(decoding: try await server.get("/jobs").body, as: UTF8.self)
        #expect(page.contains("Done: 1 recognised") && page.contains("yiana ocr --all"), "\(page)")
        let found = String(decoding: try await server.get("/?q=cholesterol").body, as: UTF8.self)
        #expect(found.contains("Clinic letter (scan)"), "the scan is searchable once recognised")
        #expect(try await server.post("/jobs/cancel", form: ["csrf": token]).status == 200, "nothing to cancel: the page says so")

        // A document that arrived unseen, indexed with the button; the server goes on searching.
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Filled form.pdf")], environment: env).status == 0)
        #expect(try await server.post("/jobs/start", form: ["kind": "index", "csrf": token]).status == 200)
        for _ in 0..<300 {
            let jobs = try JSONSerialization.jsonObject(with: try await server.get("/api/jobs").body) as? [[String: Any]]
            if jobs?.first?["state"] as? String != "running" { break }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        #expect(String(decoding: try await server.get("/?q=quellenhof").body, as: UTF8.self).contains("Filled form"))
        #expect(String(decoding: try await server.get("/?q=cholesterol").body, as: UTF8.self).contains("Clinic letter (scan)"))
    }

    /// Waits for the job to end; returns its status.
    static func finished(_ server: ServeCLITests.Server) async throws -> [String: Any] {
        for _ in 0..<300 {
            let jobs = try JSONSerialization.jsonObject(with: try await server.get("/api/jobs").body) as? [[String: Any]]
            if let job = jobs?.first, job["state"] as? String != "running" { return job }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return [:]
    }

    static func token(_ page: String) throws -> String {
        try #require(page.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression).map { String(page[$0].suffix(65).dropLast()) })
    }

    /// Repair from the pages: the dry run's plan first (nothing written by looking), then the
    /// job; a leftover temporary file put in place, or all of them put away; an evicted
    /// document downloaded; hostile forms refused with a 4xx.
    @Test func repairShowsThePlanFirstThenRepairsDownloadsAndTakesTemps() async throws {
        let home = try TemporaryFolder(), cloud = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Filled form.pdf"), Fixtures.sample("pdfs/Flow control paper.pdf"),
                                    Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        let library = URL(fileURLWithPath: lib)
        let good = try Data(contentsOf: library.appendingPathComponent("Filled form.yianazip"))
        // The end of its central directory lost: salvaged from the local headers.
        let damaged = library.appendingPathComponent("Damaged.yianazip")
        try good.dropLast(22).write(to: damaged)
        let temp = ".Filled form.yianazip.yiana-tmp-1A2B3C4D"
        try good.write(to: library.appendingPathComponent(temp))
        #expect(try await runYiana(["cloud", "init", "--library", lib, cloud.url.path, "--device", "laptop"], environment: env).status == 0)
        #expect(try await runYiana(["evict", "--library", lib, "Flow control paper"], environment: env).status == 0)
        _ = try await runYiana(["index", "--library", lib], environment: env)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }

        let health = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(health.contains(">Repair…</a>") && health.contains(">Review…</a>") && health.contains(">Download them</button>"), "\(health)")
        let token = try Self.token(health)
        let before = try Data(contentsOf: damaged)
        let plan = String(decoding: try await server.get("/repair").body, as: UTF8.self)
        #expect(plan.contains("<strong>Damaged.yianazip</strong>: would be repaired (salvage)") && plan.contains(">Put it in place</button>")
                && plan.contains(">Put them all away</button>") && plan.contains(">Repair 1 document</button>"), "\(plan)")
        #expect(try Data(contentsOf: damaged) == before, "looking at the plan writes nothing")
        let page = String(decoding: try await server.get("/doc?path=Damaged.yianazip").body, as: UTF8.self)
        #expect(page.contains("/repair?path=Damaged.yianazip"), "the document's page leads to its own plan: \(page)")
        let one = String(decoding: try await server.get("/repair?path=Damaged.yianazip").body, as: UTF8.self)
        #expect(one.contains(">Repair it</button>") && one.contains("name=\"path\" value=\"Damaged.yianazip\"") && !one.contains("Put them all away"), "\(one)")

        // Hostile forms: each a 4xx, nothing written.
        for fields in [["kind": "repair", "path": "../Yiana/Damaged.yianazip"], ["kind": "repair", "path": "Damaged.yianazip\u{0}"],
                       ["kind": "index", "path": "Damaged.yianazip"], ["kind": "download", "path": "Damaged.yianazip"], ["kind": "repair", "path": "/etc/passwd"]] {
            let answer = try await server.post("/jobs/start", form: fields.merging(["csrf": token]) { $1 })
            #expect((400..<500).contains(answer.status), "\(fields): \(answer.status)")
        }
        for name in ["../x", "Damaged.yianazip", "", ".Nothing.yianazip.yiana-tmp-00000000", String(repeating: "a", count: 5000)] {
            #expect(try await server.post("/repair/take-temp", form: ["name": name, "csrf": token]).status == 404, "\(name.prefix(40))")
        }
        #expect(try await server.post("/repair/take-temp", form: ["name": temp, "csrf": "0"]).status == 403)
        #expect(try Data(contentsOf: damaged) == before && FileManager.default.fileExists(atPath: library.appendingPathComponent(temp).path))

        #expect(try await server.post("/jobs/start", form: ["kind": "repair", "csrf": token]).status == 200)
        let repaired = try await Self.finished(server)
        #expect(repaired["state"] as? String == "done" && (repaired["details"] as? [String])?.first?.hasPrefix("Damaged.yianazip: repaired (salvage)") == true, "\(repaired)")
        #expect(try await runYiana(["verify", "--library", lib, "Damaged.yianazip"], environment: env).status == 0)

        let taken = try await server.post("/repair/take-temp", form: ["name": temp, "csrf": token])
        #expect(taken.status == 200 && taken.body.contains("put in place as Filled form.yianazip"), "\(taken.body)")
        #expect(!FileManager.default.fileExists(atPath: library.appendingPathComponent(temp).path))
        // Another one, put away with the rest (kept in the version store first).
        try good.write(to: library.appendingPathComponent(".Bank statement reminder.yianazip.yiana-tmp-5E6F7A8B"))
        #expect(try await server.post("/jobs/start", form: ["kind": "remove-temps", "csrf": token]).status == 200)
        let removed = try await Self.finished(server)
        #expect(removed["state"] as? String == "done" && (removed["message"] as? String)?.contains("1 temporary file put away") == true, "\(removed)")
        #expect(try await runYiana(["verify", "--library", lib], environment: env).stdout.contains("yiana-tmp") == false)

        #expect(try await server.post("/jobs/start", form: ["kind": "download", "csrf": token]).status == 200)
        let downloaded = try await Self.finished(server)
        #expect(downloaded["state"] as? String == "done" && downloaded["message"] as? String == "1 document downloaded", "\(downloaded)")
        #expect(FileManager.default.fileExists(atPath: library.appendingPathComponent("Flow control paper.yianazip").path))
        #expect(String(decoding: try await server.get("/?q=quellenhof").body, as: UTF8.self).contains("Filled form"), "the server serves on")
        // /api/jobs as the OpenAPI document says.
        let spec = try JSONSerialization.jsonObject(with: try await server.get("/api/openapi.json").body) as? [String: Any]
        let job = ((spec?["components"] as? [String: Any])?["schemas"] as? [String: Any])?["Job"] as? [String: Any]
        let described = Set((job?["properties"] as? [String: Any] ?? [:]).keys), required = Set(job?["required"] as? [String] ?? [])
        #expect(!required.isEmpty && required.isSubset(of: Set(downloaded.keys)) && Set(downloaded.keys).isSubset(of: described), "\(downloaded.keys)")
    }

    /// A document OCR failed on (its PDF unreadable) is tried again with the health page's
    /// button once a good version arrived, without waiting for the back-off.
    @Test func tryAgainRecognisesWhatFailedBefore() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "YIANA_SETTLE_SECONDS": "0"]
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let receipt = "\(lib)/Receipt.yianazip"
        try CoordinatedDocument.create(at: receipt, metadata: DocumentMetadata(title: "Receipt", pageCount: 1), pdf: .data(Data("%PDF-1.4\nnot a page".utf8)))
        #expect(try await runYiana(["ocr", "--library", lib, "--all"], environment: env).status == 1)
        let scan = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("scans/Hardware receipt (scan).pdf")))
        try CoordinatedDocument.replace(at: receipt, metadata: DocumentMetadata(title: "Receipt", pageCount: 1), pdf: .data(scan))
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let health = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(health.contains(">Try again now</button>") && health.contains("ocr-failed"), "\(health)")
        #expect(try await server.post("/jobs/start", form: ["kind": "ocr-retry", "path": "Receipt.yianazip", "csrf": try Self.token(health)]).status == 400,
                "the failures are tried again together")
        #expect(try await server.post("/jobs/start", form: ["kind": "ocr-retry", "csrf": try Self.token(health)]).status == 200)
        let job = try await Self.finished(server)
        #expect(job["state"] as? String == "done" && job["message"] as? String == "1 recognised", "\(job)")
        #expect(try DocumentReader(path: receipt).metadata().ocrCompleted)
        #expect(!String(decoding: try await server.get("/health").body, as: UTF8.self).contains("ocr-failed"), "the failure is cleared")
    }
}

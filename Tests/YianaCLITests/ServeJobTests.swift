import Foundation
import Testing
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
}

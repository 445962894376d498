import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// "Recently deleted" in `yiana serve`: a document deleted by another device is listed with
/// its first page drawn from the kept bytes, and put back by its button (token and origin
/// checked); the mass-loss alarm on the health page; `yiana status` exits 3 while it is raised.
@Suite("yiana serve: recently deleted", .serialized)
struct ServeDeletedTests {
    typealias Server = ServeCLITests.Server

    /// A library of two imported documents, with its own state and cache folders.
    func twoDocuments() async throws -> (TemporaryFolder, String, [String: String]) {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "YIANA_SETTLE_SECONDS": "0"]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf"), Fixtures.sample("pdfs/Filled form.pdf")],
                                   environment: env).status == 0)
        return (home, lib, env)
    }

    @Test func aDeletedDocumentIsListedPreviewedAndRestoredFromItsPage() async throws {
        let (home, lib, env) = try await twoDocuments()
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let url = URL(fileURLWithPath: home.path("Yiana/Flow control paper.yianazip"))
        let original = try Data(contentsOf: url)
        try FileManager.default.removeItem(at: url)  // as sync carries another device's deletion
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)

        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/deleted").body, as: UTF8.self)
        #expect(page.contains("Flow control paper.yianazip") && page.contains("deleted") && page.contains(">Restore</button>"), "\(page)")
        #expect(!page.contains("Filled form"))
        let id = try #require(page.range(of: #"name="version" value="([0-9a-f]{12})""#, options: .regularExpression).map { String(page[$0].dropFirst(22).dropLast()) })
        let token = try #require(page.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression).map { String(page[$0].dropFirst(19).dropLast()) })
        let preview = try await server.get("/deleted-image?path=Flow%20control%20paper.yianazip&version=\(id)&n=1&w=160")
        #expect(preview.status == 200 && preview.headers["content-type"] == "image/png")
        // Only what the page offers: a living document, another id, a path outside: 4xx.
        #expect(try await server.get("/deleted-image?path=Filled%20form.yianazip&version=\(id)").status == 404)
        #expect(try await server.get("/deleted-image?path=Flow%20control%20paper.yianazip&version=000000000000").status == 404)
        #expect(try await server.get("/deleted-image?path=..%2F..%2Fetc%2Fpasswd&version=\(id)").status == 404)
        #expect(try await server.post("/deleted/restore", form: ["path": "Flow control paper.yianazip", "version": id, "csrf": "0"]).status == 403)
        #expect(FileManager.default.fileExists(atPath: url.path) == false)

        let restored = try await server.post("/deleted/restore", form: ["path": "Flow control paper.yianazip", "version": id, "csrf": token])
        #expect(restored.status == 200 && restored.body.contains("Restored Flow control paper.yianazip"), "\(restored.body)")
        #expect(try Data(contentsOf: url) == original)
        let after = String(decoding: try await server.get("/deleted").body, as: UTF8.self)
        #expect(after.contains("Nothing lost"))
        // The index follows the restore, as after any write of the server's.
        let search = try JSONSerialization.jsonObject(with: try await server.get("/api/search?q=flow%20control").body) as? [String: Any]
        #expect((search?["hits"] as? [[String: Any]])?.first?["title"] as? String == "Flow control paper")
        #expect(try await server.post("/deleted/restore", form: ["path": "Flow control paper.yianazip", "version": id, "csrf": token]).status == 404)
    }

    /// Deleted while no watcher ran and before any other pass (no index at all): listed at
    /// once by `versions list --deleted` and on the page, and restorable; a document renamed
    /// meanwhile is not lost.
    @Test func aDocumentDeletedWithNoWatcherIsListedAtOnce() async throws {
        let (home, lib, env) = try await twoDocuments()
        let url = URL(fileURLWithPath: lib + "/Flow control paper.yianazip")
        let original = try Data(contentsOf: url)
        try FileManager.default.removeItem(at: url)
        try FileManager.default.moveItem(atPath: lib + "/Filled form.yianazip", toPath: lib + "/Form, renamed.yianazip")

        let listed = try await runYiana(["versions", "list", "--deleted", "--json", "--library", lib], environment: env)
        let lost = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stdout)\(listed.stderr)")
        #expect(lost.map { $0["path"] as? String } == ["Flow control paper.yianazip"])
        #expect(lost.first?["how"] as? String == "deleted" && (lost.first?["versions"] as? [Any])?.count == 1)

        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/deleted").body, as: UTF8.self)
        #expect(page.contains("Flow control paper.yianazip") && page.contains(">Restore</button>") && !page.contains("Form, renamed"), "\(page)")
        let id = try #require((lost.first?["versions"] as? [[String: Any]])?.first?["sha256"] as? String)
        #expect(try await runYiana(["versions", "restore", "--library", lib, "Flow control paper.yianazip", String(id.prefix(12))], environment: env).status == 0)
        #expect(try Data(contentsOf: url) == original)
        let after = try await runYiana(["versions", "list", "--deleted", "--library", lib], environment: env)
        #expect(after.stdout.contains("no documents lost"), "\(after.stdout)")
    }

    @Test func massLossIsOnTheHealthPageAndInStatus() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "YIANA_SETTLE_SECONDS": "0"]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sampleDocs.appendingPathComponent("pdfs").path], environment: env).status == 1)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let folder = lib + "/pdfs"
        let documents = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yianazip") }
        #expect(documents.count == 5)
        for name in documents { try FileManager.default.removeItem(atPath: folder + "/" + name) }  // a wiped device
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let status = try await runYiana(["status", "--library", lib], environment: env)
        #expect(status.status == 3 && status.stderr.contains("MASS LOSS: 5 of 5 documents"), "\(status.stdout)\(status.stderr)")
        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let health = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(health.contains("class=\"alarm\"") && health.contains("5 of 5 documents"), "\(health)")
        #expect(try await runYiana(["versions", "restore", "--deleted", "--library", lib], environment: env).status == 0)
        #expect(try await runYiana(["status", "--library", lib], environment: env).status == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".yianazip") }.count == 5)
    }
}

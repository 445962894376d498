import Foundation
import Testing
import YianaTestSupport

/// The server's kept search answers: repeated searches are answered from them, and a change of
/// the index (made by another process) is seen at once, not after the answers' lifetime.
@Suite("yiana serve: kept search answers", .serialized)
struct ServeSearchTests {
    @Test func aChangedIndexIsSeenAtOnce() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }

        func hits(_ path: String) async throws -> [String] {
            let answer = try #require(try JSONSerialization.jsonObject(with: try await server.get(path).body) as? [String: Any])
            return (answer["hits"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        }
        #expect(try await hits("/api/search?q=zebrafish").isEmpty)
        #expect(try await hits("/api/search?q=statement") == ["Bank statement reminder.yianazip"])
        // Asked again: the same answer (kept).
        #expect(try await hits("/api/search?q=zebrafish").isEmpty)

        // Another process adds a document and brings the index up to date (as `import` does):
        // the next search finds it, long before a kept answer would have expired.
        let pdf = home.path("Zebrafish.pdf")
        try simplePDF(["zebrafish husbandry statement"]).write(to: URL(fileURLWithPath: pdf))
        #expect(try runYiana(["import", "--library", lib, pdf], environment: env).status == 0)
        #expect(try await hits("/api/search?q=zebrafish") == ["Zebrafish.yianazip"])
        #expect(Set(try await hits("/api/search?q=statement")) == ["Bank statement reminder.yianazip", "Zebrafish.yianazip"])
        let fragment = String(decoding: try await server.get("/results?q=zebrafish").body, as: UTF8.self)
        #expect(fragment.contains("Zebrafish"))
    }
}

/// `yiana serve --watch`: the watcher in the server's process keeps the index current, so a
/// document a sync program brings is found without `yiana index`; both stop on SIGTERM.
@Suite("yiana serve --watch", .serialized)
struct ServeWatchTests {
    @Test func aDocumentSyncBringsIsFoundWithoutIndexing() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try runYiana(["index", "--library", lib], environment: env).status == 0)
        // Made elsewhere (another device's library), copied in as a sync program copies.
        let elsewhere = home.path("Elsewhere")
        let pdf = home.path("Okapi.pdf")
        try simplePDF(["okapi sightings in the garden"]).write(to: URL(fileURLWithPath: pdf))
        #expect(try runYiana(["import", "--library", elsewhere, pdf], environment: ["XDG_STATE_HOME": home.path("other-state"), "XDG_CACHE_HOME": home.path("other-cache")]).status == 0)

        let server = try ServeCLITests.Server(library: lib, home: home, options: ["--watch"])
        func hits(_ query: String) async throws -> [String] {
            let answer = try JSONSerialization.jsonObject(with: try await server.get("/api/search?q=\(query)").body) as? [String: Any]
            return (answer?["hits"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        }
        #expect(try await hits("okapi").isEmpty)
        try FileManager.default.copyItem(atPath: home.path("Elsewhere/Okapi.yianazip"), toPath: home.path("Yiana/Okapi.yianazip"))
        var found: [String] = []
        for _ in 0..<150 where found.isEmpty {
            found = try await hits("okapi")
            if found.isEmpty { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(found == ["Okapi.yianazip"])
        let health = try JSONSerialization.jsonObject(with: try await server.get("/api/health").body) as? [String: Any]
        #expect(health?["watcherRunning"] as? Bool == true, "\(String(describing: health))")
        server.process.terminate()
        server.process.waitUntilExit()
        #expect(server.process.terminationReason == .exit && server.process.terminationStatus == 0)
    }
}

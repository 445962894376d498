import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }

        func hits(_ path: String) async throws -> [String] {
            let answer = try #require(try JSONSerialization.jsonObject(with: try await server.get(path).body) as? [String: Any])
            return (answer["hits"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
        }
        #expect(try await hits("/api/search?q=zebrafish").isEmpty)
        #expect(try await hits("/api/search?q=statement") == ["Bank statement reminder.yianazip"])
        // As forms send them: "+" a space (two words, in any order), names and values
        // percent-decoded, "%2B" a plus.
        #expect(try await hits("/api/search?q=reminder+bank") == ["Bank statement reminder.yianazip"])
        #expect(try await hits("/api/search?%71=reminder%20bank") == ["Bank statement reminder.yianazip"])
        #expect(try await hits("/api/search?q=reminder%2Bbank").isEmpty)
        let boxes = try await server.get("/api/hits?path=Bank+statement+reminder.yianazip&n=1&q=statement")
        #expect(boxes.status == 200 && String(decoding: boxes.body, as: UTF8.self).contains("\"boxes\":[{"))
        // One library: it is at /, as /api/libraries says.
        let listed = try JSONSerialization.jsonObject(with: try await server.get("/api/libraries").body) as? [[String: String]]
        #expect(listed == [["name": "Yiana", "path": "/", "folder": lib]])
        // Asked again: the same answer (kept).
        #expect(try await hits("/api/search?q=zebrafish").isEmpty)

        // Another process adds a document and brings the index up to date (as `import` does):
        // the next search finds it, long before a kept answer would have expired.
        let pdf = home.path("Zebrafish.pdf")
        try simplePDF(["zebrafish husbandry statement"]).write(to: URL(fileURLWithPath: pdf))
        #expect(try await runYiana(["import", "--library", lib, pdf], environment: env).status == 0)
        #expect(try await hits("/api/search?q=zebrafish") == ["Zebrafish.yianazip"])
        #expect(Set(try await hits("/api/search?q=statement")) == ["Bank statement reminder.yianazip", "Zebrafish.yianazip"])
        let fragment = String(decoding: try await server.get("/results?q=zebrafish").body, as: UTF8.self)
        #expect(fragment.contains("Zebrafish"))
        // The page's date filter, shown again in its form.
        let later = String(decoding: try await server.get("/?q=zebrafish&since=2099-01-01").body, as: UTF8.self)
        #expect(later.contains("No document matches") && later.contains("name=\"since\" value=\"2099-01-01\""))
        #expect(String(decoding: try await server.get("/?q=zebrafish&until=2099-01-01").body, as: UTF8.self).contains("Zebrafish.yianazip"))
    }
}

/// Answers sized to what a page shows: a document's best pages and the count of the others,
/// which the results page links to and the API gives for one document (`path`, `pages`).
@Suite("yiana serve: a hit's pages")
struct ServeHitPagesTests {
    @Test func theBestPagesFirstAndTheOthersOnDemand() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        // "ledger" on 8 pages of 28 (on every page, its weight would be nil), most often on page 8.
        let pdf = home.path("Accounts.pdf")
        try pagedPDF((1...28).map { $0 <= 8 ? ["page \($0)"] + Array(repeating: "ledger line", count: $0) : ["page \($0)", "other business"] })
            .write(to: URL(fileURLWithPath: pdf))
        #expect(try await runYiana(["import", "--library", lib, pdf], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }

        func hit(_ path: String) async throws -> [String: Any] {
            let answer = try #require(try JSONSerialization.jsonObject(with: try await server.get(path).body) as? [String: Any])
            return try #require((answer["hits"] as? [[String: Any]])?.first)
        }
        let first = try await hit("/api/search?q=ledger")
        let pages = (first["pages"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int }
        #expect(pages == [8, 7, 6] && first["matchingPages"] as? Int == 8)
        let all = try await hit("/api/search?q=ledger&path=Accounts.yianazip&pages=50")
        #expect((all["pages"] as? [[String: Any]] ?? []).compactMap { $0["number"] as? Int } == [8, 7, 6, 5, 4, 3, 2, 1])
        #expect(try await server.get("/api/search?q=ledger&pages=0").status == 400)
        #expect(try await server.get("/api/search?q=ledger&pages=501").status == 400)
        // The results page: three pages, and a link to the five others.
        let page = String(decoding: try await server.get("/?q=ledger").body, as: UTF8.self)
        #expect(page.contains("5 more matching pages") && page.contains("path=Accounts.yianazip&amp;pages=8"))
        let more = String(decoding: try await server.get("/?q=ledger&path=Accounts.yianazip&pages=8").body, as: UTF8.self)
        #expect(more.contains("p. 1") && !more.contains("more matching page"))
    }
}

/// Searches at once, on the SQLite index and on a PostgreSQL one.
@Suite("yiana serve: searches at once", .serialized)
struct ServeConcurrentSearchTests {
    static func get(_ base: URL, _ path: String) async throws -> (status: Int, body: Data) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: path, relativeTo: base)!)
        return ((response as! HTTPURLResponse).statusCode, data)
    }

    /// Many searches at once, none of them kept (all different): every one answered. The
    /// SQLite index's async reads, mixed with the search's blocking ones on Swift's few shared
    /// threads, once left the server waiting on itself at the first burst.
    @Test func manySearchesAtOnceAreAllAnswered() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        _ = try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs")], environment: env)  // the encrypted sample is refused
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let words = ["statement", "balance", "flow", "control", "letter", "page", "bank", "form", "paper", "reminder"]
        let base = server.base
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for (n, word) in (0..<96).map({ ($0, words[$0 % words.count]) }) {
                group.addTask { try await Self.get(base, "/api/search?limit=\(n % 20 + 1)&q=\(word)").status }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 96 && statuses.allSatisfy { $0 == 200 }, "\(statuses)")
    }

    /// `yiana serve --index postgres://…`: the searches go to the database (a few connections
    /// shared).
    @Test func searchesOnAPostgreSQLIndex() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let postgres = try TestPostgres.shared()
        let url = postgres.url(database: try postgres.makeDatabase())
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "USER": "yiana"]
        _ = try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs")], environment: env)  // the encrypted sample is refused
        #expect(try await runYiana(["index", "--library", lib, "--index", url], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home, options: ["--index", url])
        defer { server.stop() }
        let base = server.base
        let statuses = try await withThrowingTaskGroup(of: (Int, Data).self) { group in
            for n in 0..<32 {
                group.addTask { try await Self.get(base, "/api/search?limit=\(n % 5 + 1)&q=statement") }
            }
            return try await group.reduce(into: [(Int, Data)]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0.0 == 200 })
        let answer = try #require(try JSONSerialization.jsonObject(with: try await server.get("/api/search?q=balance").body) as? [String: Any])
        #expect((answer["hits"] as? [[String: Any]])?.first?["path"] as? String == "pdfs/Bank statement reminder.yianazip")
        let page = String(decoding: try await server.get("/?q=balance").body, as: UTF8.self)
        #expect(page.contains("Bank statement reminder"))
        let health = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(health.contains("Index: 5 documents"), "\(health.prefix(2000))")
    }

    /// The PostgreSQL server goes down while searches are under way: a 503 naming it, `serve`
    /// goes on answering, and once the database is back every search is answered again (the
    /// connections cut under the searches in flight hold none of the pool's places).
    @Test func aPostgreSQLServerThatGoesAndComesBackIsServedAgain() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let postgres = try TestPostgres()  // its own: stopped and started
        let url = postgres.url()
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"), "USER": "yiana"]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib, "--index", url], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home, options: ["--index", url])
        defer { server.stop() }
        let base = server.base
        #expect(try await server.get("/api/search?q=balance").status == 200)

        // Eight clients searching all along; the database stops under them and starts again.
        let going = Flag(true)
        let load = Task {
            try await withThrowingTaskGroup(of: Set<Int>.self) { group in
                for client in 0..<8 {
                    group.addTask {
                        var seen: Set<Int> = []
                        var n = 0
                        while going.value {
                            n += 1
                            seen.insert(try await Self.get(base, "/api/search?q=balance&limit=\((client + n) % 20 + 1)").status)
                        }
                        return seen
                    }
                }
                return try await group.reduce(into: Set<Int>()) { $0.formUnion($1) }
            }
        }
        try await Task.sleep(for: .milliseconds(300))
        try await offPool { postgres.stop() }
        let down = try await server.get("/api/search?q=statement")
        #expect(down.status == 503 && String(decoding: down.body, as: UTF8.self).contains("PostgreSQL server"), "\(down.status)")
        #expect(try await server.get("/?q=statement").status == 200)  // the page says so, and serves
        try await offPool { try postgres.start() }
        try await Task.sleep(for: .milliseconds(500))
        going.value = false
        #expect(try await load.value.isSubset(of: [200, 503]))

        // Back: 32 at once, every one answered, within the searches' own time.
        let started = Date()
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<32 { group.addTask { try await Self.get(base, "/api/search?q=statement&limit=\(n % 20 + 1)").status } }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.allSatisfy { $0 == 200 }, "\(statuses)")
        #expect(Date().timeIntervalSince(started) < 10)
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
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        // Made elsewhere (another device's library), copied in as a sync program copies.
        let elsewhere = home.path("Elsewhere")
        let pdf = home.path("Okapi.pdf")
        try simplePDF(["okapi sightings in the garden"]).write(to: URL(fileURLWithPath: pdf))
        #expect(try await runYiana(["import", "--library", elsewhere, pdf], environment: ["XDG_STATE_HOME": home.path("other-state"), "XDG_CACHE_HOME": home.path("other-cache")]).status == 0)

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

/// Several libraries in one server: each under /NAME/ (its folder's name, unique), listed at /,
/// each with its own pages, index, links and changes; no path of one reaches another.
@Suite("yiana serve: several libraries", .serialized)
struct ServeLibrariesTests {
    @Test func eachLibraryIsServedUnderItsName() async throws {
        let home = try TemporaryFolder()
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        let libraries = [home.path("Home"), home.path("Clinic"), home.path("other/Home")]
        try FileManager.default.createDirectory(atPath: home.path("other"), withIntermediateDirectories: true)
        for (library, pdf) in zip(libraries, ["pdfs/Bank statement reminder.pdf", "pdfs/Flow control paper.pdf", "pdfs/Filled form.pdf"]) {
            #expect(try await runYiana(["import", "--library", library, Fixtures.sample(pdf)], environment: env).status == 0)
            #expect(try await runYiana(["index", "--library", library], environment: env).status == 0)
        }
        #expect(try await runYiana(["serve", "--library", libraries[0], "--library", libraries[1], "--index", home.path("x.sqlite")]).status == 2)
        let server = try ServeCLITests.Server(library: libraries[0], home: home, options: ["--library", libraries[1], "--library", libraries[2]])
        defer { server.stop() }
        func text(_ path: String) async throws -> (Int, String) {
            let answer = try await server.get(path)
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }

        let index = try await text("/")
        #expect(index.0 == 200 && index.1.contains("href=\"/Home/\"") && index.1.contains("href=\"/Clinic/\"") && index.1.contains("href=\"/Home-2/\""))
        let listed = try #require(try JSONSerialization.jsonObject(with: try await server.get("/api/libraries").body) as? [[String: Any]])
        #expect(listed.compactMap { $0["name"] as? String } == ["Home", "Clinic", "Home-2"])

        #expect(try await text("/Home/api/search?q=statement").1.contains("Bank statement reminder.yianazip"))
        #expect(!(try await text("/Clinic/api/search?q=statement").1.contains("Bank statement")))
        #expect(try await text("/Clinic/api/search?q=flow").1.contains("Flow control paper.yianazip"))
        let page = try await text("/Home/?q=statement")
        #expect(page.0 == 200 && page.1.contains("data-base=\"/Home\"") && page.1.contains("href=\"/Home/conflicts\"")
                && page.1.contains("/Home/doc?path=Bank%20statement%20reminder.yianazip") && page.1.contains("/Home/page-image?path="), "\(page.1)")
        #expect(try await text("/Home/results?q=statement").1.contains("Bank statement reminder"))
        #expect(try await text("/Home/doc?path=Bank%20statement%20reminder.yianazip").0 == 200)
        #expect(try await text("/Clinic/doc?path=Bank%20statement%20reminder.yianazip").0 == 404)
        #expect(try await text("/Home/doc?path=../Clinic/Flow%20control%20paper.yianazip").0 == 404)
        #expect(try await text("/Home-2/page-image?path=Filled%20form.yianazip&n=1&w=160").0 == 200)
        let style = try await text("/static/style.css"), nowhere = try await text("/Nowhere/api/search?q=a")
        #expect(style.0 == 200 && nowhere.0 == 404)
        // A change goes to the library it was asked of.
        let importPage = try await text("/Clinic/import")
        let token = try #require(importPage.1.range(of: #"data-csrf="[0-9a-f]{64}""#, options: .regularExpression).map { String(importPage.1[$0].dropFirst(11).dropLast()) })
        var request = URLRequest(url: URL(string: "/Clinic/import?folder=&name=Form.pdf", relativeTo: server.base)!)
        request.httpMethod = "POST"
        request.setValue(token, forHTTPHeaderField: "X-CSRF-Token")
        request.httpBody = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Filled form.pdf")))
        let (_, response) = try await URLSession.shared.data(for: request)
        #expect((response as! HTTPURLResponse).statusCode == 201)
        #expect(FileManager.default.fileExists(atPath: home.path("Clinic/Form.yianazip")) && !FileManager.default.fileExists(atPath: home.path("Home/Form.yianazip")))
        #expect(try await text("/Clinic/api/search?q=form").1.contains("Form.yianazip"))
    }
}

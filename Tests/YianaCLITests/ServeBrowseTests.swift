import Foundation
import Testing
import YianaTestSupport

/// The start page without a query, over HTTP: the listing, its parameters, and what it refuses.
@Suite("yiana serve: browsing")
struct ServeBrowseTests {
    @Test func theLibraryIsListedAndBadParametersAre400s() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, "--into", "Post", "--tag", "bank", Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Filled form.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        func page(_ path: String) async throws -> (Int, String) {
            let answer = try await server.get(path)
            return (answer.status, String(decoding: answer.body, as: UTF8.self))
        }
        let (status, start) = try await page("/")
        #expect(status == 200 && start.contains("2 documents") && start.contains(">Bank statement reminder</a>") && start.contains(">Filled form</a>"))
        #expect(start.contains(">Post</a> <span class=\"count\">1</span>") && start.contains(">bank</a> <span class=\"count\">1</span>"))
        let (_, inPost) = try await page("/?folder=Post&sort=title")
        #expect(inPost.contains("1 document in <strong>Post</strong>") && !inPost.contains(">Filled form</a>"))
        let (_, tagged) = try await page("/results?tag=BANK")
        #expect(tagged.contains("1 document tagged") && tagged.contains(">Bank statement reminder</a>"), "the script's results without a query list too")
        // A search sorted as the list is: the form says the order it used.
        let (_, byTitle) = try await page("/?q=r%2A&sort=title")
        let bank = try #require(byTitle.range(of: ">Bank statement reminder</a>")), form = try #require(byTitle.range(of: ">Filled form</a>"))
        #expect(bank.lowerBound < form.lowerBound && byTitle.contains("<option value=\"title\" selected>"), "\(byTitle)")
        let api = try JSONSerialization.jsonObject(with: try await server.get("/api/search?q=r%2A&sort=title").body) as? [String: Any]
        #expect((api?["hits"] as? [[String: Any]])?.compactMap { $0["title"] as? String } == ["Bank statement reminder", "Filled form"], "\(String(describing: api))")
        #expect(try await page("/?q=the&sort=relevance").0 == 200)
        #expect(try await page("/?sort=relevance").1.contains("2 documents"), "without a query, the list's own order")
        for bad in ["/?q=the&sort=size", "/api/search?q=the&sort=newest%00", "/?sort=size", "/?page=0", "/?page=x", "/?" + (0..<30).map { "tag=t\($0)" }.joined(separator: "&")] {
            #expect(try await page(bad).0 == 400, "\(bad)")
        }
        #expect(try await page("/?folder=%00&tag=%00").0 == 200)
        #expect(try await page("/?folder=../../etc").1.contains("0 documents"))
        #expect(try await page("/").0 == 200, "still serving")
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport

@Suite("yiana index and search")
struct SearchCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    func run(_ arguments: [String]) throws -> ProcessResult {
        try runYiana(arguments)
    }

    func makeLibrary(documents: Int = 0) throws -> (TemporaryFolder, TemporaryFolder) {
        let library = try TemporaryFolder(), cache = try TemporaryFolder()
        _ = try run(["import", "--library", library.url.path, "--tag", "sample", Fixtures.sample("pdfs")])
        for n in 0..<documents {
            try CoordinatedDocument.create(at: library.path("Note \(n).yianazip"), metadata: DocumentMetadata(title: "Note \(n)", pageCount: 1),
                                           pdf: .data(simplePDF(["note number \(n)", "shared words for every note"])))
        }
        return (library, cache)
    }

    @Test func indexThenSearchAsAPersonWould() async throws {
        let (library, cache) = try makeLibrary()
        let index = cache.path("i.sqlite")
        let first = try run(["index", "--library", library.url.path, "--index", index])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("5 documents in the index: 5 extracted"))
        #expect(first.stdout.contains("1 no-text-layer"))
        let problems = try run(["index", "--library", library.url.path, "--index", index, "--problems"])
        #expect(problems.stdout.contains("no-text-layer: pdfs/Noise pattern (image only, no words).yianazip"))
        #expect(problems.stdout.contains("0 extracted, 0 reused, 5 unchanged"))

        let text = try run(["search", "--library", library.url.path, "--index", index, "bank", "statement"])
        #expect(text.status == 0)
        #expect(text.stdout.hasPrefix("pdfs/Bank statement reminder.yianazip — Bank statement reminder"))
        let json = try run(["search", "--library", library.url.path, "--index", index, "--json", "--tag", "sample", "balance"])
        let hits = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(hits.first?["path"] as? String == "pdfs/Bank statement reminder.yianazip")
        let pages = try #require(hits.first?["pages"] as? [[String: Any]])
        #expect((pages.first?["snippet"] as? String)?.contains("**balance**") == true)

        let none = try run(["search", "--library", library.url.path, "--index", index, "zebra"])
        #expect(none.status == 1)
        for odd in ["\"", "AND (", "NEAR(x", "*", "title:"] {
            let result = try run(["search", "--library", library.url.path, "--index", index, odd])
            #expect(!result.stderr.contains("SQLite") && !result.stderr.contains("fts5"), "\(odd): \(result.stderr)")
            #expect(result.status == 0 || result.status == 1, "\(odd)")
        }
        #expect(try run(["search", "--library", library.url.path, "--index", index, "--since", "yesterday", "x"]).status == 2)
        #expect(try run(["search", "--library", library.url.path, "--index", index, "--since", "2026-02-30", "x"]).status == 2)
        // The documents were all made today: since a day long past, until then, and until tomorrow.
        let tomorrow = Date(timeIntervalSinceNow: 86_400).formatted(.iso8601.year().month().day().dateSeparator(.dash))
        #expect(try run(["search", "--library", library.url.path, "--index", index, "--since", "2001-01-01", "balance"]).status == 0)
        #expect(try run(["search", "--library", library.url.path, "--index", index, "--until", "2001-01-01", "balance"]).status == 1)
        #expect(try run(["search", "--library", library.url.path, "--index", index, "--until", tomorrow, "balance"]).status == 0)
    }

    @Test func searchWithoutAnIndexSaysWhatToDo() async throws {
        let (library, cache) = try makeLibrary()
        let result = try run(["search", "--library", library.url.path, "--index", cache.path("none.sqlite"), "bank"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("yiana index"))
    }

    /// Killed at any moment, the index opens afterwards and the next run completes it.
    @Test(arguments: [0.05, 0.2, 0.5])
    func aKilledIndexRunLeavesAUsableIndex(after seconds: Double) async throws {
        let (library, cache) = try makeLibrary(documents: 60)
        let index = cache.path("i.sqlite")
        let process = Process()
        process.executableURL = yiana
        process.arguments = ["index", "--library", library.url.path, "--index", index, "--jobs", "1"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        try await Task.sleep(for: .seconds(seconds))
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()

        if FileManager.default.fileExists(atPath: index) {
            let search = try run(["search", "--library", library.url.path, "--index", index, "note"])
            #expect(search.status == 0 || search.status == 1, "\(search.stderr)")
        }
        let again = try run(["index", "--library", library.url.path, "--index", index, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect((report["documents"] as? [Any])?.count == 65)
        let hits = try run(["search", "--library", library.url.path, "--index", index, "--json", "--limit", "100", "shared", "words"])
        #expect((try JSONSerialization.jsonObject(with: Data(hits.stdout.utf8)) as? [Any])?.count == 60)
    }
}

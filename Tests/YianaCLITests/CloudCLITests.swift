import Foundation
import Testing
import YianaTestSupport

@Suite("yiana cloud, evict, status, download")
struct CloudCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func evictStatusAndDownloadAsAPersonWould() async throws {
        let library = try TemporaryFolder(), cloud = try TemporaryFolder()
        let lib = library.url.path
        _ = try await runProcess(yiana, ["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")])
        #expect(try await runProcess(yiana, ["evict", "--library", lib, "Flow control paper"]).status == 1)  // not attached yet
        #expect(try await runProcess(yiana, ["cloud", "init", "--library", lib, cloud.url.path, "--device", "laptop"]).status == 0)
        #expect(try await runProcess(yiana, ["evict", "--library", lib, "Flow control paper"]).status == 0)
        let again = try await runProcess(yiana, ["evict", "--library", lib, "Flow control paper"])  // a rerun: done already
        #expect(again.status == 0 && again.stdout.contains("already evicted"))
        let status = try await runProcess(yiana, ["status", "--library", lib])
        #expect(status.stdout.contains("notDownloaded  Flow control paper.yianazip"))
        let info = try await runProcess(yiana, ["info", "--library", lib, "Flow control paper"])
        #expect(info.status == 1 && info.stderr.contains("not downloaded"))

        let failing = try await runProcess(yiana, ["download", "--library", lib, "--all", "--offline", "--attempts", "2"])
        #expect(failing.status == 1 && failing.stderr.contains("offline"))
        let download = try await runProcess(yiana, ["download", "--library", lib, "--all", "--flaky", "0.3", "--seed", "5", "--bandwidth", "1MB"])
        #expect(download.status == 0, "\(download.stderr)")
        let after = try await runProcess(yiana, ["status", "--library", lib, "--json"])
        #expect(after.stdout.contains("\"status\" : \"current\""))
        #expect(try await runProcess(yiana, ["download", "--library", lib]).status == 2)
    }

    /// `evict` and `download` report as every batch command does: `--json` names what was
    /// done and what failed, the batch goes on past a failure, and the exit code says so.
    @Test func evictAndDownloadReportAsJSON() async throws {
        let library = try TemporaryFolder(), cloud = try TemporaryFolder()
        let lib = library.url.path
        _ = try await runProcess(yiana, ["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf"), Fixtures.sample("pdfs/Filled form.pdf")])
        #expect(try await runProcess(yiana, ["cloud", "init", "--library", lib, cloud.url.path, "--device", "laptop"]).status == 0)

        struct Evicted: Decodable { let evicted: [String]; let alreadyEvicted: [String]; let failed: [Failure] }
        struct Downloaded: Decodable { struct Item: Decodable { let path: String; let attempts: Int }; let downloaded: [Item]; let failed: [Failure] }
        struct Failure: Decodable { let document: String; let error: String }

        let evict = try await runProcess(yiana, ["evict", "--json", "--library", lib, "Flow control paper", "No such thing", "Filled form"])
        #expect(evict.status == 1)
        let evicted = try JSONDecoder().decode(Evicted.self, from: Data(evict.stdout.utf8))
        #expect(evicted.evicted == ["Flow control paper.yianazip", "Filled form.yianazip"])
        #expect(evicted.failed.map(\.document) == ["No such thing"] && evicted.failed[0].error.contains("no document"))
        let rerun = try JSONDecoder().decode(Evicted.self, from: Data(try await runProcess(yiana, ["evict", "--json", "--library", lib, "Filled form"]).stdout.utf8))
        #expect(rerun.alreadyEvicted == ["Filled form.yianazip"] && rerun.evicted.isEmpty)

        let download = try await runProcess(yiana, ["download", "--json", "--library", lib, "--all", "--flaky", "0.5", "--seed", "3"])
        #expect(download.status == 0, "\(download.stderr)")
        let downloaded = try JSONDecoder().decode(Downloaded.self, from: Data(download.stdout.utf8))
        #expect(Set(downloaded.downloaded.map(\.path)) == ["Flow control paper.yianazip", "Filled form.yianazip"] && downloaded.failed.isEmpty)
        #expect(try await runProcess(yiana, ["verify", "--library", lib]).status == 0)
    }
}

import Foundation
import Testing
import YianaTestSupport

@Suite("yiana cloud, evict, status, download")
struct CloudCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func evictStatusAndDownloadAsAPersonWould() throws {
        let library = try TemporaryFolder(), cloud = try TemporaryFolder()
        let lib = library.url.path
        _ = try runProcess(yiana, ["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")])
        #expect(try runProcess(yiana, ["evict", "--library", lib, "Flow control paper"]).status == 1)  // not attached yet
        #expect(try runProcess(yiana, ["cloud", "init", "--library", lib, cloud.url.path, "--device", "laptop"]).status == 0)
        #expect(try runProcess(yiana, ["evict", "--library", lib, "Flow control paper"]).status == 0)
        let again = try runProcess(yiana, ["evict", "--library", lib, "Flow control paper"])  // a rerun: done already
        #expect(again.status == 0 && again.stdout.contains("already evicted"))
        let status = try runProcess(yiana, ["status", "--library", lib])
        #expect(status.stdout.contains("notDownloaded  Flow control paper.yianazip"))
        let info = try runProcess(yiana, ["info", "--library", lib, "Flow control paper"])
        #expect(info.status == 1 && info.stderr.contains("not downloaded"))

        let failing = try runProcess(yiana, ["download", "--library", lib, "--all", "--offline", "--attempts", "2"])
        #expect(failing.status == 1 && failing.stderr.contains("offline"))
        let download = try runProcess(yiana, ["download", "--library", lib, "--all", "--flaky", "0.3", "--seed", "5", "--bandwidth", "1MB"])
        #expect(download.status == 0, "\(download.stderr)")
        let after = try runProcess(yiana, ["status", "--library", lib, "--json"])
        #expect(after.stdout.contains("\"status\" : \"current\""))
        #expect(try runProcess(yiana, ["download", "--library", lib]).status == 2)
    }
}

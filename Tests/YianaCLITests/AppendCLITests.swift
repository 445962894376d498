import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// `yiana append` and `yiana import --append-to` end to end: what they say, their exit codes,
/// and a document that is not downloaded.
@Suite("yiana append")
struct AppendCLITests {
    let pdfs = Fixtures.sampleDocs.appendingPathComponent("pdfs")

    @Test func appendsSaysWhatAndRefusesByName() async throws {
        let library = try TemporaryFolder(), cloud = try TemporaryFolder()
        let lib = library.url.path
        #expect(try await runYiana(["import", "--library", lib, pdfs.appendingPathComponent("Bank statement reminder.pdf").path]).status == 0)
        let flow = pdfs.appendingPathComponent("Flow control paper.pdf").path
        let dry = try await runYiana(["append", "--dry-run", "--library", lib, "Bank statement reminder", flow])
        #expect(dry.status == 0 && dry.stdout.contains("would append \(flow): 3 pages, pages 3-5 of Bank statement reminder.yianazip"))
        #expect(dry.stdout.contains("2 → 5 pages (dry run: nothing written)"))
        let mixed = try await runYiana(["append", "--library", lib, "Bank statement reminder", flow, pdfs.appendingPathComponent("Encrypted letter.pdf").path])
        #expect(mixed.status == 1, "a refused file fails the command")
        #expect(mixed.stdout.contains("appended \(flow)") && mixed.stderr.contains("refused  [encrypted-pdf]"))
        let json = try await runYiana(["import", "--append-to", "Bank statement reminder", "--json", "--library", lib, flow])
        #expect(json.status == 1)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect((report["refused"] as? [[String: Any]])?.first?["code"] as? String == "already-appended")
        #expect(try await runYiana(["verify", "--library", lib]).status == 0)
        // A document evicted to the cloud takes no pages until it is downloaded.
        #expect(try await runYiana(["cloud", "init", "--library", lib, cloud.url.path, "--device", "laptop"]).status == 0)
        #expect(try await runYiana(["sync", "--library", lib]).status == 0)
        #expect(try await runYiana(["evict", "--library", lib, "Bank statement reminder"]).status == 0)
        let evicted = try await runYiana(["append", "--library", lib, "Bank statement reminder", pdfs.appendingPathComponent("Filled form.pdf").path])
        #expect(evicted.status == 1 && evicted.stderr.contains("not downloaded"))
        #expect(try await runYiana(["append", "--library", lib, "Bank statement reminder"]).status == 2)
        #expect(try await runYiana(["import", "--append-to", "X", "--tag", "t", "--library", lib, flow]).status == 2)
    }
}

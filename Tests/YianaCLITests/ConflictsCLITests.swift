import Foundation
import Testing
import YianaArchive
import YianaTestSupport

@Suite("yiana conflicts")
struct ConflictsCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func listReportsConflictsAndExitsNonZero() async throws {
        let folder = try TemporaryFolder()
        let id = UUID()
        try CoordinatedDocument.create(at: folder.path("Report.yianazip"), metadata: DocumentMetadata(id: id, title: "Report", pageCount: 1), pdf: .data(simplePDF(["a"])))
        let clean = try await runProcess(yiana, ["conflicts", "list", "--library", folder.url.path])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("0 documents with copies"))

        try CoordinatedDocument.create(at: folder.path("Report.sync-conflict-20260301-101010-AB.yianazip"),
                                       metadata: DocumentMetadata(id: id, title: "Report", pageCount: 1), pdf: .data(simplePDF(["b"])))
        let text = try await runProcess(yiana, ["conflicts", "list", "--library", folder.url.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("conflict-copy   Report.sync-conflict-20260301-101010-AB.yianazip  [Syncthing conflict 20260301-101010 from AB]"))
        let json = try await runProcess(yiana, ["conflicts", "list", "--library", folder.url.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.count == 1 && groups[0]["documentID"] as? String == id.uuidString)
    }
}

@Suite("yiana conflicts resolve and diff")
struct ResolveCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func dryRunThenMergeThenNothingLeft() async throws {
        let folder = try TemporaryFolder()
        let id = UUID()
        var mine = DocumentMetadata(id: id, title: "Report", pageCount: 1, tags: ["mine"])
        mine.modified = Date(timeIntervalSinceReferenceDate: 800_000_000)
        var theirs = mine
        theirs.tags = ["theirs"]
        theirs.modified = Date(timeIntervalSinceReferenceDate: 800_000_100)
        try CoordinatedDocument.create(at: folder.path("Report.yianazip"), metadata: mine, pdf: .data(simplePDF(["same pdf"])))
        try CoordinatedDocument.create(at: folder.path("Report 2.yianazip"), metadata: theirs, pdf: .data(simplePDF(["same pdf"])))

        let diff = try await runProcess(yiana, ["diff", "--library", folder.url.path, "Report", "Report 2"])
        #expect(diff.status == 1)
        #expect(diff.stdout.contains("tags: [\"mine\"] → [\"theirs\"]"))
        #expect(diff.stdout.contains("PDF: the same bytes"))

        let dry = try await runProcess(yiana, ["conflicts", "resolve", "--library", folder.url.path, "--strategy", "merge", "--dry-run"])
        #expect(dry.status == 0, "\(dry.stderr)")
        #expect(dry.stdout.contains("would merge-metadata  Report.yianazip"))
        #expect(FileManager.default.fileExists(atPath: folder.path("Report 2.yianazip")))

        let run = try await runProcess(yiana, ["conflicts", "resolve", "--library", folder.url.path, "--strategy", "merge"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.path("Report 2.yianazip")))
        #expect(try DocumentReader(path: folder.path("Report.yianazip")).metadata().tags == ["mine", "theirs"])
        #expect(try await runProcess(yiana, ["conflicts", "list", "--library", folder.url.path]).status == 0)
        let versions = try await runProcess(yiana, ["versions", "list", "--library", folder.url.path, "Report"])
        #expect(versions.stdout.contains("before merging Report 2.yianazip into it"))
        #expect(try await runProcess(yiana, ["conflicts", "resolve", "--library", folder.url.path]).status == 2)
    }
}

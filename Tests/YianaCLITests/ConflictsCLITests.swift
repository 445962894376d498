import Foundation
import Testing
import YianaArchive
import YianaTestSupport

@Suite("yiana conflicts")
struct ConflictsCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func listReportsConflictsAndExitsNonZero() throws {
        let folder = try TemporaryFolder()
        let id = UUID()
        try CoordinatedDocument.create(at: folder.path("Report.yianazip"), metadata: DocumentMetadata(id: id, title: "Report", pageCount: 1), pdf: .data(simplePDF(["a"])))
        let clean = try runProcess(yiana, ["conflicts", "list", "--library", folder.url.path])
        #expect(clean.status == 0)
        #expect(clean.stdout.contains("0 documents with copies"))

        try CoordinatedDocument.create(at: folder.path("Report.sync-conflict-20260301-101010-AB.yianazip"),
                                       metadata: DocumentMetadata(id: id, title: "Report", pageCount: 1), pdf: .data(simplePDF(["b"])))
        let text = try runProcess(yiana, ["conflicts", "list", "--library", folder.url.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("conflict-copy   Report.sync-conflict-20260301-101010-AB.yianazip  [Syncthing conflict 20260301-101010 from AB]"))
        let json = try runProcess(yiana, ["conflicts", "list", "--library", folder.url.path, "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let groups = try #require(report["groups"] as? [[String: Any]])
        #expect(groups.count == 1 && groups[0]["documentID"] as? String == id.uuidString)
    }
}

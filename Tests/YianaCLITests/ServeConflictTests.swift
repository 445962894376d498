import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// The conflicts page in full: the pages whose text differs drawn for each version, the app's
/// companion files with their copies (a document's in its section, the library's own apart,
/// settled with "every conflict"), and the plan before anything is done.
@Suite("yiana serve: conflicts with pages and companions", .serialized)
struct ServeConflictTests {
    typealias F = CompanionFixtures

    @Test func differingPagesAndCompanionsAreShownAndSettled() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana"), root = URL(fileURLWithPath: lib)
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        try FileManager.default.moveItem(atPath: home.path("Yiana/Bank statement reminder.yianazip"), toPath: home.path("Yiana/Smith_Jane_010180.yianazip"))
        let copy = "Smith_Jane_010180.sync-conflict-20261124-101010-ABCDEF7.yianazip"
        // The other device's version: the same document (its id), one page of other text.
        var metadata = try DocumentReader(path: home.path("Yiana/Smith_Jane_010180.yianazip")).metadata()
        metadata.pageCount = 1
        try CoordinatedDocument.create(at: home.path("Yiana/\(copy)"), metadata: metadata, pdf: .data(simplePDF(["a different first page"])))
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 1, date: "2026-03-01T10:00:00Z")]), ".addresses/Smith_Jane_010180.overrides.json", in: root)
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 2, date: "2026-03-02T10:00:00Z", postcode: "LS2 9JT")]),
                    ".addresses/Smith_Jane_010180.overrides.sync-conflict-20261124-101010-ABCDEF7.json", in: root)
        try F.write(F.workList([F.workItem("A", surname: "S", added: "2026-03-01T08:00:00Z")]), ".worklist.json", in: root)
        try F.write(F.workList([F.workItem("B", surname: "T", added: "2026-03-02T08:00:00Z")]), ".worklist.json..path1", in: root)
        // As a sync program leaves them: with their times from the other device, long settled.
        let hourAgo = Date().addingTimeInterval(-3600)
        for path in try FileManager.default.subpathsOfDirectory(atPath: lib) {
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: home.path("Yiana/\(path)"))
        }
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }

        let page = String(decoding: try await server.get("/conflicts").body, as: UTF8.self)
        // Page 1 differs (drawn for both), page 2 is only in one.
        #expect(page.contains("class=\"pages-diff\"") && page.contains("page-image?path=Smith_Jane_010180.yianazip&amp;n=1&amp;w=320")
                && page.contains("page-image?path=Smith_Jane_010180.sync-conflict-20261124-101010-ABCDEF7.yianazip&amp;n=1&amp;w=320")
                && page.contains("no such page"), "\(page)")
        // The document's companion in its section (before the next section), its copy's text shown.
        let section = try #require(page.range(of: "<section class=\"conflict\"><h2>Bank statement reminder</h2>").map { page[$0.lowerBound...] })
        let first = section[..<(section.range(of: "</section>")?.upperBound ?? section.endIndex)]
        #expect(first.contains(".addresses/Smith_Jane_010180.overrides.json") && first.contains("LS2 9JT"))
        // The library's own work list apart, settled with every conflict.
        #expect(page.contains("1 companion file of the app with copies") && page.contains(".worklist.json..path1")
                && page.contains("/conflicts/plan?all=1&amp;strategy=merge"))

        let plan = String(decoding: try await server.get("/conflicts/plan?all=1&strategy=merge").body, as: UTF8.self)
        #expect(plan.contains("Plan: merge for every conflict") && plan.contains("name=\"all\" value=\"1\""))
        #expect(FileManager.default.fileExists(atPath: home.path("Yiana/.worklist.json..path1")), "a plan changes nothing")
        let token = try #require(plan.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression).map { String(plan[$0].suffix(65).dropLast()) })
        let done = try await server.post("/conflicts/resolve", form: ["all": "1", "strategy": "merge", "csrf": token])
        #expect(done.status == 200 && done.body.contains("Done: merge for every conflict"), "\(done.body)")
        let left = try FileManager.default.contentsOfDirectory(atPath: lib) + FileManager.default.contentsOfDirectory(atPath: home.path("Yiana/.addresses"))
        #expect(!left.contains { $0.contains("sync-conflict") || $0.hasSuffix("..path1") }, "\(left)")
        let workList = try String(contentsOfFile: home.path("Yiana/.worklist.json"), encoding: .utf8)
        #expect(workList.contains("\"A\"") && workList.contains("\"B\""), "both devices' work list items kept: \(workList)")
        #expect(String(decoding: try await server.get("/conflicts").body, as: UTF8.self).contains("No conflicts"))
        #expect(try await server.get("/conflicts/plan?strategy=merge").status == 404, "no path and no all=1")
    }
}

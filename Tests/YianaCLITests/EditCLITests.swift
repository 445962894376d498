import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

@Suite("yiana edit")
struct EditCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func editTitlesAndTagsAsAPersonWould() async throws {
        let folder = try TemporaryFolder()
        for name in ["One", "Two"] {
            try CoordinatedDocument.create(at: folder.path("\(name).yianazip"), metadata: DocumentMetadata(title: name, pageCount: 1, tags: ["draft"]),
                                           pdf: .data(simplePDF([name])))
        }
        let lib = folder.url.path
        let run = try await runProcess(yiana, ["edit", "--library", lib, "One", "Two", "--tag", "bank", "--untag", "draft"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("edited     One.yianazip") && run.stdout.contains("tags bank"))
        #expect(try DocumentReader(path: folder.path("Two.yianazip")).metadata().tags == ["bank"])
        let again = try await runProcess(yiana, ["edit", "--library", lib, "One", "--tag", "bank", "--json"])
        #expect(again.status == 0 && again.stdout.contains("\"changed\" : false"))
        let partly = try await runProcess(yiana, ["edit", "--library", lib, "One", "Missing", "--title", "Renamed"])
        #expect(partly.status == 1 && partly.stderr.contains("no document \"Missing\""))
        #expect(try DocumentReader(path: folder.path("One.yianazip")).metadata().title == "Renamed")
        #expect(try await runProcess(yiana, ["edit", "--library", lib, "One"]).status == 2)  // nothing to change
        #expect(try await runProcess(yiana, ["versions", "list", "--library", lib, "One"]).stdout.contains("before an edit"))
    }
}

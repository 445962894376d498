import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

@Suite("yiana versions")
struct VersionsCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test func listRestoreAndPrune() async throws {
        let folder = try TemporaryFolder()
        let url = folder.url.appendingPathComponent("Doc.yianazip")
        let id = UUID()
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(id: id, title: "First", pageCount: 1), pdf: .data(simplePDF(["one"])))
        let first = try Data(contentsOf: url)
        let kept = try VersionStore(library: try Library(root: folder.url)).keep(url, reason: "before the edit")
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: id, title: "Second", pageCount: 1), pdf: .data(simplePDF(["two"])))

        let list = try await runProcess(yiana, ["versions", "list", "--library", folder.url.path, "Doc"])
        #expect(list.status == 0)
        #expect(list.stdout.contains(kept.shortID) && list.stdout.contains("before the edit"))

        let restore = try await runProcess(yiana, ["versions", "restore", "--library", folder.url.path, "Doc", String(kept.shortID.prefix(8))])
        #expect(restore.status == 0, "\(restore.stderr)")
        #expect(try Data(contentsOf: url) == first)

        let bad = try await runProcess(yiana, ["versions", "restore", "--library", folder.url.path, "Doc", "0000"])
        #expect(bad.status == 1 && bad.stderr.contains("versions list"))

        let dry = try await runProcess(yiana, ["versions", "prune", "--library", folder.url.path, "--keep-last", "1", "--dry-run"])
        #expect(dry.stdout.contains("1 would be removed, 1 kept"))
        // Without --keep-days or --keep-last, only the keeper's retention applies: the shared store is left alone.
        let keeperOnly = try await runProcess(yiana, ["versions", "prune", "--library", folder.url.path])
        #expect(keeperOnly.status == 0 && keeperOnly.stdout.contains("keeper:") && !keeperOnly.stdout.contains("shared store"))
        #expect(try VersionStore(library: Library(root: folder.url)).records().count == 2)
    }
}

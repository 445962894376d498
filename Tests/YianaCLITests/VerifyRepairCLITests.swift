import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

@Suite("yiana verify and repair")
struct VerifyRepairCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    /// A library with a good document, a cut-off one and a leftover temporary file.
    func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("Good.yianazip"), metadata: DocumentMetadata(title: "Good", pageCount: 1), pdf: .data(simplePDF(["good"])))
        try CoordinatedDocument.create(at: folder.path("Cut.yianazip"), metadata: DocumentMetadata(title: "Cut", pageCount: 1), pdf: .data(simplePDF(["cut"])))
        let cut = try Data(contentsOf: folder.url.appendingPathComponent("Cut.yianazip"))
        try cut.prefix(cut.count - 200).write(to: folder.url.appendingPathComponent("Cut.yianazip"))
        try FileManager.default.copyItem(atPath: folder.path("Good.yianazip"), toPath: folder.path(".Good.yianazip.yiana-tmp-0A1B2C3D"))
        return folder
    }

    @Test func verifyExitCodesAndJSON() async throws {
        let folder = try library()
        let text = try await runProcess(yiana, ["verify", "--library", folder.url.path])
        #expect(text.status == 1)
        #expect(text.stdout.contains("[truncated] Cut.yianazip") && text.stdout.contains("[leftover-temp-file]"))
        let json = try await runProcess(yiana, ["verify", "--json", "--library", folder.url.path])
        let report = try JSONDecoder().decode(VerifyReport.self, from: Data(json.stdout.utf8))
        #expect(Set(report.files.flatMap(\.problems).map(\.code.rawValue)) == ["truncated", "leftover-temp-file"])
        #expect(try await runProcess(yiana, ["verify", "--library", folder.url.path, "Good.yianazip"]).status == 0)
        #expect(try await runProcess(yiana, ["verify", "--jobs", "0", "--library", folder.url.path]).status == 2)
    }

    @Test func repairDryRunThenRepairThenTakeTheTemp() async throws {
        let folder = try library()
        let before = try Data(contentsOf: folder.url.appendingPathComponent("Cut.yianazip"))
        let dry = try await runProcess(yiana, ["repair", "--dry-run", "--library", folder.url.path])
        #expect(dry.status == 1)  // the temporary file is left for the user
        #expect(dry.stdout.contains("would repair Cut.yianazip (salvage)") && dry.stdout.contains("offered .Good.yianazip.yiana-tmp-0A1B2C3D"))
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("Cut.yianazip")) == before)

        let json = try await runProcess(yiana, ["repair", "--json", "--library", folder.url.path])
        let report = try JSONDecoder().decode(RepairReport.self, from: Data(json.stdout.utf8))
        #expect(report.repaired.map(\.path) == ["Cut.yianazip"] && report.repaired[0].keptAs != nil)
        #expect(report.offered.map(\.path) == [".Good.yianazip.yiana-tmp-0A1B2C3D"])

        let take = try await runProcess(yiana, ["repair", "--library", folder.url.path, "--take-temp", ".Good.yianazip.yiana-tmp-0A1B2C3D"])
        #expect(take.status == 0, "\(take.stderr)")
        #expect(try await runProcess(yiana, ["verify", "--library", folder.url.path]).status == 0)
        #expect(try await runProcess(yiana, ["repair", "--library", folder.url.path]).status == 0)
        #expect(try await runProcess(yiana, ["repair", "--take-temp", "x", "Good", "--library", folder.url.path]).status == 2)
        #expect(try await runProcess(yiana, ["repair", "--take-temp", "x", "--remove-temps", "--library", folder.url.path]).status == 2)
    }

    @Test func removeTempsCleansTheFolderAndExitsZero() async throws {
        let folder = try library()
        let temp = folder.url.appendingPathComponent(".Good.yianazip.yiana-tmp-0A1B2C3D")
        let removed = try await runProcess(yiana, ["repair", "--remove-temps", "--library", folder.url.path])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect(removed.stdout.contains("removed .Good.yianazip.yiana-tmp-0A1B2C3D (kept in the version store as "))
        #expect(removed.stdout.contains("1 repaired, 1 temporary file removed, 0 not repaired."))
        #expect(!FileManager.default.fileExists(atPath: temp.path))
        #expect(try await runProcess(yiana, ["verify", "--library", folder.url.path]).status == 0)
    }

    /// The short version of Scripts/soak/fuzz-reader.sh (10 minutes there): damaged inputs through
    /// the reader, verify and repair --dry-run; a crash or a hang fails it.
    @Test func aShortFuzzRun() async throws {
        let work = try TemporaryFolder()
        let corpus = work.url.appendingPathComponent("corpus")
        try FileManager.default.createDirectory(at: corpus, withIntermediateDirectories: true)
        for name in ["Sample Letter", "Legacy Separator", "Legacy Metadata Only"] {
            try FileManager.default.copyItem(atPath: Fixtures.sample("archives/\(name).yianazip"), toPath: corpus.appendingPathComponent("\(name).yianazip").path)
        }
        let bench = Fixtures.productsFolder.appendingPathComponent("yiana-bench")
        let run = try await runProcess(bench, ["fuzz-reader", "8", corpus.path, work.url.appendingPathComponent("run").path, "7"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("0 crashes, 0 hangs"))
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// A library as sync programs leave it: every command holds to one rule of what is a
/// document, and none takes a sync program's or the app's folders for the library.
@Suite("yiana in a synced library")
struct SyncedLibraryCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    func run(_ arguments: [String], settle: String = "0") throws -> ProcessResult {
        var env = ProcessInfo.processInfo.environment
        env["YIANA_LIBRARY"] = nil
        env["YIANA_SETTLE_SECONDS"] = settle
        return try runProcess(yiana, arguments, environment: env)
    }

    func copy(_ from: URL, to relative: String, in folder: TemporaryFolder) throws {
        let url = folder.url.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: from, to: url)
    }

    @Test func everyCommandSkipsTheFoldersOfTheAppAndOfSyncPrograms() async throws {
        let library = try TemporaryFolder()
        let lib = library.url.path
        #expect(try run(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf"),
                         Fixtures.sample("pdfs/Bank statement reminder.pdf")]).status == 0)
        let doc = library.url.appendingPathComponent("Flow control paper.yianazip")
        // Byte-identical old copies (same id) where Syncthing, the app, MEGA and a trash keep them.
        for place in [".stversions/Flow control paper~20261123-101010.yianazip", ".yiana-backups/Flow control paper.yianazip",
                      ".debris/Flow control paper.yianazip", ".Trash-1000/files/Flow control paper.yianazip",
                      ".ocr_results/Flow control paper.yianazip"] {
            try copy(doc, to: place, in: library)
        }
        try FileManager.default.createDirectory(at: library.url.appendingPathComponent(".stfolder"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: library.url.appendingPathComponent(".sync"), withIntermediateDirectories: true)  // Resilio's own folder
        try Data("partial".utf8).write(to: library.url.appendingPathComponent(".unison.Other.yianazip.1f2e.unison.tmp"))
        // rclone bisync took a document's plain name away.
        let bank = library.url.appendingPathComponent("Bank statement reminder.yianazip")
        try FileManager.default.moveItem(at: bank, to: URL(fileURLWithPath: bank.path + "..path1"))

        let verify = try run(["verify", "--library", lib, "--json"])
        #expect(verify.status == 0, "\(verify.stdout)")
        #expect(!verify.stdout.contains("duplicate-id"))
        #expect(verify.stdout.contains("Bank statement reminder.yianazip..path1"), "a mangled name is still a document")
        #expect(verify.stdout.contains("Syncthing's old versions hold 1 old copy"))
        #expect(!verify.stdout.contains(".stversions/Flow"))
        #expect(!verify.stdout.contains("Resilio"), "Resilio's permanent folder is no sign of a sync under way")

        let repair = try run(["repair", "--library", lib, "--dry-run"])
        #expect(repair.status == 0 && repair.stdout.contains("0 would be repaired"), "\(repair.stdout)")

        let conflicts = try run(["conflicts", "list", "--library", lib, "--json"])
        let groups = try #require((try JSONSerialization.jsonObject(with: Data(conflicts.stdout.utf8)) as? [String: Any])?["groups"] as? [[String: Any]])
        #expect(groups.count == 1 && groups[0]["target"] as? String == "Bank statement reminder.yianazip", "\(conflicts.stdout)")

        let index = try run(["index", "--library", lib, "--index", library.path("../\(library.url.lastPathComponent).sqlite")])
        #expect(index.stdout.contains("2 documents in the index"), "\(index.stdout)")
        defer { try? FileManager.default.removeItem(atPath: library.path("../\(library.url.lastPathComponent).sqlite")) }

        // A new document of the same title is not given the name rclone took away.
        let again = try run(["import", "--library", lib, "--allow-duplicates", Fixtures.sample("pdfs/Bank statement reminder.pdf")])
        #expect(again.status == 0)
        #expect(FileManager.default.fileExists(atPath: library.path("Bank statement reminder 1.yianazip")), "\(library.contents())")

        let resolve = try run(["conflicts", "resolve", "--library", lib, "--strategy", "merge"])
        #expect(resolve.status == 0, "\(resolve.stdout)\(resolve.stderr)")
        #expect(FileManager.default.fileExists(atPath: bank.path))
        // Nothing of the toolkit's was written where it would travel but the shared state.
        #expect(library.contents().filter { $0.hasPrefix(".") }.sorted()
                == [".Trash-1000", ".debris", ".ocr_results", ".stfolder", ".stversions", ".sync", ".unison.Other.yianazip.1f2e.unison.tmp", ".yiana", ".yiana-backups"])
        let state = try FileManager.default.subpathsOfDirectory(atPath: library.path(".yiana"))
        #expect(state.allSatisfy { $0.hasPrefix("devices") || $0.hasPrefix("versions") }, "\(state)")
    }

    @Test func aDocumentStillArrivingIsLeftForLater() async throws {
        let library = try TemporaryFolder()
        let lib = library.url.path
        #expect(try run(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")]).status == 0)
        let doc = library.path("Flow control paper.yianazip")
        // As rclone writes it: in place, under its real name, not finished yet.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: doc))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: doc))

        // Written in place by another process just after this machine's yiana wrote it: it
        // is arriving (only the file as yiana placed it counts as this machine's own).
        let verify = try run(["verify", "--library", lib], settle: "60")
        #expect(verify.status == 0 && verify.stdout.contains("[still-arriving]"), "\(verify.stdout)")
        #expect(verify.stdout.contains("1 file left for later") && verify.stdout.contains("run the command again in 60 s, or with --now"), "\(verify.stdout)")
        let indexPath = library.path("../\(library.url.lastPathComponent).sqlite")
        defer { try? FileManager.default.removeItem(atPath: indexPath) }
        let index = try run(["index", "--library", lib, "--index", indexPath, "--problems"], settle: "60")
        #expect(index.stdout.contains("still-arriving") && !index.stdout.contains("damaged"), "\(index.stdout)")
        let indexNow = try run(["index", "--library", lib, "--index", indexPath, "--problems", "--now"], settle: "60")
        #expect(indexNow.stdout.contains("damaged"), "the next run tries a still-arriving document again: \(indexNow.stdout)")
        let repair = try run(["repair", "--library", lib], settle: "60")
        #expect(repair.status == 1 && repair.stdout.contains("still arriving"), "\(repair.stdout)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: doc)) == bytes.prefix(bytes.count / 2), "repair touched a file still arriving")
        let kept = try FileManager.default.subpathsOfDirectory(atPath: library.path(".yiana")).filter { $0.hasPrefix("versions/objects/") && $0.count > 20 }
        #expect(kept.isEmpty, "the partial file went into the version store: \(kept)")

        // A sync program's temporary file for it says the same, however old the file is.
        try Data().write(to: URL(fileURLWithPath: library.path(".syncthing.Flow control paper.yianazip.tmp")))
        let shadowed = try run(["verify", "--library", lib], settle: "0.001")
        #expect(shadowed.status == 0 && shadowed.stdout.contains("temporary file"), "\(shadowed.stdout)")

        // --now: it is damage, and repaired as such.
        let now = try run(["verify", "--library", lib, "--now"], settle: "60")
        #expect(now.status == 1 && now.stdout.contains("FAIL"))
    }

    /// A library an earlier version wrote, then synced by unison: its one shared history
    /// and its conflict copy. verify says so; repair folds them into this device's log.
    @Test func repairFoldsInWhatSyncMadeOfTheSharedState() async throws {
        let library = try TemporaryFolder()
        let lib = library.url.path
        let state = library.url.appendingPathComponent(".yiana")
        try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
        let line = #"{"at":"2026-11-20T10:00:00Z","documentID":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","key":"k1","parents":[],"what":"import"}"#
        let other = #"{"at":"2026-11-21T10:00:00Z","documentID":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","key":"k2","parents":["k1"],"what":"edit"}"#
        try Data((line + "\n").utf8).write(to: state.appendingPathComponent("history.jsonl"))
        try Data((line + "\n" + other + "\n").utf8).write(to: state.appendingPathComponent("history (conflict_on_2026-11-23).jsonl"))

        try Data("{}".utf8).write(to: state.appendingPathComponent("dataless.json"))  // an earlier version's local state

        let verify = try run(["verify", "--library", lib])
        #expect(verify.status == 0 && verify.stdout.contains("2 files a sync program copied"), "\(verify.stdout)")
        #expect(verify.stdout.contains("kept this machine's own state in the synced folder (.yiana/dataless.json)"), "\(verify.stdout)")
        try FileManager.default.removeItem(at: state.appendingPathComponent("dataless.json"))
        let repair = try run(["repair", "--library", lib])
        #expect(repair.status == 0 && repair.stdout.contains("tidy-state"), "\(repair.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: state.path).sorted() == ["devices"])
        let devices = try FileManager.default.contentsOfDirectory(atPath: state.appendingPathComponent("devices").path)
        let own = state.appendingPathComponent("devices/\(devices[0])/history.jsonl")
        #expect(try String(contentsOf: own, encoding: .utf8).split(separator: "\n").count == 2)
        #expect(!(try run(["verify", "--library", lib])).stdout.contains("shared state"))
    }
}

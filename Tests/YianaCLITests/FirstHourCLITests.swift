import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// A new user's first hour (the README's "The first hour"), with no `--now` anywhere: what this
/// machine's `yiana` just wrote is never "still arriving", and the search index follows every
/// command that writes documents.
@Suite("the first hour")
struct FirstHourCLITests {
    /// This machine's state and cache folders of its own (the default index is in the cache),
    /// and no settle window set: the 5 seconds a person gets.
    func run(_ arguments: [String], home: TemporaryFolder, settle: String = "") throws -> ProcessResult {
        try runYiana(arguments, environment: ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache"),
                                              "YIANA_SETTLE_SECONDS": settle, "HOME": home.url.path])
    }

    @Test func importOCRSearchEditAndImportAgainWithoutNow() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let imported = try run(["import", "--library", lib, Fixtures.sample("scans/Clinic letter (scan).pdf")], home: home)
        #expect(imported.status == 0, "\(imported.stderr)")
        let ocr = try run(["ocr", "--library", lib, "--all"], home: home)
        #expect(ocr.status == 0 && ocr.stdout.contains("1 recognised") && !ocr.stdout.contains("arriving"), "\(ocr.stdout)")
        #expect(try run(["verify", "--library", lib], home: home).stdout.contains("1 fine"))
        #expect(try run(["index", "--library", lib], home: home).status == 0)
        let found = try run(["search", "--library", lib, "Okafor"], home: home)
        #expect(found.status == 0 && found.stdout.contains("p.1") && found.stdout.contains("Okafor"), "\(found.stdout)")
        #expect(found.stderr.isEmpty, "\(found.stderr)")

        // A new title is found at once: edit brought the index up to date.
        #expect(try run(["edit", "--library", lib, "Clinic letter (scan)", "--title", "Hartley blood results"], home: home).status == 0)
        let title = try run(["search", "--library", lib, "Hartley", "blood"], home: home)
        #expect(title.status == 0 && title.stdout.contains("— Hartley blood results"), "\(title.stdout)")
        #expect(title.stderr.isEmpty, "\(title.stderr)")

        // A document imported into an indexed library is found at once.
        #expect(try run(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf")], home: home).status == 0)
        let bank = try run(["search", "--library", lib, "Lefèvre"], home: home)
        #expect(bank.status == 0 && bank.stdout.contains("Bank statement reminder.yianazip"), "\(bank.stdout)")
        #expect(bank.stderr.isEmpty, "no staleness note for the tool's own writes: \(bank.stderr)")
        // In the list's orders: by title, the bank letter (B) before the clinic letter (H).
        let sorted = try run(["search", "--library", lib, "--sort", "title", "--json", "r*"], home: home)
        let titles = ((try? JSONSerialization.jsonObject(with: Data(sorted.stdout.utf8))) as? [[String: Any]])?.compactMap { $0["title"] as? String }
        #expect(titles == ["Bank statement reminder", "Hartley blood results"], "\(sorted.stdout)")
        #expect(try run(["search", "--library", lib, "--sort", "size", "r*"], home: home).status == 2)

        // What a sync program brings is not seen until `yiana index`, and search says so.
        try FileManager.default.copyItem(atPath: home.path("Yiana/Bank statement reminder.yianazip"), toPath: home.path("Yiana/From the phone.yianazip"))
        let stale = try run(["search", "--library", lib, "Lefèvre"], home: home)
        #expect(stale.stderr.contains("1 document in \(lib) changed since the index was last updated") && stale.stderr.contains("`yiana index`"),
                "\(stale.stderr)")
        #expect(try run(["index", "--library", lib], home: home).status == 0)
        #expect(try run(["search", "--library", lib, "Lefèvre"], home: home).stderr.isEmpty)
    }

    /// Every command that writes documents keeps the index current: append, repair, conflicts
    /// resolve, versions restore, each found by search (or gone from it) without `yiana index`.
    @Test func everyWritingCommandKeepsTheIndexCurrent() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        #expect(try run(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")], home: home).status == 0)
        #expect(try run(["index", "--library", lib], home: home).status == 0)
        let letter = home.url.appendingPathComponent("letter.pdf")
        try simplePDF(["Zanzibar appointment letter"]).write(to: letter)
        #expect(try run(["append", "--library", lib, "Flow control paper", letter.path], home: home).status == 0)
        let appended = try run(["search", "--library", lib, "Zanzibar"], home: home)
        #expect(appended.status == 0 && appended.stdout.contains("Flow control paper.yianazip") && appended.stderr.isEmpty, "\(appended)")

        // A conflict copy (brought by sync: the index is told by `index`), then resolved away.
        let copy = home.path("Yiana/Flow control paper.sync-conflict-20261125-101010-ABCDEF7.yianazip")
        try FileManager.default.copyItem(atPath: home.path("Yiana/Flow control paper.yianazip"), toPath: copy)
        #expect(try run(["index", "--library", lib], home: home).status == 0)
        #expect(try run(["search", "--library", lib, "Zanzibar"], home: home).stdout.contains("sync-conflict"))
        #expect(try run(["conflicts", "resolve", "--strategy", "merge", "--library", lib], home: home).status == 0)
        let resolved = try run(["search", "--library", lib, "Zanzibar"], home: home)
        #expect(!resolved.stdout.contains("sync-conflict") && resolved.stderr.isEmpty, "\(resolved)")

        // Restoring the version before the append: its page is no longer found.
        let versions = try run(["versions", "list", "--library", lib, "--json", "Flow control paper"], home: home)
        let list = try #require(try JSONSerialization.jsonObject(with: Data(versions.stdout.utf8)) as? [[String: Any]])
        let before = try #require(list.first { ($0["reason"] as? String) == "before an append" }?["sha256"] as? String, "\(versions.stdout)")
        #expect(try run(["versions", "restore", "--library", lib, "Flow control paper", before], home: home).status == 0)
        let restored = try run(["search", "--library", lib, "Zanzibar"], home: home)
        #expect(restored.status == 1 && restored.stderr.contains("no document matches") && !restored.stderr.contains("changed since"), "\(restored)")

        // Evicted, then downloaded again (the simulated cloud): the index says so each time.
        #expect(try run(["cloud", "init", "--library", lib, "--device", "laptop", home.path("cloud")], home: home).status == 0)
        #expect(try run(["evict", "--library", lib, "Flow control paper"], home: home).status == 0)
        let evicted = try run(["search", "--library", lib, "flow", "control"], home: home)
        #expect(evicted.stdout.contains("Flow control paper.yianazip — Flow control paper (not-downloaded)") && evicted.stderr.isEmpty, "\(evicted)")
        let status = try run(["status", "--library", lib], home: home).stdout
        #expect(status.contains("1 not-downloaded") && !status.contains("arriving"), "the stub evict wrote is this machine's own: \(status)")
        #expect(try run(["download", "--library", lib, "--all"], home: home).status == 0)
        let downloaded = try run(["search", "--library", lib, "flow", "control"], home: home)
        #expect(downloaded.stdout.contains("Flow control paper.yianazip — Flow control paper\n") && downloaded.stderr.isEmpty, "\(downloaded)")
    }

    /// `yiana status` answers first with the whole library's health: a count per state, each
    /// with what to run, in text and JSON, from the folders and the index (no document opened).
    @Test func statusSummarisesTheLibrary() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        #expect(try run(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf"), Fixtures.sample("pdfs/Bank statement reminder.pdf"),
                         Fixtures.sample("scans/Clinic letter (scan).pdf")], home: home).status == 0)
        let before = try run(["status", "--library", lib], home: home)
        #expect(before.status == 0 && before.stdout.contains("3 documents, 0 fine.") && before.stdout.contains("3 not-indexed")
                && before.stdout.contains("index: none yet → yiana index"), "\(before.stdout)")
        // Damage one document before indexing (the index reads it as damaged), then index.
        let bank = home.path("Yiana/Bank statement reminder.yianazip")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: bank))
        try bytes.prefix(bytes.count - 300).write(to: URL(fileURLWithPath: bank))
        // Written by another program a moment ago, it is still arriving (the status says so
        // below); the index is told to read it as it is now.
        _ = try run(["index", "--library", lib, "--now"], home: home)
        // What sync brings: a conflict copy, a placeholder of an evicted document, a new document.
        try FileManager.default.copyItem(atPath: home.path("Yiana/Flow control paper.yianazip"),
                                         toPath: home.path("Yiana/Flow control paper.sync-conflict-20261125-101010-ABCDEF7.yianazip"))
        try FileManager.default.copyItem(atPath: Fixtures.sample("placeholders/.Quarterly report.yianazip.icloud"), toPath: home.path("Yiana/.Quarterly report.yianazip.icloud"))

        // Just now, the three files other programs wrote are arriving.
        let now = try run(["status", "--library", lib], home: home)
        #expect(now.stdout.contains("3 arriving") && now.stdout.contains("(or use --now)"), "\(now.stdout)")
        // Once they have settled (a settle window of 0 here), the rest shows.
        let text = try run(["status", "--library", lib], home: home, settle: "0")
        #expect(text.status == 0 && !text.stdout.contains("arriving"), "\(text.stderr)")
        for line in ["\(lib): 5 documents, 1 fine.", "1 damaged", "yiana verify, then yiana repair", "1 in-conflict", "yiana conflicts resolve --strategy merge",
                     "1 not-downloaded", "yiana download --all", "1 waiting-for-ocr", "yiana ocr --all", "2 not-indexed", "index: 3 documents, last run 20"] {
            #expect(text.stdout.contains(line), "\(line) in \(text.stdout)")
        }
        let json = try run(["status", "--library", lib, "--json"], home: home, settle: "0").stdout
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let summary = try #require(report["summary"] as? [String: Any])
        #expect(summary["documents"] as? Int == 5 && summary["fine"] as? Int == 1)
        let states = Dictionary(uniqueKeysWithValues: (summary["states"] as? [[String: Any]] ?? []).map { ($0["state"] as? String ?? "", $0["paths"] as? [String] ?? []) })
        #expect(states["damaged"] == ["Bank statement reminder.yianazip"])
        #expect(states["waiting-for-ocr"] == ["Clinic letter (scan).yianazip"])
        #expect(states["not-downloaded"] == ["Quarterly report.yianazip"])
        #expect(states["in-conflict"] == ["Flow control paper.sync-conflict-20261125-101010-ABCDEF7.yianazip"])
        #expect(states["not-indexed"]?.sorted() == ["Flow control paper.sync-conflict-20261125-101010-ABCDEF7.yianazip", "Quarterly report.yianazip"])
        #expect((summary["read"] as? String)?.contains("no document opened") == true)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// `yiana ocr` as a person and a script use it: the text and JSON reports, exit codes, a
/// failure named, listed by `status`, backing off and tried again with --retry, and the
/// scanned page found by `search`.
@Suite("yiana ocr")
struct OCRCLITests {
    func run(_ arguments: [String]) throws -> ProcessResult {
        try runYiana(arguments)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func recogniseReportFailBackOffRetryAndSearch() async throws {
        let library = try TemporaryFolder(), cache = try TemporaryFolder()
        let lib = library.url.path
        try CoordinatedDocument.create(at: library.path("Scan.yianazip"), metadata: DocumentMetadata(title: "Scan", pageCount: 1),
                                       pdf: .data(scannedPDF([["Quarterly invoice", "marmalade delivery"]])))
        try CoordinatedDocument.create(at: library.path("Typed.yianazip"), metadata: DocumentMetadata(title: "Typed", pageCount: 1),
                                       pdf: .data(simplePDF(["typed letter with its own text"])))
        try Data("PK\u{3}\u{4} not a whole document".utf8).write(to: library.url.appendingPathComponent("Broken.yianazip"))

        #expect(try run(["ocr", "--library", lib]).status == 2)  // neither --all nor documents
        let dry = try json(try run(["ocr", "--all", "--now", "--dry-run", "--json", "--library", lib]).stdout)
        let planned = Dictionary(uniqueKeysWithValues: (dry["documents"] as! [[String: Any]]).map { ($0["path"] as! String, $0["status"] as! String) })
        #expect(planned == ["Scan.yianazip": "would-recognize", "Typed.yianazip": "embedded", "Broken.yianazip": "failed"])

        let first = try run(["ocr", "--all", "--now", "--jobs", "2", "--library", lib])
        #expect(first.status == 1, "a document failed: exit 1")
        #expect(first.stdout.contains("recognized     Scan.yianazip: 1 page recognised"), "\(first.stdout)")
        #expect(first.stdout.contains("embedded       Typed.yianazip: every page has its own text (1 page)"))
        #expect(first.stderr.contains("failed         Broken.yianazip: "), "\(first.stderr)")
        #expect(first.stdout.contains("3 documents: 1 recognised, 1 had their own text, 1 failed."), "\(first.stdout)")

        // status names the failure, in words and in JSON, on a library no cloud store keeps.
        let status = try run(["status", "--library", lib])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("ocr-failed: Broken.yianazip — "), "\(status.stdout)")
        #expect(status.stdout.contains("1 failure, next try after "))
        let statusJSON = try json(try run(["status", "--json", "--library", lib]).stdout)
        #expect(statusJSON["cloudAttached"] as? Bool == false)
        let failures = try #require(statusJSON["ocrFailures"] as? [[String: Any]])
        #expect(failures.map { $0["path"] as? String } == ["Broken.yianazip"] && failures.first?["failures"] as? Int == 1)

        // The next --all run leaves the done documents and waits for the failed one; --retry tries it now.
        let second = try json(try run(["ocr", "--all", "--now", "--json", "--library", lib]).stdout)
        let statuses = Dictionary(uniqueKeysWithValues: (second["documents"] as! [[String: Any]]).map { ($0["path"] as! String, $0["status"] as! String) })
        #expect(statuses == ["Scan.yianazip": "already-done", "Typed.yianazip": "already-done", "Broken.yianazip": "backing-off"])
        let retried = try run(["ocr", "--all", "--now", "--retry", "--library", lib])
        #expect(retried.status == 1 && retried.stderr.contains("Broken.yianazip"))
        #expect(try json(try run(["status", "--json", "--library", lib]).stdout)["ocrFailures"].map { ($0 as! [[String: Any]]).first?["failures"] as? Int } == 2)

        // The results files where the app's service writes them; the scan's words found on its page.
        for suffix in ["json", "xml", "hocr"] {
            #expect(FileManager.default.fileExists(atPath: library.path(".ocr_results/Scan.\(suffix)")))
        }
        let index = cache.path("index.sqlite")
        #expect(try run(["index", "--library", lib, "--index", index]).status == 1)  // the broken document
        let hits = try run(["search", "--library", lib, "--index", index, "--json", "marmalade"])
        let found = try #require(try JSONSerialization.jsonObject(with: Data(hits.stdout.utf8)) as? [[String: Any]])
        #expect(found.map { $0["path"] as? String } == ["Scan.yianazip"], "\(hits.stdout)")
        #expect((found.first?["pages"] as? [[String: Any]])?.first?["number"] as? Int == 1)

        let named = try run(["ocr", "--library", lib, "Scan", "Missing"])
        #expect(named.status == 1)
        #expect(named.stdout.contains("already done   Scan.yianazip (--force to recognise it again)"))
        #expect(named.stderr.contains("failed         Missing: no document \"Missing\""), "\(named.stderr)")
    }

    @Test func aMissingLanguageIsRefusedNamingItsPackage() async throws {
        let library = try TemporaryFolder()
        try CoordinatedDocument.create(at: library.path("Scan.yianazip"), metadata: DocumentMetadata(title: "Scan", pageCount: 1),
                                       pdf: .data(scannedPDF([["words"]])))
        let result = try run(["ocr", "--all", "--now", "--lang", "eng+xqz", "--library", library.url.path])
        #expect(result.status == 1)
        #expect(result.stderr.contains("tesseract-ocr-xqz"), "\(result.stderr)")
        #expect(try DocumentReader(path: library.path("Scan.yianazip")).metadata().ocrCompleted == false)
        #expect(try run(["ocr", "--all", "--lang", "eng++deu", "--library", library.url.path]).status == 2)
    }

    /// A page on which tesseract finds no word is not reported as recognised with
    /// "confidence 0.00": the report names the pages, the JSON lists them (no confidence), and
    /// the index gives the document its own status instead of "no OCR text yet".
    @Test func aPageWithoutWordsIsSaidToHaveNone() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Noise pattern (image only, no words).pdf"),
                              Fixtures.sample("scans/Hardware receipt (scan).pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib, "--problems"], environment: env).stdout
                    .contains("no-text-layer: Noise pattern (image only, no words).yianazip — the PDF has no text layer and the document has no OCR text yet"))
        let ocr = try await runYiana(["ocr", "--library", lib, "--all", "--json"], environment: env)
        let documents = try #require(try json(ocr.stdout)["documents"] as? [[String: Any]])
        let noise = try #require(documents.first { ($0["path"] as? String)?.hasPrefix("Noise") == true })
        #expect(noise["pagesWithoutWords"] as? [Int] == [1] && noise["confidence"] == nil, "\(noise)")
        let receipt = try #require(documents.first { ($0["path"] as? String)?.hasPrefix("Hardware") == true })
        #expect(receipt["pagesWithoutWords"] as? [Int] == [] && receipt["confidence"] as? Double ?? 0 > 0.5, "\(receipt)")
        let again = try await runYiana(["ocr", "--library", lib, "--force", "Noise pattern (image only, no words)"], environment: env)
        #expect(again.stdout.contains("no text found  Noise pattern (image only, no words).yianazip: OCR found no words on page 1 (an image without text, a blank page?)"),
                "\(again.stdout)")
        #expect(again.stdout.contains("1 document: 1 with no text found.") && !again.stdout.contains("confidence"), "\(again.stdout)")
        let problems = try await runYiana(["index", "--library", lib, "--problems"], environment: env).stdout
        #expect(problems.contains("no-words-found: Noise pattern (image only, no words).yianazip — OCR (") && !problems.contains("Hardware"), "\(problems)")
    }
}

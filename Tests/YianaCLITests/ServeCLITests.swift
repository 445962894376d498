import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import YianaArchive
import YianaTestSupport

/// `yiana serve` through a real socket on loopback: the JSON API held to the OpenAPI document
/// it serves, the pages escaped, bad requests answered with a 4xx while it keeps serving.
@Suite("yiana serve", .serialized)
struct ServeCLITests {
    /// A running `yiana serve` on a free loopback port, stopped (SIGTERM) when done.
    final class Server {
        let process = Process()
        let base: URL

        init(library: String, home: TemporaryFolder, readOnly: Bool = false, options: [String] = []) throws {
            process.executableURL = Fixtures.productsFolder.appendingPathComponent("yiana")
            process.arguments = ["serve", "--library", library, "--listen", "127.0.0.1:0"] + (readOnly ? ["--read-only"] : []) + options
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_STATE_HOME"] = home.path("state")
            environment["XDG_CACHE_HOME"] = home.path("cache")
            process.environment = environment
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = ""
            let deadline = Date().addingTimeInterval(30)
            while !text.contains("\n"), Date() < deadline, process.isRunning {
                text += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
            }
            guard let range = text.range(of: #"http://127\.0\.0\.1:\d+/"#, options: .regularExpression) else {
                process.terminate()
                throw ServeTestError("yiana serve did not say where it listens: \(text)")
            }
            base = URL(string: String(text[range]))!
        }

        func get(_ path: String) async throws -> (status: Int, headers: [String: String], body: Data) {
            let (data, response) = try await URLSession.shared.data(from: URL(string: path, relativeTo: base)!)
            let http = response as! HTTPURLResponse
            let headers = Dictionary(uniqueKeysWithValues: http.allHeaderFields.map { ("\($0.key)".lowercased(), "\($0.value)") })
            return (http.statusCode, headers, data)
        }

        /// A form posted as a browser posts it, from `origin` (this server's own by default).
        /// A form whose fields may repeat (checkboxes), in order.
        func post(_ path: String, fields: [(String, String)], origin: String? = nil) async throws -> (status: Int, body: String) {
            var request = URLRequest(url: URL(string: path, relativeTo: base)!)
            request.httpMethod = "POST"
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.setValue(origin ?? "http://\(base.host!):\(base.port!)", forHTTPHeaderField: "Origin")
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            request.httpBody = Data(fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: allowed)!)" }.joined(separator: "&").utf8)
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as! HTTPURLResponse).statusCode, String(decoding: data, as: UTF8.self))
        }

        func post(_ path: String, form: [String: String], origin: String? = nil) async throws -> (status: Int, body: String) {
            try await post(path, fields: form.map { ($0.key, $0.value) }, origin: origin)
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    struct ServeTestError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    func json(_ data: Data) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func searchHealthPagesAndBadRequests() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, "--tag", "bank", Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        try CoordinatedDocument.create(at: home.path("Yiana/Script.yianazip"),
                                       metadata: DocumentMetadata(title: "<script>alert(1)</script> & \"quotes\"", pageCount: 1),
                                       pdf: .data(simplePDF(["hostile title test zebra"])))
        let server = try Server(library: lib, home: home)
        defer { server.stop() }

        // No index yet: the API says what to run, with a 503, and the page says it too.
        let noIndex = try await server.get("/api/search?q=statement")
        #expect(noIndex.status == 503 && String(decoding: noIndex.body, as: UTF8.self).contains("yiana index"))
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)

        let search = try await server.get("/api/search?q=statement&tag=bank&limit=5")
        #expect(search.status == 200 && search.headers["content-type"]?.hasPrefix("application/json") == true)
        let answer = try json(search.body)
        let hits = try #require(answer["hits"] as? [[String: Any]])
        #expect(hits.first?["path"] as? String == "Bank statement reminder.yianazip" && answer["query"] as? String == "statement")
        let page = try #require((hits.first?["pages"] as? [[String: Any]])?.first)
        #expect((page["snippet"] as? String)?.contains("**statement**") == true && page["number"] as? Int == 1)
        // Every key of the answer is one the OpenAPI document describes.
        let spec = try json(try await server.get("/api/openapi.json").body)
        let schemas = try #require((spec["components"] as? [String: Any])?["schemas"] as? [String: Any])
        let hitKeys = Set(((schemas["Hit"] as? [String: Any])?["properties"] as? [String: Any] ?? [:]).keys)
        #expect(Set(hits.flatMap(\.keys)).isSubset(of: hitKeys) && Set(answer.keys).isSubset(of: ["query", "hits", "stale"]))
        let health = try json(try await server.get("/api/health").body)
        #expect(health["documents"] as? Int == 2)

        // Bad requests: a 4xx naming the parameter, and the server goes on serving.
        for bad in ["/api/search?q=a&limit=abc", "/api/search?q=a&limit=0", "/api/search?q=a&since=yesterday", "/api/search?q=" + String(repeating: "a", count: 501),
                    "/?q=a&until=31/12/2026"] {
            let answer = try await server.get(bad)
            #expect((400..<500).contains(answer.status), "\(bad): \(answer.status)")
        }
        #expect(try await server.get("/api/../../etc/passwd").status == 404)
        #expect(try await server.get("/static/../../../etc/passwd").status == 404)
        #expect(try await server.get("/api/search?q=zebra").status == 200)

        // The page: values escaped, a strict policy, no script.
        let html = try await server.get("/?q=zebra")
        let text = String(decoding: html.body, as: UTF8.self)
        #expect(html.status == 200 && text.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot;") && !text.contains("<script>"))
        #expect(!text.contains("style=\"") && !text.contains("onclick"), "no inline style or handler: the policy allows none")
        #expect(text.contains("<mark>zebra</mark>"))
        #expect(html.headers["content-security-policy"]?.contains("default-src 'none'") == true && html.headers["x-frame-options"] == "DENY")
        // Not no-referrer: a browser would then send `Origin: null` on the page's own forms.
        #expect(html.headers["referrer-policy"] == "same-origin")
        let fragment = try await server.get("/results?q=zebra")
        #expect(fragment.status == 200 && String(decoding: fragment.body, as: UTF8.self).hasPrefix("<p class=\"count\">1 document</p>"))
        let script = try await server.get("/static/search.js")
        #expect(script.headers["content-type"]?.hasPrefix("text/javascript") == true && text.contains("<script src=\"/static/search.js\" defer></script>"))
        let healthPage = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(healthPage.contains("2 documents") && healthPage.contains("href=\"/health?state=not-indexed\"") == false)
        // Each state links to its documents: a document changed since the index read it.
        try Data("changed".utf8).write(to: home.url.appendingPathComponent("Yiana/Script.yianazip"), options: .atomic)
        let listing = String(decoding: try await server.get("/health?state=not-indexed").body, as: UTF8.self)
        #expect(listing.contains("<a href=\"/doc?path=Script.yianazip\">Script.yianazip</a>"), "\(listing)")
    }

    /// A document's page, its page images (drawn by poppler and cairo, PNG, cached) and its
    /// PDF; and hostile paths, none of which reaches a file outside the library's documents.
    @Test func documentPagesAndImages() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, "--into", "Letters", Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let path = "Letters/Bank%20statement%20reminder.yianazip"

        let page = try await server.get("/doc?path=\(path)")
        let html = String(decoding: page.body, as: UTF8.self)
        #expect(page.status == 200 && html.contains("<h1>Bank statement reminder</h1>") && html.contains("loading=\"lazy\"")
                && html.contains("/page-image?path=Letters/Bank%20statement%20reminder.yianazip&amp;n=2&amp;w=960"), "\(html)")
        let image = try await server.get("/page-image?path=\(path)&n=2&w=500")
        #expect(image.status == 200 && image.headers["content-type"] == "image/png" && image.body.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(image.body.subdata(in: 16..<20) == Data([0, 0, 2, 128]), "500 wide is drawn 640 wide (one of a few cached widths)")
        let cached = try FileManager.default.subpathsOfDirectory(atPath: home.path("cache")).filter { $0.hasSuffix("-2-640.png") }
        #expect(cached.count == 1, "the image is cached in this machine's cache folder")
        #expect(try await server.get("/page-image?path=\(path)&n=2&w=500").body == image.body)
        #expect(try await server.get("/page-image?path=\(path)&n=3").status == 404)
        #expect(try await server.get("/page-image?path=\(path)&n=abc").status == 400)
        let pdf = try await server.get("/pdf?path=\(path)")
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Bank statement reminder.pdf")))
        #expect(pdf.status == 200 && pdf.body == original)

        // Hostile paths: ServeHostileTests.
        #expect(try await server.get("/doc?path=\(path)").status == 200, "still serving")
    }

    /// Search hits boxed on their pages: from poppler's glyph boxes on a text page, from the
    /// OCR results' word boxes on a scan the PDF has no text layer for; the search page lays
    /// them over the thumbnails as an SVG, with no script.
    @Test func hitWordsAreBoxedOnTextPagesAndScans() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf"), Fixtures.sample("scans/Clinic letter (scan).pdf")],
                             environment: env).status == 0)
        // As the app's OCR service leaves a scan: results with word boxes, no text layer.
        #expect(try await runYiana(["ocr", "--library", lib, "--all", "--no-text-layer"], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try Server(library: lib, home: home)
        defer { server.stop() }

        func boxes(_ path: String, _ query: String) async throws -> [[String: Double]] {
            let answer = try await server.get("/api/hits?path=\(path)&n=1&q=\(query)")
            #expect(answer.status == 200, "\(path) \(query): \(answer.status)")
            return try json(answer.body)["boxes"] as? [[String: Double]] ?? []
        }
        // The text page: accents folded as the index folds them.
        let bank = try await boxes("Bank%20statement%20reminder.yianazip", "lefevre")
        #expect(bank.count == 1 && bank.allSatisfy { ($0["x"] ?? -1) > 0 && ($0["y"] ?? -1) > 0 && ($0["x"]! + $0["width"]!) < 1 && ($0["height"] ?? 0) > 0.005 }, "\(bank)")
        // The scan: its PDF has no text, its OCR results say where "Okafor" is (twice on the page).
        let scan = try await boxes("Clinic%20letter%20(scan).yianazip", "okafor")
        #expect(scan.count == 2, "\(scan)")
        let upper = try #require(scan.min { $0["y"]! < $1["y"]! })
        #expect(upper["y"]! > 0.3 && upper["y"]! < 0.45 && upper["x"]! > 0.2 && upper["x"]! < 0.5, "Doctor Okafor, two thirds down the letter: \(upper)")

        let svg = try await server.get("/hits.svg?path=Clinic%20letter%20(scan).yianazip&n=1&q=okafor")
        #expect(svg.headers["content-type"] == "image/svg+xml" && String(decoding: svg.body, as: UTF8.self).components(separatedBy: "<rect").count == 3)
        let page = String(decoding: try await server.get("/?q=okafor").body, as: UTF8.self)
        #expect(page.contains("<div class=\"thumbs\">") && page.contains("/hits.svg?path=Clinic%20letter%20(scan).yianazip&amp;n=1&amp;q=okafor")
                && page.components(separatedBy: "<script").count == 3
                && page.contains("<script src=\"/static/live.js\" defer></script>") && page.contains("<script src=\"/static/search.js\" defer></script>"),
                "two scripts, the server's own files (live.js on every page, search.js): \(page)")
        // Page images: a scan as JPEG (its pixels are a photograph's), a text page as PNG.
        let scanImage = try await server.get("/page-image?path=Clinic%20letter%20(scan).yianazip&n=1&w=960")
        #expect(scanImage.headers["content-type"] == "image/jpeg" && scanImage.body.prefix(3) == Data([0xFF, 0xD8, 0xFF]) && scanImage.body.count < 400_000)
        let textImage = try await server.get("/page-image?path=Bank%20statement%20reminder.yianazip&n=1&w=960")
        #expect(textImage.headers["content-type"] == "image/png" && textImage.body.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))
    }

    /// The conflicts page: both versions side by side with the metadata diff, the plan of a
    /// strategy shown before it runs, then the resolver run by a form that carries the
    /// server's token and comes from its own origin; refused otherwise, and by a read-only server.
    @Test func conflictsAreShownPlannedAndResolved() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        var metadata = DocumentMetadata(title: "Quarterly report", pageCount: 1)
        try CoordinatedDocument.create(at: home.path("Yiana/Report.yianazip"), metadata: metadata, pdf: .data(simplePDF(["report text"])))
        metadata.title = "Quarterly report (phone)"
        metadata.modified = Date(timeIntervalSinceNow: 60)
        let copy = "Report.sync-conflict-20261125-101010-ABCDEF7.yianazip"
        try CoordinatedDocument.create(at: home.path("Yiana/\(copy)"), metadata: metadata, pdf: .data(simplePDF(["report text"])))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -60)], ofItemAtPath: home.path("Yiana/\(copy)"))

        let readOnly = try Server(library: lib, home: home, readOnly: true)
        let refused = try await readOnly.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "merge", "csrf": "x"])
        readOnly.stop()
        #expect(refused.status == 403 && refused.body.contains("read-only"))
        #expect(readOnly.process.terminationReason == .exit && readOnly.process.terminationStatus == 0, "SIGTERM (as systemd stops it) ends it cleanly")

        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/conflicts").body, as: UTF8.self)
        #expect(page.contains("1 document in conflict") && page.contains(copy) && page.contains("<td>title</td>")
                && page.contains("Quarterly report (phone)") && page.contains("/conflicts/plan?path=Report.yianazip&amp;strategy=merge"), "\(page)")
        let plan = String(decoding: try await server.get("/conflicts/plan?path=Report.yianazip&strategy=merge").body, as: UTF8.self)
        #expect(plan.contains("merge-metadata") && plan.contains("remove-copy") && FileManager.default.fileExists(atPath: home.path("Yiana/\(copy)")), "\(plan)")
        let token = try #require(plan.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression).map { String(plan[$0].dropFirst(19).dropLast()) })

        #expect(try await server.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "merge"]).status == 400)
        #expect(try await server.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "merge", "csrf": String(repeating: "0", count: 64)]).status == 403)
        #expect(try await server.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "merge", "csrf": token], origin: "http://evil.example").status == 403)
        #expect(try await server.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "merge", "csrf": token], origin: "null").status == 403)
        #expect(try await server.post("/conflicts/resolve", form: ["path": "../x.yianazip", "strategy": "merge", "csrf": token]).status == 404)
        #expect(try await server.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "coin-toss", "csrf": token]).status == 400)
        #expect(FileManager.default.fileExists(atPath: home.path("Yiana/\(copy)")), "nothing changed by a refused request")

        let done = try await server.post("/conflicts/resolve", form: ["path": "Report.yianazip", "strategy": "merge", "csrf": token])
        #expect(done.status == 200 && done.body.contains("kept as"), "\(done.body)")
        #expect(!FileManager.default.fileExists(atPath: home.path("Yiana/\(copy)")))
        #expect(try DocumentReader(path: home.path("Yiana/Report.yianazip")).metadata().title == "Quarterly report (phone)")
        #expect(String(decoding: try await server.get("/conflicts").body, as: UTF8.self).contains("No conflicts"))
    }

    /// A document's kept versions on its page, each previewed, and one restored by its form
    /// (what it replaces kept first); refused without the token.
    @Test func versionsArePreviewedAndRestored() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["edit", "--library", lib, "Flow control paper", "--title", "Zanzibar notes"], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/doc?path=Flow%20control%20paper.yianazip").body, as: UTF8.self)
        #expect(page.contains("<h2>Versions</h2>") && page.contains("before an edit") && page.contains("Restore this version"), "\(page)")
        // Its history: imported, then edited, which is what the file is now.
        #expect(page.contains("<h2>History</h2>") && page.contains("<strong>edit</strong> <span class=\"tag\">this file now</span>")
                && page.contains("<strong>import</strong></li>"), "\(page)")
        let id = try #require(page.range(of: #"name="version" value="([0-9a-f]{12})""#, options: .regularExpression).map { String(page[$0].dropFirst(22).dropLast()) })
        let preview = try await server.get("/version-image?path=Flow%20control%20paper.yianazip&version=\(id)&n=1&w=160")
        #expect(preview.status == 200 && preview.headers["content-type"] == "image/png")
        #expect(try await server.get("/version-image?path=Flow%20control%20paper.yianazip&version=xyz").status == 400)
        #expect(try await server.get("/version-image?path=Flow%20control%20paper.yianazip&version=000000000000").status == 404)
        let token = try #require(page.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression).map { String(page[$0].dropFirst(19).dropLast()) })
        #expect(try await server.post("/versions/restore", form: ["path": "Flow control paper.yianazip", "version": id, "csrf": "0"]).status == 403)
        #expect(try DocumentReader(path: home.path("Yiana/Flow control paper.yianazip")).metadata().title == "Zanzibar notes")
        let restored = try await server.post("/versions/restore", form: ["path": "Flow control paper.yianazip", "version": id, "csrf": token])
        #expect(restored.status == 200 && restored.body.contains("the document it replaced is kept as"), "\(restored.body)")
        #expect(try DocumentReader(path: home.path("Yiana/Flow control paper.yianazip")).metadata().title == "Flow control paper")
        let after = String(decoding: try await server.get("/doc?path=Flow%20control%20paper.yianazip").body, as: UTF8.self)
        #expect(after.contains("<strong>import</strong> <span class=\"tag\">this file now</span>"), "the restored file is the imported one")
        // The server keeps the index current with what it wrote, as the commands do.
        #expect((try json(try await server.get("/api/search?q=flow%20control").body)["hits"] as? [[String: Any]])?.first?["title"] as? String == "Flow control paper")
        let search = try json(try await server.get("/api/search?q=zanzibar").body)
        #expect((search["hits"] as? [Any])?.isEmpty == true && search["stale"] == nil, "\(search)")
    }

    /// An evicted document's page says it is not downloaded and offers the download, which
    /// goes through the cloud simulator's downloader; then the document is there and found.
    @Test func anEvictedDocumentIsDownloadedFromItsPage() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["cloud", "init", "--library", lib, "--device", "laptop", home.path("cloud")], environment: env).status == 0)
        #expect(try await runYiana(["evict", "--library", lib, "Flow control paper"], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try Server(library: lib, home: home)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/doc?path=Flow%20control%20paper.yianazip").body, as: UTF8.self)
        #expect(page.contains("Not downloaded") && page.contains("Download it"), "\(page)")
        let token = try #require(page.range(of: #"name="csrf" value="([0-9a-f]{64})""#, options: .regularExpression).map { String(page[$0].dropFirst(19).dropLast()) })
        #expect(try await server.post("/download", form: ["path": "Flow control paper.yianazip", "csrf": "0"]).status == 403)
        #expect(try await server.post("/download", form: ["path": "Nothing.yianazip", "csrf": token]).status == 404)
        let done = try await server.post("/download", form: ["path": "Flow control paper.yianazip", "csrf": token])
        #expect(done.status == 200 && done.body.contains("is here now"), "\(done.body)")
        #expect(try DocumentReader(path: home.path("Yiana/Flow control paper.yianazip")).metadata().title == "Flow control paper")
        let search = try json(try await server.get("/api/search?q=flow%20control").body)
        #expect((search["hits"] as? [[String: Any]])?.first?["status"] as? String == "ok", "the index follows the download: \(search)")
        #expect(try await server.post("/download", form: ["path": "Flow control paper.yianazip", "csrf": token]).status == 404, "not evicted any more")
    }

    @Test func listensOnLoopbackOnly() async throws {
        let home = try TemporaryFolder()
        let refused = try await runYiana(["serve", "--library", home.url.path, "--listen", "0.0.0.0:8484"])
        #expect(refused.status == 2 && refused.stderr.contains("not a loopback address"), "\(refused.stderr)")
        #expect(try await runYiana(["serve", "--library", home.url.path, "--listen", "127.0.0.1:99999"]).status == 2)
    }
}

import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing
import YianaTestSupport

/// Import through the server: the bytes streamed to this machine's scratch space, the same
/// importer as `yiana import`, one answer per file; refused without the page's token, from
/// another site, on a read-only server, past the size limit, with a folder or name that leaves
/// the library.
@Suite("yiana serve: import", .serialized)
struct ServeImportTests {
    typealias Server = ServeCLITests.Server

    /// POSTs `body` to /import as the page's script does; `stream` sends it without a length
    /// (chunked), as a browser may.
    func send(_ server: Server, folder: String, name: String, body: Data, token: String, origin: String? = nil,
              stream: Bool = false) async throws -> (status: Int, answer: [String: Any]) {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let query = "folder=\(folder.addingPercentEncoding(withAllowedCharacters: allowed)!)&name=\(name.addingPercentEncoding(withAllowedCharacters: allowed)!)"
        var request = URLRequest(url: URL(string: "/import?\(query)", relativeTo: server.base)!)
        request.httpMethod = "POST"
        request.setValue("application/pdf", forHTTPHeaderField: "Content-Type")
        request.setValue(token, forHTTPHeaderField: "X-CSRF-Token")
        request.setValue(origin ?? "http://\(server.base.host!):\(server.base.port!)", forHTTPHeaderField: "Origin")
        if stream { request.httpBodyStream = InputStream(data: body) } else { request.httpBody = body }
        let (data, response) = try await URLSession.shared.data(for: request)
        let answer = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        return ((response as! HTTPURLResponse).statusCode, answer)
    }

    func token(_ server: Server) async throws -> String {
        let page = String(decoding: try await server.get("/import").body, as: UTF8.self)
        let range = try #require(page.range(of: #"data-csrf="[0-9a-f]{64}""#, options: .regularExpression))
        return String(page[range].dropFirst(11).dropLast())
    }

    func uploads(_ home: TemporaryFolder) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: home.path("cache"))
        return (enumerator?.allObjects as? [String] ?? []).filter { $0.contains("upload-") }
    }

    @Test func filesAreImportedOneByOneWithTheirOutcome() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, "--into", "Letters", Fixtures.sample("pdfs/Filled form.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try Server(library: lib, home: home)
        defer { server.stop() }

        let page = String(decoding: try await server.get("/import").body, as: UTF8.self)
        #expect(page.contains("data-folder=\"Letters\"") && page.contains("data-folder=\"\"") && page.contains("/static/import.js"))
        let token = try await token(server)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Bank statement reminder.pdf")))

        let imported = try await send(server, folder: "Letters", name: "Bank statement reminder.pdf", body: pdf, token: token, stream: true)
        #expect(imported.status == 201 && imported.answer["status"] as? String == "imported")
        #expect(imported.answer["document"] as? String == "Letters/Bank statement reminder.yianazip" && imported.answer["pageCount"] as? Int == 2)
        #expect(try await runYiana(["verify", "--library", lib], environment: env).status == 0)
        // The index follows at once, as after `yiana import`.
        let search = String(decoding: try await server.get("/api/search?q=reminder").body, as: UTF8.self)
        #expect(search.contains("Letters/Bank statement reminder.yianazip"))

        let again = try await send(server, folder: "", name: "copy.pdf", body: pdf, token: token)
        #expect(again.status == 200 && again.answer["status"] as? String == "skipped"
                && again.answer["document"] as? String == "Letters/Bank statement reminder.yianazip")
        let notPDF = try await send(server, folder: "", name: "notes.pdf", body: Data("just some words\n".utf8), token: token)
        #expect(notPDF.status == 422 && notPDF.answer["status"] as? String == "failed")
        let reason = try #require(notPDF.answer["reason"] as? String)
        #expect(!reason.contains(home.path("cache")) && !reason.contains("upload-"))
        // A new folder is made, as `yiana import --into` makes it.
        let form = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Flow control paper.pdf")))
        #expect(try await send(server, folder: "New/Deeper", name: "Paper.pdf", body: form, token: token).status == 201)
        #expect(FileManager.default.fileExists(atPath: home.path("Yiana/New/Deeper/Paper.yianazip")))
        #expect(uploads(home).isEmpty)
    }

    @Test func refusedImportsChangeNothing() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let pdf = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Bank statement reminder.pdf")))
        let server = try Server(library: lib, home: home, options: ["--max-import", "1"])
        defer { server.stop() }
        let token = try await token(server)

        #expect(try await send(server, folder: "", name: "a.pdf", body: pdf, token: String(repeating: "0", count: 64)).status == 403)
        #expect(try await send(server, folder: "", name: "a.pdf", body: pdf, token: token, origin: "http://evil.example").status == 403)
        for folder in ["../out", "/etc", ".hidden", "a/../../b"] {
            #expect(try await send(server, folder: folder, name: "a.pdf", body: pdf, token: token).status == 400, "folder \(folder)")
        }
        for name in ["", "../a.pdf", "a/b.pdf", ".hidden.pdf", "a\u{1}.pdf", String(repeating: "n", count: 201)] {
            #expect(try await send(server, folder: "", name: name, body: pdf, token: token).status == 400, "name \(name.debugDescription)")
        }
        let big = Data(count: 3 << 20)
        #expect(try await send(server, folder: "", name: "big.pdf", body: big, token: token).status == 413)
        let streamed = try await send(server, folder: "", name: "big.pdf", body: big, token: token, stream: true)
        #expect(streamed.status == 413 && (streamed.answer["error"] as? [String: Any])?["message"] as? String != nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: lib).filter { !$0.hasPrefix(".") }.isEmpty)
        #expect(uploads(home).isEmpty)
        // Still serving.
        #expect(try await server.get("/import").status == 200)

        let readOnly = try Server(library: lib, home: home, readOnly: true)
        defer { readOnly.stop() }
        #expect(String(decoding: try await readOnly.get("/import").body, as: UTF8.self).contains("read-only"))
        #expect(try await send(readOnly, folder: "", name: "a.pdf", body: pdf, token: token).status == 403)
        #expect(try FileManager.default.contentsOfDirectory(atPath: lib).filter { !$0.hasPrefix(".") }.isEmpty)
    }
}

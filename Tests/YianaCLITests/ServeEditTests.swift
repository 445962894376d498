import Foundation
import Testing
import YianaTestSupport

/// A document renamed, retagged, moved, deleted and brought back from its page, and every
/// way such a request can be wrong refused with a 4xx and nothing changed.
@Suite("yiana serve: editing")
struct ServeEditTests {
    @Test func editDeleteAndUndoFromTheDocumentsPage() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf"), Fixtures.sample("pdfs/Filled form.pdf")],
                                   environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/doc?path=Bank%20statement%20reminder.yianazip").body, as: UTF8.self)
        let token = try #require(page.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression).map { String(page[$0].suffix(65).dropLast()) })
        #expect(page.contains("action=\"/doc/edit\"") && page.contains("<datalist id=\"library-folders\">"))
        let bank = "Bank statement reminder.yianazip"

        // Refused, nothing changed: another origin, a wrong token, outside the library, bad names and tags.
        let edit = ["path": bank, "title": "x", "csrf": token]
        #expect(try await server.post("/doc/edit", form: edit, origin: "http://evil.example").status == 403)
        #expect(try await server.post("/doc/edit", form: edit.merging(["csrf": String(repeating: "0", count: 64)]) { $1 }).status == 403)
        for (field, value) in [("path", "../etc/passwd"), ("path", "a\u{0}b"), ("folder", "../out"), ("folder", ".yiana"),
                               ("tags", (0..<10_000).map { "t\($0)" }.joined(separator: ",")), ("title", "   ")] {
            var form = ["path": bank, "csrf": token]
            form[field] = value
            let status = try await server.post("/doc/edit", form: form).status
            #expect((400..<500).contains(status), "\(field)=\(value.prefix(30)): \(status)")
        }
        #expect(FileManager.default.fileExists(atPath: "\(lib)/\(bank)"))

        // Renamed, retagged and moved in one save: the file as the app names it, the index following.
        let saved = try await server.post("/doc/edit", form: ["path": bank, "title": "lefevre reminder", "tags": "bank, 2026", "folder": "Post/2026", "csrf": token])
        #expect(saved.status == 200 && saved.body.contains("Saved.") && saved.body.contains("<h1>lefevre reminder</h1>"), "\(saved.status) \(saved.body.prefix(300))")
        #expect(FileManager.default.fileExists(atPath: "\(lib)/Post/2026/Lefevre_Reminder.yianazip") && !FileManager.default.fileExists(atPath: "\(lib)/\(bank)"))
        let listed = String(decoding: try await server.get("/?tag=2026").body, as: UTF8.self)
        #expect(listed.contains(">lefevre reminder</a>") && listed.contains("Post/2026"))
        // A name another document has: a 409, nothing changed.
        let taken = try await server.post("/doc/edit", form: ["path": "Filled form.yianazip", "folder": "Post/2026", "title": "Lefevre reminder", "csrf": token])
        #expect(taken.status == 409 && FileManager.default.fileExists(atPath: "\(lib)/Filled form.yianazip"))

        // Deleted with one click, and back with Undo.
        let deleted = try await server.post("/doc/delete", form: ["path": "Post/2026/Lefevre_Reminder.yianazip", "csrf": token])
        #expect(deleted.status == 200 && deleted.body.contains(">Undo</button>") && !FileManager.default.fileExists(atPath: "\(lib)/Post/2026/Lefevre_Reminder.yianazip"))
        let version = try #require(deleted.body.range(of: #"name="version" value="[0-9a-f]{12}""#, options: .regularExpression).map { String(deleted.body[$0].suffix(13).dropLast()) })
        #expect(try await server.post("/doc/undelete", form: ["path": "../x.yianazip", "version": version, "csrf": token]).status == 400)
        let undone = try await server.post("/doc/undelete", form: ["path": "Post/2026/Lefevre_Reminder.yianazip", "version": version, "csrf": token])
        #expect(undone.status == 200 && undone.body.contains("Restored"), "\(undone.status)")
        #expect(FileManager.default.fileExists(atPath: "\(lib)/Post/2026/Lefevre_Reminder.yianazip"))
        #expect(try await server.get("/").status == 200, "still serving")
    }

    /// Several documents ticked on the start page: tagged, moved, and deleted after a confirmation, each with Undo.
    @Test func severalDocumentsAtOnce() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Bank statement reminder.pdf"), Fixtures.sample("pdfs/Filled form.pdf"),
                                    Fixtures.sample("pdfs/Flow control paper.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let start = String(decoding: try await server.get("/").body, as: UTF8.self)
        let token = try #require(start.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression).map { String(start[$0].suffix(65).dropLast()) })
        #expect(start.contains("name=\"path\" value=\"Filled form.yianazip\""), "the start page offers a tick per document")
        let two = [("path", "Bank statement reminder.yianazip"), ("path", "Filled form.yianazip")]

        let tagged = try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "tag"), ("value", "todo")] + two)
        #expect(tagged.status == 200 && tagged.body.contains("2 of 2 done"))
        #expect(String(decoding: try await server.get("/?tag=todo").body, as: UTF8.self).contains("2 documents tagged"))
        let moved = try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "move"), ("value", "Inbox")] + two)
        #expect(moved.status == 200 && FileManager.default.fileExists(atPath: "\(lib)/Inbox/Filled form.yianazip"))
        let inbox = [("path", "Inbox/Bank statement reminder.yianazip"), ("path", "Inbox/Filled form.yianazip")]
        let ask = try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "delete")] + inbox)
        #expect(ask.status == 200 && ask.body.contains("Delete 2 documents?") && FileManager.default.fileExists(atPath: "\(lib)/Inbox/Filled form.yianazip"), "asked first")
        let done = try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "delete"), ("confirm", "1")] + inbox)
        #expect(done.status == 200 && done.body.components(separatedBy: ">Undo</button>").count == 3)
        #expect(!FileManager.default.fileExists(atPath: "\(lib)/Inbox/Filled form.yianazip"))

        // Refused, nothing changed.
        #expect(try await server.post("/docs/bulk", fields: [("csrf", "0"), ("action", "tag"), ("value", "x"), ("path", "Flow control paper.yianazip")]).status == 403)
        #expect(try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "tag"), ("value", "x"), ("path", "Flow control paper.yianazip")],
                                      origin: "http://evil.example").status == 403)
        #expect(try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "burn"), ("path", "Flow control paper.yianazip")]).status == 400)
        #expect(try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "tag"), ("value", "x")]).status == 400)
        #expect(try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "tag"), ("value", "x")] + (0...500).map { ("path", "d\($0)") }).status == 400)
        let outside = try await server.post("/docs/bulk", fields: [("csrf", token), ("action", "delete"), ("confirm", "1"), ("path", "../Yiana/Flow control paper.yianazip")])
        #expect((400..<500).contains(outside.status) && FileManager.default.fileExists(atPath: "\(lib)/Flow control paper.yianazip"))
        #expect(try await server.get("/").status == 200, "still serving")
    }

    @Test func aReadOnlyServerOffersNoEditAndRefusesOne() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Filled form.pdf")], environment: env).status == 0)
        let server = try ServeCLITests.Server(library: lib, home: home, readOnly: true)
        defer { server.stop() }
        let page = String(decoding: try await server.get("/doc?path=Filled%20form.yianazip").body, as: UTF8.self)
        #expect(!page.contains("/doc/edit") && !page.contains("/doc/delete") && !page.contains("/jobs/start"), "no button at all")
        #expect(try await server.post("/doc/delete", form: ["path": "Filled form.yianazip", "csrf": "x"]).status == 403)
        #expect(try await server.post("/jobs/start", form: ["kind": "ocr", "csrf": "x"]).status == 403)
        #expect(try await server.post("/repair/take-temp", form: ["name": "x", "csrf": "x"]).status == 403)
        let plan = String(decoding: try await server.get("/repair").body, as: UTF8.self)
        #expect(plan.contains("No document is known to be damaged.") && !plan.contains("<form"), "the plan, without its buttons")
        #expect(FileManager.default.fileExists(atPath: "\(lib)/Filled form.yianazip"))
    }
}

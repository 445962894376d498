import Foundation
import Testing
import YianaTestSupport

/// `yiana rename`, `move` and `delete` as a script uses them: JSON, exit codes, the index kept current.
@Suite("yiana rename, move, delete")
struct OrganizeCLITests {
    func json(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]], "not a JSON array: \(text)")
    }

    @Test func renameMoveAndDeleteWithTheIndexFollowing() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        func run(_ arguments: [String]) async throws -> ProcessResult { try await runYiana(arguments + ["--library", lib], environment: env) }
        #expect(try await run(["import", Fixtures.sample("pdfs/Bank statement reminder.pdf"), Fixtures.sample("pdfs/Filled form.pdf")]).status == 0)
        #expect(try await run(["index"]).status == 0)

        let dry = try json(try await run(["rename", "Bank statement reminder", "lefevre reminder", "--dry-run", "--json"]).stdout)
        #expect(dry.first?["status"] as? String == "would-rename" && dry.first?["newPath"] as? String == "Lefevre_Reminder.yianazip")
        let renamed = try await run(["rename", "Bank statement reminder", "lefevre reminder"])
        #expect(renamed.status == 0 && renamed.stdout.contains("renamed       Bank statement reminder.yianazip → Lefevre_Reminder.yianazip"), "\(renamed.stdout)\(renamed.stderr)")
        let moved = try json(try await run(["move", "Lefevre_Reminder", "Filled form", "Nowhere", "--to", "Post/2026", "--json"]).stdout)
        #expect(moved.map { $0["status"] as? String } == ["moved", "moved", "failed"] && moved[2]["code"] as? String == "not-found")
        #expect(try await run(["move", "Post/2026/Filled form", "--to", "../out"]).status == 1)

        // The index followed: found at the new path, under the new title, with no staleness note.
        let search = try await run(["search", "lefevre"])
        #expect(search.stdout.contains("Post/2026/Lefevre_Reminder.yianazip — lefevre reminder") && !search.stderr.contains("changed since"), "\(search.stdout)\(search.stderr)")

        let deleted = try json(try await run(["delete", "Post/2026/Lefevre_Reminder", "--json"]).stdout)
        let kept = try #require(deleted.first?["kept"] as? String)
        #expect(deleted.first?["status"] as? String == "deleted")
        #expect(try await run(["search", "lefevre"]).stdout.isEmpty)
        // Listed as deleted at once (what the delete's own line says to look at), before any look at the library.
        let listed = try json(try await run(["versions", "list", "--deleted", "--json"]).stdout)
        #expect(listed.compactMap { $0["path"] as? String } == ["Post/2026/Lefevre_Reminder.yianazip"], "\(listed)")
        #expect(try await run(["versions", "restore", "Post/2026/Lefevre_Reminder.yianazip", kept]).status == 0)
        #expect(try json(try await run(["versions", "list", "--deleted", "--json"]).stdout).isEmpty, "restored: no longer lost")
        #expect(try await run(["search", "lefevre"]).stdout.contains("Post/2026/Lefevre_Reminder.yianazip"))
    }
}

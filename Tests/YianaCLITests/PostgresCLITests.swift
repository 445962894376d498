import Foundation
import Testing
import YianaArchive
import YianaPostgres
import YianaSystem
import YianaTestSupport

/// `--index postgres://…` and `$YIANA_INDEX` on the commands, against PostgreSQL servers the
/// tests start: index, search, status, a command that keeps the index current; a server that
/// stops in the middle of a run (reported, and the next run finishes), and searches of a
/// server that is down or silent (a clear error within the timeout, never a hang).
@Suite("yiana on a PostgreSQL index", .serialized)
struct PostgresCLITests {
    func notes(_ count: Int, in folder: TemporaryFolder) throws {
        for n in 0..<count {
            try CoordinatedDocument.create(at: folder.path("Note \(n).yianazip"), metadata: DocumentMetadata(title: "Note \(n)", pageCount: 1),
                                           pdf: .data(simplePDF(["note number \(n)", "shared words for every note"])))
        }
    }

    @Test func theCommandsTakeTheServersURL() async throws {
        let server = try TestPostgres.shared()
        let url = server.url(database: try server.makeDatabase())
        let library = try TemporaryFolder()
        _ = try await runYiana(["import", "--library", library.url.path, Fixtures.sample("pdfs")])
        // Before any run: the search says what to do, naming the server (never its password).
        let early = try await runYiana(["search", "--library", library.url.path, "--index", url, "bank"], environment: ["USER": "yiana"])
        #expect(early.status != 0 && early.stderr.contains("no search index") && early.stderr.contains("yiana index --index"), "\(early.stderr)")

        let index = try await runYiana(["index", "--library", library.url.path, "--index", url], environment: ["USER": "yiana"])
        #expect(index.status == 0 && index.stdout.contains("5 documents in the index: 5 extracted"), "\(index.stdout)\(index.stderr)")
        #expect(index.stdout.contains("Index: postgres://yiana@"))
        #expect(FileManager.default.fileExists(atPath: library.path(".yiana/library-id")), "the library's id, which travels with it")

        let search = try await runYiana(["search", "--library", library.url.path, "--index", url, "--json", "balance"], environment: ["USER": "yiana"])
        let hits = try #require(try JSONSerialization.jsonObject(with: Data(search.stdout.utf8)) as? [[String: Any]], "\(search.stderr)")
        #expect(hits.first?["path"] as? String == "pdfs/Bank statement reminder.yianazip")
        let snippet = ((hits.first?["pages"] as? [[String: Any]])?.first?["snippet"] as? String) ?? ""
        #expect(snippet.contains("**balance**"), "\(snippet)")

        // $YIANA_INDEX: the same, and a command that writes documents keeps that index current.
        let environment = ["USER": "yiana", "YIANA_INDEX": url]
        #expect(try await runYiana(["search", "--library", library.url.path, "statement"], environment: environment).status == 0)
        let pdf = library.path("../extra-\(UUID().uuidString.prefix(6)).pdf")
        try simplePDF(["Quarterly gazebo inspection"]).write(to: URL(fileURLWithPath: pdf))
        defer { try? FileManager.default.removeItem(atPath: pdf) }
        let imported = try await runYiana(["import", "--library", library.url.path, pdf], environment: environment)
        #expect(imported.status == 0, "\(imported.stderr)")
        let gazebo = try await runYiana(["search", "--library", library.url.path, "gazebo"], environment: environment)
        #expect(gazebo.status == 0 && gazebo.stdout.contains("gazebo"), "found without `yiana index`: \(gazebo.stdout)\(gazebo.stderr)")
        let status = try await runYiana(["status", "--library", library.url.path], environment: environment)
        #expect(status.stdout.contains("index: 6 documents") && status.stdout.contains("postgres://yiana@"), "\(status.stdout)")
        // A URL that is not one is named without going near a server.
        let wrong = try await runYiana(["search", "--library", library.url.path, "--index", "postgres://yiana@[::1/x", "bank"])
        #expect(wrong.status != 0 && wrong.stderr.contains("IPv6"), "\(wrong.stderr)")
    }

    /// The server stops while `yiana index` writes: the run fails naming the server; started
    /// again, the next run finishes what the first did not (and keeps what it wrote).
    @Test func aServerStoppedMidRunIsReportedAndTheNextRunFinishes() async throws {
        let server = try TestPostgres()
        let url = server.url(extra: "connect_timeout=3")
        let library = try TemporaryFolder()
        // 1,500 one-page documents, written by the benchmarks' generator (a second where the
        // coordinated writer, syncing each file, takes ten).
        let made = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                  ["python3", Fixtures.sampleDocs.deletingLastPathComponent().appendingPathComponent("Scripts/generate/library.py").path,
                                   "1500", library.url.path])
        #expect(made.status == 0, "\(made.stderr)")
        let path = library.url.path
        // The tables made, and each document's row slowed down by the server (10 ms), so that
        // the run is surely still writing when the server stops, whatever this machine's speed.
        let database = try await PostgresDatabase.connect(try PostgresLocation(url: url, environment: ["USER": "yiana"]))
        try await PostgresSchema.migrate(database)
        try await database.run(within: 10) { connection in
            try await connection.query("""
                CREATE FUNCTION test_slow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.01); RETURN NEW; END $$
                """, logger: .init(label: "test"))
            try await connection.query("CREATE TRIGGER test_slow AFTER INSERT ON yiana_document FOR EACH ROW EXECUTE FUNCTION test_slow()",
                                       logger: .init(label: "test"))
        }
        let run = Task.detached { try runYiana(["index", "--library", path, "--index", url, "--jobs", "1"], environment: ["USER": "yiana"]) }
        // Stopped once the first batch is in.
        var written = 0
        for _ in 0..<3000 where written == 0 {
            try await Task.sleep(for: .milliseconds(10))
            written = (try? await database.run(within: 5) { connection in
                var count = 0
                let rows = try await connection.query("SELECT count(*)::int8 FROM yiana_document", logger: .init(label: "test"))
                for try await value in rows.decode(Int.self) { count = value }
                return count
            }) ?? 0
        }
        await database.close()
        #expect(written > 0 && written < 1500, "the first batch (\(written)) is in before the run ends")
        server.stop()
        let first = try await run.value
        #expect(first.status != 0, "\(first.stdout)")
        // Gone ("not answering"), or shutting down and taking a connection it never answers
        // (given up after connect_timeout).
        #expect(first.stderr.contains("PostgreSQL server") && (first.stderr.contains("not answering") || first.stderr.contains("did not answer within 3 s")),
                "\(first.stderr)")

        try server.start()
        let again = try await PostgresDatabase.connect(try PostgresLocation(url: url, environment: ["USER": "yiana"]))
        _ = try await again.run(within: 10) { connection in
            try await connection.query("DROP TRIGGER test_slow ON yiana_document", logger: .init(label: "test"))
        }
        await again.close()
        let second = try await runYiana(["index", "--library", path, "--index", url], environment: ["USER": "yiana"])
        #expect(second.status == 0 && second.stdout.contains("1,500 documents in the index") || second.stdout.contains("1500 documents in the index"), "\(second.stdout)\(second.stderr)")
        #expect(!second.stdout.contains(": 1500 extracted") && !second.stdout.contains(": 1,500 extracted"), "what the first run wrote is kept: \(second.stdout)")

        // Down: a search says so at once; a server that takes the connection and never answers
        // is given up after connect_timeout.
        server.stop()
        let started = Date()
        let down = try await runYiana(["search", "--library", path, "--index", url, "note"], environment: ["USER": "yiana"])
        #expect(down.status != 0 && down.stderr.contains("not answering") && Date().timeIntervalSince(started) < 5, "\(down.stderr)")
        let silentPort = try Sys.freeLoopbackPort()
        let silent = try SilentListener(port: silentPort)
        defer { silent.close() }
        let waited = Date()
        let hung = try await runYiana(["search", "--library", path, "--index", "postgres://yiana@127.0.0.1:\(silentPort)/x?connect_timeout=1", "note"],
                                environment: ["USER": "yiana"])
        #expect(hung.status != 0 && hung.stderr.contains("did not answer within 1 s"), "\(hung.stderr)")
        #expect(Date().timeIntervalSince(waited) < 4)
    }
}

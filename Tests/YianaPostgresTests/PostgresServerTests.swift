import Foundation
import Testing
import YianaSystem
import YianaTestSupport
@testable import YianaPostgres

/// Against a real PostgreSQL server each test starts itself: connecting by socket and by TCP
/// with a password, every refusal said with the server's name and what to do, a dead or silent
/// server an error within the timeout (never a hang), the schema made once however many
/// machines start at once, and a newer schema refused.
@Suite("postgres server", .serialized)
struct PostgresServerTests {
    func location(_ url: String, _ environment: [String: String] = [:]) throws -> PostgresLocation {
        try PostgresLocation(url: url, environment: ["USER": "yiana", "HOME": "/nonexistent"].merging(environment) { $1 })
    }

    func failure(_ location: PostgresLocation) async -> PostgresIndexError? {
        do {
            let database = try await PostgresDatabase.connect(location)
            await database.close()
            return nil
        } catch {
            return error
        }
    }

    @Test func connectingAndItsRefusals() async throws {
        let server = try TestPostgres()
        let bySocket = try await PostgresDatabase.connect(try location(server.url()))
        #expect(try await PostgresSchema.check(bySocket) == 0)
        await bySocket.close()
        let byTCP = try await PostgresDatabase.connect(try location(server.url(tcp: true, extra: "sslmode=disable"), ["PGPASSWORD": server.password]))
        await byTCP.close()

        let noPassword = await failure(try location(server.url(tcp: true, extra: "sslmode=disable")))
        #expect(noPassword?.description.contains("127.0.0.1:\(server.port)") == true && noPassword?.description.contains("~/.pgpass") == true, "\(String(describing: noPassword))")
        let wrong = await failure(try location(server.url(tcp: true, extra: "sslmode=disable"), ["PGPASSWORD": "guess"]))
        #expect(wrong.map { if case .refused = $0.kind { return $0.description.contains("$PGPASSWORD") } else { return false } } == true, "\(String(describing: wrong))")
        let noDatabase = await failure(try location(server.url(database: "nope")))
        #expect(noDatabase?.kind == .noSuchDatabase && noDatabase?.description.contains("createdb nope") == true)
        // sslmode=require against a server without TLS.
        let tls = await failure(try location(server.url(tcp: true, extra: "sslmode=require"), ["PGPASSWORD": server.password]))
        #expect(tls.map { if case .tls = $0.kind { return true } else { return false } } == true, "\(String(describing: tls))")

        // The server goes down: a clear error, at once.
        server.stop()
        let started = Date()
        let down = await failure(try location(server.url()))
        #expect(down.map { if case .notAnswering = $0.kind { return $0.description.contains("is it running") } else { return false } } == true, "\(String(describing: down))")
        #expect(Date().timeIntervalSince(started) < 5)
        try server.start()
        let back = try await PostgresDatabase.connect(try location(server.url()))
        await back.close()
    }

    /// Work that never ends on a connection given up (as postgres-nio can leave a statement
    /// sent while its connection closes): the close frees the pool's one slot, so the next call
    /// is answered at once instead of waiting for a slot until its own timeout.
    @Test func workThatNeverEndsDoesNotHoldThePoolsSlot() async throws {
        let server = try TestPostgres.shared()
        let database = try await PostgresDatabase.connect(try location(server.url(database: try server.makeDatabase())))
        let hung = Task {
            try await database.run(within: 0.5) { _ in
                await withCheckedContinuation { (_: CheckedContinuation<Void, Never>) in }  // never answered, cancelled or not
            }
        }
        let given = await #expect(throws: PostgresIndexError.self) { try await hung.value }
        #expect(given?.description.contains("did not finish the work within 0.5 s") == true, "\(String(describing: given))")
        let started = Date()
        let answer = try await database.run(within: 10) { connection in
            var values: [Int] = []
            for try await value in try await connection.query("SELECT 1", logger: PostgresDatabase.logger).decode(Int.self) { values.append(value) }
            return values
        }
        #expect(answer == [1])
        #expect(Date().timeIntervalSince(started) < 5)
        await database.close()
    }

    /// More callers than connections: each waits its turn (never more connections open than
    /// the limit), one whose time runs out while waiting fails alone, and the pool goes on.
    @Test func callersBeyondThePoolWaitTheirTurn() async throws {
        let server = try TestPostgres.shared()
        let database = try await PostgresDatabase.connect(try location(server.url(database: try server.makeDatabase())), connections: 2)
        let busy = Counter()
        let answers = try await withThrowingTaskGroup(of: Int.self) { group in
            for n in 0..<40 {
                group.addTask {
                    try await database.run(within: 20) { connection in
                        busy.enter()
                        defer { busy.leave() }
                        var value = 0
                        for try await v in try await connection.query("SELECT \(n) FROM pg_sleep(0.005)", logger: PostgresDatabase.logger).decode(Int.self) { value = v }
                        return value
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(answers.sorted() == Array(0..<40))
        #expect(busy.most == 2, "at most two at once, and both used")
        // Both connections held for a second: a caller who may wait 0.2 s fails with its timeout;
        // the holders finish, and the next caller is served at once.
        let holders = (0..<2).map { _ in Task { try await database.run(within: 10) { try await $0.query("SELECT pg_sleep(1)", logger: PostgresDatabase.logger) } } }
        try await Task.sleep(for: .milliseconds(200))
        let late = await #expect(throws: PostgresIndexError.self) { try await database.run(within: 0.2) { _ in 1 } }
        #expect(late?.kind == .timedOut(0.2), "\(String(describing: late))")
        for holder in holders { _ = try await holder.value }
        let started = Date()
        #expect(try await database.run(within: 5) { _ in 7 } == 7)
        #expect(Date().timeIntervalSince(started) < 1)
        await database.close()
    }

    /// A server that takes the connection and never says a word: the timeout, not a hang.
    @Test func aSilentServerTimesOut() async throws {
        let port = try Sys.freeLoopbackPort()
        let listener = try SilentListener(port: port)
        defer { listener.close() }
        let started = Date()
        let silent = await failure(try location("postgres://yiana@127.0.0.1:\(port)/x?sslmode=disable&connect_timeout=1"))
        #expect(silent?.kind == .timedOut(1) && silent?.description.contains("did not answer within 1 s") == true, "\(String(describing: silent))")
        #expect(Date().timeIntervalSince(started) < 4)
    }

    @Test func theSchemaIsMadeOnceAndANewerOneRefused() async throws {
        let server = try TestPostgres()
        let url = try location(server.url())
        // Four machines at once on a new database: each waits for the first, none runs a migration twice.
        let results = try await withThrowingTaskGroup(of: (Int, Int).self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let database = try await PostgresDatabase.connect(url)
                    defer { Task { await database.close() } }
                    return try await PostgresSchema.migrate(database)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.filter { $0 == (0, PostgresSchema.version) }.count == 1 && results.filter { $0 == (PostgresSchema.version, PostgresSchema.version) }.count == 3, "\(results)")
        let database = try await PostgresDatabase.connect(url)
        #expect(try await PostgresSchema.check(database) == PostgresSchema.version)
        let tables = try await database.run(within: 5) { connection in
            var names: [String] = []
            for try await name in try await connection.query("SELECT tablename FROM pg_tables WHERE tablename LIKE 'yiana_%' ORDER BY 1", logger: PostgresDatabase.logger).decode(String.self) {
                names.append(name)
            }
            return names
        }
        #expect(tables == ["yiana_document", "yiana_document_addresses", "yiana_library", "yiana_ods_practice", "yiana_page", "yiana_schema", "yiana_seen", "yiana_state", "yiana_upkeep", "yiana_word", "yiana_word_letter", "yiana_word_version"])
        // A newer yiana's schema: this one refuses it, by name.
        _ = try await database.run(within: 5) { try await $0.query("INSERT INTO yiana_schema (version) VALUES (99)", logger: PostgresDatabase.logger) }
        do {
            _ = try await PostgresSchema.check(database)
            Issue.record("a newer schema was taken")
        } catch {
            #expect(error.kind == .schemaTooNew(found: 99, known: PostgresSchema.version) && error.description.contains("update yiana"))
        }
        await database.close()
    }
}

/// TLS as `sslmode` asks, against a server of the test's own with a certificate for
/// `db.example` and 127.0.0.1: required and used; the chain checked against the given root
/// (`verify-ca`) and the name too (`verify-full`), a name the certificate does not hold refused.
@Suite("postgres TLS", .serialized)
struct PostgresTLSTests {
    @Test func sslModesAsLibpqUsersExpect() async throws {
        let server = try TestPostgres(tlsName: "db.example")
        let environment = ["USER": "yiana", "HOME": "/nonexistent", "PGPASSWORD": server.password]
        func connect(_ parameters: String) async throws -> PostgresIndexError? {
            let location = try PostgresLocation(url: server.url(tcp: true, extra: parameters), environment: environment)
            do {
                let database = try await PostgresDatabase.connect(location)
                let encrypted = try await database.run(within: 5) { connection in
                    var ssl = false
                    for try await value in try await connection.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()", logger: PostgresDatabase.logger).decode(Bool.self) {
                        ssl = value
                    }
                    return ssl
                }
                await database.close()
                return encrypted == !parameters.contains("sslmode=disable") ? nil : PostgresIndexError(.other("TLS \(encrypted ? "used" : "not used")"), location: database.location)
            } catch {
                return error  // typed: every failure of connect and run is a PostgresIndexError
            }
        }
        #expect(try await connect("sslmode=disable") == nil)
        #expect(try await connect("sslmode=require") == nil)
        #expect(try await connect("sslmode=prefer") == nil)
        #expect(try await connect("sslmode=verify-ca&sslrootcert=\(server.certificate)") == nil)
        #expect(try await connect("sslmode=verify-full&sslrootcert=\(server.certificate)") == nil, "127.0.0.1 is in the certificate")
        // Without the root to trust, the self-made certificate is refused.
        let untrusted = try await connect("sslmode=verify-full")
        #expect(untrusted.map { if case .tls = $0.kind { return $0.description.contains("sslrootcert") } else { return false } } == true, "\(String(describing: untrusted))")
    }
}

/// How many callers are inside at once, and the most there were.
final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var now = 0, peak = 0
    var most: Int { lock.withLock { peak } }
    func enter() { lock.withLock { now += 1; peak = max(peak, now) } }
    func leave() { lock.withLock { now -= 1 } }
}

import Foundation
import Testing
import YianaTestSupport
@testable import YianaPostgres

/// `--index postgres://…` read as libpq reads it: the URL's parts, the environment's defaults,
/// the password from the URL, `$PGPASSWORD` or a password file only its owner can read.
@Suite("postgres locations")
struct PostgresLocationTests {
    let empty: [String: String] = ["USER": "ann", "HOME": "/nonexistent"]

    @Test func theURLsPartsAndItsDefaults() throws {
        let full = try PostgresLocation(url: "postgres://bob:s%3Acret@db.example:6543/clinic?sslmode=verify-full&connect_timeout=3", environment: empty)
        #expect(full.user == "bob" && full.password == "s:cret" && full.passwordSource == "the URL" && full.host == "db.example" && full.port == 6543
                && full.database == "clinic" && full.sslMode == .verifyFull && full.connectTimeout == 3 && !full.isSocket)
        #expect(full.description == "postgres://bob@db.example:6543/clinic", "no password in messages")
        let bare = try PostgresLocation(url: "postgresql://", environment: empty)
        #expect(bare.user == "ann" && bare.host == "/var/run/postgresql" && bare.port == 5432 && bare.database == "ann" && bare.sslMode == .prefer
                && bare.socketPath == "/var/run/postgresql/.s.PGSQL.5432" && bare.password == nil)
        let socket = try PostgresLocation(url: "postgres://me@%2Ftmp%2Fpg:5999/yiana", environment: empty)
        #expect(socket.isSocket && socket.socketPath == "/tmp/pg/.s.PGSQL.5999")
        #expect(try PostgresLocation(url: "postgres://me@/yiana?host=/run/pg", environment: empty).host == "/run/pg")
        let v6 = try PostgresLocation(url: "postgres://me@[::1]:5433/yiana", environment: empty)
        #expect(v6.host == "::1" && v6.port == 5433 && v6.description == "postgres://me@[::1]:5433/yiana")
        var environment = empty
        (environment["PGHOST"], environment["PGPORT"], environment["PGUSER"], environment["PGDATABASE"], environment["PGSSLMODE"], environment["PGPASSWORD"]) =
            ("pg.example", "7000", "carol", "home", "require", "from env")
        let fromEnvironment = try PostgresLocation(url: "postgres://", environment: environment)
        #expect(fromEnvironment.host == "pg.example" && fromEnvironment.port == 7000 && fromEnvironment.user == "carol" && fromEnvironment.database == "home"
                && fromEnvironment.sslMode == .require && fromEnvironment.password == "from env" && fromEnvironment.passwordSource == "$PGPASSWORD")
    }

    @Test func wrongURLsAreNamedWithoutTheirPassword() {
        for (url, why) in [("postgres://h:99999/db", "port"), ("postgres://h/db?sslmode=sometimes", "sslmode"), ("postgres://h/db?connect_timeout=0", "connect_timeout"),
                           ("postgres://u:secret@[::1/db", "IPv6"), ("mysql://h/db", "postgres://"), ("postgres://u:secret@h/db?x", "name=value")] {
            do {
                _ = try PostgresLocation(url: url, environment: empty)
                Issue.record("\(url) was taken")
            } catch {
                #expect(error.description.contains(why) && !error.description.contains("secret"), "\(error)")
            }
        }
    }

    @Test func thePasswordFileAsLibpqReadsIt() throws {
        let home = try TemporaryFolder()
        let file = home.path(".pgpass")
        try """
            # host:port:database:user:password
            other.example:5432:*:bob:not this
            db.example:5432:clinic:bob:a\\:b\\\\c
            *:*:*:carol:for carol
            localhost:5432:*:ann:via the socket
            """.write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        let environment = ["USER": "ann", "HOME": home.url.path]
        let bob = try PostgresLocation(url: "postgres://bob@db.example/clinic", environment: environment)
        #expect(bob.password == "a:b\\c" && bob.passwordSource == file)
        #expect(try PostgresLocation(url: "postgres://carol@anywhere:1234/x", environment: environment).password == "for carol")
        #expect(try PostgresLocation(url: "postgres://", environment: environment).password == "via the socket", "localhost stands for the default socket")
        #expect(try PostgresLocation(url: "postgres://dave@db.example/clinic", environment: environment).password == nil)
        // Readable by others: ignored, as libpq ignores it.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
        #expect(try PostgresLocation(url: "postgres://bob@db.example/clinic", environment: environment).password == nil)
        // $PGPASSFILE names another file.
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        try FileManager.default.moveItem(atPath: file, toPath: home.path("elsewhere"))
        #expect(try PostgresLocation(url: "postgres://bob@db.example/clinic", environment: ["PGPASSFILE": home.path("elsewhere")]).password == "a:b\\c")
    }
}

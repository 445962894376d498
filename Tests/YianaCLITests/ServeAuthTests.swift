import Foundation
import Testing
import YianaTestSupport

/// A server with a password: its file made by `--set-password` (an scrypt hash, this user's
/// only), every request sent to log in first, session cookies with the right attributes, the
/// login's form token, wrong passwords rate-limited per client, logging out. Without one, the
/// server answers to loopback names only (no DNS rebinding).
@Suite("yiana serve: login", .serialized)
struct ServeAuthTests {
    let password = "correct horse battery staple"

    func passwordFile(_ home: TemporaryFolder) throws -> String {
        let file = home.path("config/serve-password")
        #expect(try runYiana(["serve", "--set-password", file], input: "short\n").status != 0)
        let made = try runYiana(["serve", "--set-password", file], input: password + "\n")
        #expect(made.status == 0, "\(made.stderr)")
        let line = try String(contentsOfFile: file, encoding: .utf8)
        #expect(line.hasPrefix("scrypt:15:8:1:") && !line.contains(password))
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        return file
    }

    @Test func everyRequestNeedsALogin() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let file = try passwordFile(home)
        // Beyond loopback only with a password; a password file that is not one is named.
        let refused = try await runYiana(["serve", "--library", lib, "--listen", "0.0.0.0:8484"])
        #expect(refused.status == 2 && refused.stderr.contains("--set-password"), "\(refused.stderr)")
        try "hunter2\n".write(toFile: home.path("plain"), atomically: true, encoding: .utf8)
        let plain = try await runYiana(["serve", "--library", lib, "--password-file", home.path("plain"), "--listen", "127.0.0.1:0"])
        #expect(plain.status == 2 && plain.stderr.contains("not a password file"), "\(plain.stderr)")

        let server = try ServeCLITests.Server(library: lib, home: home, options: ["--password-file", file])
        defer { server.stop() }
        let port = server.base.port!
        func get(_ path: String, cookie: String? = nil) throws -> RawHTTP {
            try RawHTTP.send(port: port, "GET \(path) HTTP/1.1\r\nHost: yiana.example:443" + (cookie.map { "\r\nCookie: \(Sessions.name)=\($0)" } ?? ""))
        }
        func login(_ password: String, token: String, client: String = "192.0.2.7", https: Bool = false) throws -> RawHTTP {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let form = "password=\(password.addingPercentEncoding(withAllowedCharacters: allowed)!)&csrf=\(token)&next=%2Fhealth%3Fstate%3Ddamaged"
            return try RawHTTP.send(port: port, "POST /login HTTP/1.1\r\nHost: yiana.example:443\r\nOrigin: http://yiana.example:443\r\n"
                                    + "Content-Type: application/x-www-form-urlencoded\r\nX-Forwarded-For: \(client)" + (https ? "\r\nX-Forwarded-Proto: https" : ""), body: form)
        }

        let page = try get("/health?state=damaged")
        let location = try #require(page.headers["location"])
        #expect(page.status == 303 && location.hasPrefix("/login?next=")
                && URLComponents(string: location)?.queryItems?.first?.value == "/health?state=damaged")
        let api = try get("/api/search?q=x")
        #expect(api.status == 401 && api.body.contains("Log in"))
        #expect(try RawHTTP.send(port: port, "POST /import?folder=&name=a.pdf HTTP/1.1\r\nHost: yiana.example", body: "%PDF-").status == 401)
        let form = try get("/login?next=%2Fhealth")
        #expect(form.status == 200 && form.body.contains("type=\"password\""))
        let token = try #require(form.body.range(of: #"name="csrf" value="[0-9a-f]{64}""#, options: .regularExpression)
            .map { String(form.body[$0].suffix(65).dropLast()) })
        #expect(try get("/static/style.css").status == 200)

        // The form token is needed; a wrong password is a 401 and no cookie.
        #expect(try login(password, token: String(repeating: "0", count: 64)).status == 403)
        let wrong = try login("not it at all", token: token)
        #expect(wrong.status == 401 && wrong.headers["set-cookie"] == nil && wrong.body.contains("not the password"))
        let right = try login(password, token: token)
        #expect(right.status == 303 && right.headers["location"] == "/health?state=damaged")
        let cookie = try #require(right.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/") && !cookie.contains("Secure"))
        let session = String(cookie.split(separator: ";")[0].split(separator: "=")[1])
        let health = try get("/health", cookie: session)
        #expect(health.status == 200 && health.body.contains("Log out"))
        #expect(try get("/api/search?q=x", cookie: session).status == 503)  // in, and told there is no index yet
        #expect(try get("/health", cookie: String(repeating: "a", count: 64)).status == 303)
        // Behind an HTTPS proxy the cookie is Secure.
        #expect(try login(password, token: token, client: "192.0.2.9", https: true).headers["set-cookie"]?.contains("; Secure") == true)

        // Five wrong passwords from one client: it waits, even with the right one; others do not.
        for _ in 0..<4 { #expect(try login("guess", token: token, client: "198.51.100.1").status == 401) }
        #expect(try login("guess", token: token, client: "198.51.100.1").status == 401)
        let limited = try login(password, token: token, client: "198.51.100.1")
        #expect(limited.status == 429 && Int(limited.headers["retry-after"] ?? "") ?? 0 > 800)
        #expect(try login(password, token: token, client: "198.51.100.2").status == 303)

        // Logging out ends the session.
        let out = try RawHTTP.send(port: port, "POST /logout HTTP/1.1\r\nHost: yiana.example:443\r\nOrigin: http://yiana.example:443\r\n"
                                   + "Content-Type: application/x-www-form-urlencoded\r\nCookie: \(Sessions.name)=\(session)", body: "csrf=\(token)")
        #expect(out.status == 303 && out.headers["set-cookie"]?.contains("Max-Age=0") == true)
        #expect(try get("/health", cookie: session).status == 303)
    }

    @Test func withoutAPasswordOnlyLoopbackNamesAreAnswered() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let port = server.base.port!
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)", "LOCALHOST"] {
            #expect(try RawHTTP.send(port: port, "GET /health HTTP/1.1\r\nHost: \(host)").status == 200, "\(host)")
        }
        for host in ["evil.example", "evil.example:\(port)", "127.0.0.1.evil.example", "[::1].evil"] {
            #expect(try RawHTTP.send(port: port, "GET /api/health HTTP/1.1\r\nHost: \(host)").status == 421, "\(host)")
        }
    }
}

enum Sessions {
    static let name = "yiana_session"
}

import Foundation
import Testing
import YianaTestSupport

/// Hostile requests, sent byte for byte as written (no client tidies them): every path that
/// tries to leave the library or reach something that is not a document, every parameter out
/// of range, script and header injection. Each gets a 4xx (never a 5xx, never a byte of what
/// lies outside), nothing hangs, and the server goes on serving.
@Suite("yiana serve: hostile requests", .serialized)
struct ServeHostileTests {
    static let document = "Letters/Bank%20statement%20reminder.yianazip"

    /// Values of `path` (as sent, percent-encoding and all) that must not reach a file.
    static let paths = [
        "../outside.yianazip", "..%2Foutside.yianazip", "%2E%2E/outside.yianazip", "Letters/../../outside.yianazip",
        "/etc/passwd", "%2Fetc%2Fpasswd", "Linked/Bank%20statement%20reminder.yianazip", "Letters/./Bank%20statement%20reminder.yianazip",
        "Letters//Bank%20statement%20reminder.yianazip", ".yiana/versions/x.yianazip", "Letters/.hidden.yianazip", "Letters",
        "Letters/", "", "%00", "Letters/Bank%20statement%20reminder.yianazip%00.png", String(repeating: "a/", count: 3000) + "x.yianazip",
        "~/x.yianazip", "C:%5Cwindows.yianazip", "Letters%5C..%5C..%5Coutside.yianazip", "%252e%252e/outside.yianazip",
        "Letters/Bank%20statement%20reminder.pdf", "Letters/Nothing.yianazip", "%C0%AE%C0%AE/outside.yianazip", "%zz.yianazip",
        "Letters/%E2%80%AEpizanaiy.yianazip", "Fifo.yianazip", "LinkOut.yianazip", "Folder.yianazip",
        "Letters/Bank%20statement%20reminder.yianazip/", "Letters/Bank%20statement%20reminder.yianazip/..",
        "Letters%2F..%2F..%2Foutside.yianazip", "....//outside.yianazip", "..;/outside.yianazip", "%2e%2e%5coutside.yianazip",
        "Letters/Bank%20statement%20reminder.yianazip%0D%0ASet-Cookie:%20stolen=1", "file:///etc/passwd",
        "http://evil.example/x.yianazip", "Letters/Bank%20statement%20reminder.YIANAZIP", String(repeating: "a", count: 4090) + ".yianazip",
        "Dev.yianazip",
    ]

    /// Other parameters out of range or hostile, on a real document.
    static let others = [
        "/page-image?path=\(document)&n=-1", "/page-image?path=\(document)&n=0", "/page-image?path=\(document)&n=99999999999999999999",
        "/page-image?path=\(document)&n=1&w=0", "/page-image?path=\(document)&n=1&w=-5", "/page-image?path=\(document)&n=1&w=100000000",
        "/api/hits?path=\(document)&n=1&q=" + String(repeating: "x", count: 10_000), "/api/search?q=a&limit=1e3",
        "/api/search?q=a&limit=0", "/api/search?q=a&since=yesterday", "/api/search?q=" + String(repeating: "a%20", count: 200),
        "/api/search?q=%22unterminated", "/api/search?q=a*%20OR%20NEAR(b", "/api/search?q=a%00b", "/?q=%22a%00b%22&tag=%00", "/results?q=a%00b&folder=%00",
        "/api/hits?path=\(document)&n=1&q=bank%00statement", "/hits.svg?path=\(document)&n=1&q=%22bank%00statement%22",
        "/hits.svg?path=\(document)&n=1&q=%3C/svg%3E",
        "/version-image?path=\(document)&id=..%2F..%2Fetc%2Fpasswd", "/version-image?path=\(document)&id=",
        "/conflicts/plan?path=\(document)&strategy=rm%20-rf", "/health?state=%3Cscript%3E",
        "/api/search?" + Array(repeating: "tag=t", count: 1000).joined(separator: "&") + "&q=a",
    ]

    @Test func hostileRequestsGetA4xxAndNothingElse() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, "--into", "Letters", Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: env).status == 0)
        #expect(try await runYiana(["index", "--library", lib], environment: env).status == 0)
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: home.path("Yiana/Linked"), withDestinationPath: home.path("Yiana/Letters"))
        try Data("secret".utf8).write(to: home.url.appendingPathComponent("outside.yianazip"))
        try fm.createSymbolicLink(atPath: home.path("Yiana/LinkOut.yianazip"), withDestinationPath: home.path("outside.yianazip"))
        try fm.createSymbolicLink(atPath: home.path("Yiana/Dev.yianazip"), withDestinationPath: "/dev/zero")
        try fm.createDirectory(atPath: home.path("Yiana/Folder.yianazip"), withIntermediateDirectories: false)
        #expect(mkfifo(home.path("Yiana/Fifo.yianazip"), 0o644) == 0)
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let port = server.base.port!
        func send(_ target: String) throws -> RawHTTP {
            try RawHTTP.send(port: port, "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)")
        }

        var tried = 0
        for path in Self.paths {
            for route in ["/doc?path=", "/page-image?n=1&path=", "/pdf?path=", "/api/hits?n=1&path=", "/hits.svg?n=1&q=a&path=", "/conflicts/plan?strategy=merge&path="] {
                let answer = try send(route + path)
                #expect((400..<500).contains(answer.status), "\(route)\(path.prefix(80)): \(answer.status)")
                #expect(!answer.body.contains("secret") && answer.headers["set-cookie"] == nil, "\(route)\(path.prefix(80))")
            }
            tried += 1
        }
        for target in Self.others {
            let answer = try send(target)
            #expect((400..<500).contains(answer.status) || answer.status == 200, "\(target.prefix(100)): \(answer.status)")
            #expect(!answer.body.contains("<script>") && !answer.body.contains("</svg></svg>"), "\(target.prefix(100))")
            tried += 1
        }
        // Request targets no query decides: dot segments, encoded or not, and absolute forms.
        for target in ["/static/../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/static/..%2F..%2Fetc%2Fpasswd",
                       "http://evil.example/etc/passwd", "//etc/passwd", "/static/style.css/../../../outside.yianazip"] {
            let answer = try send(target)
            #expect(answer.status == 404 || answer.status == 400 || answer.status == 421, "\(target): \(answer.status)")
            #expect(!answer.body.contains("root:") && !answer.body.contains("secret"), "\(target)")
            tried += 1
        }
        #expect(tried >= 50)
        #expect(try send("/doc?path=\(Self.document)").status == 200, "still serving")
        #expect(try send("/api/search?q=statement").body.contains("Bank statement reminder"))
    }
}

/// The PDF download is streamed: a whole, right PDF with its length, and for a document whose
/// PDF fails its CRC a download cut short of its `Content-Length` (never a wrong PDF that looks whole).
@Suite("yiana serve: PDF download")
struct ServePDFTests {
    @Test func aPDFThatFailsItsCRCIsNeverSentWhole() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        #expect(try await runYiana(["import", "--library", lib, Fixtures.sample("pdfs/Flow control paper.pdf")], environment: env).status == 0)
        try FileManager.default.copyItem(atPath: home.path("Yiana/Flow control paper.yianazip"), toPath: home.path("Yiana/Flipped.yianazip"))
        var bytes = try Data(contentsOf: URL(fileURLWithPath: home.path("Yiana/Flipped.yianazip")))
        bytes[bytes.count / 2] ^= 0x20
        try bytes.write(to: URL(fileURLWithPath: home.path("Yiana/Flipped.yianazip")))
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let port = server.base.port!
        let original = try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Flow control paper.pdf")))

        let whole = try RawHTTP.send(port: port, "GET /pdf?path=Flow%20control%20paper.yianazip HTTP/1.1\r\nHost: 127.0.0.1")
        #expect(whole.status == 200 && whole.headers["content-length"] == "\(original.count)" && whole.bytes == Array(original))
        let cut = try RawHTTP.send(port: port, "GET /pdf?path=Flipped.yianazip HTTP/1.1\r\nHost: 127.0.0.1")
        #expect(cut.headers["content-length"] == "\(original.count)" && cut.bytes.count < original.count, "\(cut.bytes.count) of \(original.count)")
        #expect(try RawHTTP.send(port: port, "GET /pdf?path=Flow%20control%20paper.yianazip HTTP/1.1\r\nHost: 127.0.0.1").status == 200, "still serving")
    }
}

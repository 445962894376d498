import Foundation
import Testing
import YianaTestSupport

/// The manual holds together: every relative link in README.md and docs/ reaches a file that
/// exists, and a `#fragment` into a page one of its headings (Scripts/checks/links.py, which
/// Scripts/checks/structure.sh runs too).
@Suite("documentation")
struct DocumentationTests {
    static let checker = Fixtures.packageRoot.appendingPathComponent("Scripts/checks/links.py").path

    @Test func noLinkInTheReadmeOrTheManualDangles() async throws {
        let run = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.checker, Fixtures.packageRoot.path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("dangling links in README.md and docs/"))
    }

    /// The checker finds what it is for: a missing file, a missing heading, a link out of the
    /// repository; and leaves web links, code and existing targets alone.
    @Test func theCheckerFindsEachKindOfDanglingLink() async throws {
        let root = try TemporaryFolder()
        try FileManager.default.createDirectory(at: root.url.appendingPathComponent("docs"), withIntermediateDirectories: true)
        try """
            # Title
            [fine](docs/GUIDE.md) [fine too](docs/GUIDE.md#the-first-part-ab) [web](https://example.org/x)
            `[code](nowhere.md)` [missing](docs/NOWHERE.md)
            """.write(to: root.url.appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        try """
            # Guide
            ## The first part (`a.b`)
            [back](../README.md#title) [no such heading](../README.md#nothing) [outside](../../etc/passwd)
            ```
            [in a block](nowhere.md)
            ```
            """.write(to: root.url.appendingPathComponent("docs/GUIDE.md"), atomically: true, encoding: .utf8)
        let run = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", Self.checker, root.url.path])
        #expect(run.status == 1)
        let broken = run.stdout.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(broken.count == 3, "\(run.stdout)")
        #expect(broken.contains { $0.hasPrefix("README.md:3: docs/NOWHERE.md (no such file)") })
        #expect(broken.contains { $0.hasPrefix("docs/GUIDE.md:3: ../README.md#nothing (no heading") })
        #expect(broken.contains { $0.hasPrefix("docs/GUIDE.md:3: ../../etc/passwd (outside the repository)") })
    }
}

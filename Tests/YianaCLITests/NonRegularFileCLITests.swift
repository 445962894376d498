import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

/// Paths that are not what they seem: one rule for every command. A named path that is not
/// a regular file (a FIFO, a folder, a symbolic link, looping or leaving the library) is
/// reported with the reason and exit code 1, never opened, never followed, never hung on.
@Suite("files that are not documents")
struct NonRegularFileCLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    /// A library with a good document, a FIFO, a folder, a looping link and a link out of it,
    /// all named like documents.
    func library() throws -> TemporaryFolder {
        let folder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("Good.yianazip"), metadata: DocumentMetadata(title: "Good", pageCount: 1), pdf: .data(simplePDF(["good"])))
        #expect(mkfifo(folder.path("Pipe.yianazip"), 0o644) == 0)
        try FileManager.default.createDirectory(atPath: folder.path("Folder.yianazip"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: folder.path("Loop.yianazip"), withDestinationPath: "Loop.yianazip")
        let outside = try TemporaryFolder()
        try FileManager.default.copyItem(atPath: folder.path("Good.yianazip"), toPath: outside.path("Elsewhere.yianazip"))
        try FileManager.default.createSymbolicLink(atPath: folder.path("Out.yianazip"), withDestinationPath: outside.path("Elsewhere.yianazip"))
        return folder
    }

    static let reasons = ["Pipe.yianazip": "named pipe", "Folder.yianazip": "a folder", "Loop.yianazip": "link that loops", "Out.yianazip": "symbolic link (to /"]

    @Test func readingAFIFONeverBlocks() async throws {
        let folder = try library()
        for command in [["info"], ["export", "--pdf", folder.path("out.pdf")], ["versions", "list"], ["edit", "--title", "X"], ["diff", "Good.yianazip"]] {
            let verb = command[0] == "versions" ? Array(command) : [command[0]]
            let rest = command[0] == "versions" ? [] : Array(command.dropFirst())
            let result = try await runProcess(yiana, verb + ["--library", folder.url.path, "Pipe.yianazip"] + rest, timeout: 20)
            #expect(!result.timedOut, "\(command) blocked on the FIFO")
            #expect(result.status == 1 && (result.stdout + result.stderr).contains("named pipe"), "\(command): \(result.status) \(result.stderr)")
        }
        // Nothing left behind: no lock file, no output, no state.
        #expect(folder.contents() == ["Folder.yianazip", "Good.yianazip", "Loop.yianazip", "Out.yianazip", "Pipe.yianazip"])
    }

    @Test(arguments: ["Pipe.yianazip", "Folder.yianazip", "Loop.yianazip", "Out.yianazip"])
    func everyCommandReportsANamedNonRegularFile(name: String) async throws {
        let folder = try library()
        for command in ["verify", "repair", "info", "export"] {
            let extra = command == "export" ? ["--pdf", folder.path("out.pdf")] : []
            let result = try await runProcess(yiana, [command, "--library", folder.url.path, name] + extra, timeout: 20)
            #expect(!result.timedOut && result.status == 1, "\(command) \(name): exit \(result.status)")
            #expect((result.stdout + result.stderr).contains(Self.reasons[name]!), "\(command) \(name): \(result.stdout) \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("out.pdf")))
    }

    /// A name typed with bytes that are not UTF-8 (through the shell, as a person would).
    @Test func aNamedFileWhoseNameIsNotUTF8IsReportedNotMissing() async throws {
        let folder = try TemporaryFolder()
        try createFile(named: Array("A".utf8) + [0xFF, 0xFE] + Array(".yianazip".utf8), in: folder.url, contents: Data("x".utf8))
        let result = try await runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", #""$0" verify --library "$1" "$(printf 'A\377\376.yianazip')""#, yiana.path, folder.url.path], currentDirectory: folder.url, timeout: 20)
        #expect(result.status == 1 && result.stdout.contains("[name-not-utf8]"), "\(result.stdout) \(result.stderr)")
    }

    @Test func aWalkReportsThemAndFollowsNoLink() async throws {
        let folder = try library()
        let verify = try await runProcess(yiana, ["verify", "--json", "--library", folder.url.path], timeout: 20)
        #expect(verify.status == 1)
        let report = try JSONDecoder().decode(VerifyReport.self, from: Data(verify.stdout.utf8))
        let codes = Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, $0.problems.map(\.code.rawValue)) })
        #expect(codes == ["Good.yianazip": [], "Pipe.yianazip": ["not-a-regular-file"], "Folder.yianazip": ["not-a-regular-file"],
                          "Loop.yianazip": ["not-a-regular-file"], "Out.yianazip": ["not-a-regular-file"]])
        let index = try await runProcess(yiana, ["index", "--problems", "--library", folder.url.path, "--index", folder.path("../\(UUID().uuidString).sqlite")], timeout: 20)
        #expect(index.status == 1)
        for name in Self.reasons.keys { #expect(index.stdout.contains("failed: \(name)"), "\(index.stdout)") }
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport

/// Runs the built `yiana` binary, as a user would.
@Suite("yiana command line")
struct CLITests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    func run(_ arguments: [String], environment: [String: String] = [:], in folder: URL? = nil) throws -> ProcessResult {
        try runYiana(arguments, environment: environment, in: folder)
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    /// Every command and subcommand, found from the help itself (so a new one cannot be
    /// missed), teaches: examples, and the library option.
    @Test func helpTeachesEveryCommand() async throws {
        let root = try run(["--help"])
        #expect(root.status == 0)
        for word in ["YIANA_LIBRARY", "Exit codes"] { #expect(root.stdout.contains(word)) }
        var leaves: [[String]] = []
        var pending: [[String]] = [[]]
        while let path = pending.popLast() {
            let help = try run(path + ["--help"])
            #expect(help.status == 0, "\(path)")
            let children = Self.subcommands(in: help.stdout)
            if children.isEmpty { leaves.append(path) } else { pending += children.map { path + [$0] } }
        }
        #expect(leaves.count >= 19, "found only \(leaves)")  // 13 commands, versions list|restore|prune, conflicts list|resolve, cloud init
        for path in leaves {
            let help = try run(path + ["--help"]).stdout
            #expect(help.contains("Example"), "\(path.joined(separator: " ")) --help has no examples")
            #expect(help.contains("--library"), "\(path.joined(separator: " ")) --help does not say which library")
        }
    }

    /// The names under SUBCOMMANDS: in a help text.
    static func subcommands(in help: String) -> [String] {
        guard let section = help.components(separatedBy: "SUBCOMMANDS:").dropFirst().first else { return [] }
        return section.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("  "), !line.hasPrefix("   "), let name = line.split(separator: " ").first, !line.contains("See '") else { return nil }
            return String(name)
        }
    }

    /// Every allocation of the process, poppler's included, goes to mimalloc (Package.swift):
    /// a link order that let glibc's `malloc` win would cost extraction 6–7% unseen.
    @Test func allocationsGoToMimalloc() async throws {
        let result = try run(["--version"], environment: ["MIMALLOC_VERBOSE": "1"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("mimalloc: process init"), "\(result.stderr)")
    }

    /// One version: `yiana --version` is what `Scripts/version.sh` derives from git (the
    /// package's version, Scripts/package.sh), compiled in when it was built.
    @Test func theVersionIsTheOneDerivedFromGit() async throws {
        let script = try await runProcess(URL(fileURLWithPath: "/bin/sh"), [Fixtures.packageRoot.appendingPathComponent("Scripts/version.sh").path])
        let derived = script.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(script.status == 0 && derived.hasPrefix("0.") && derived.count > 4)
        let said = try run(["--version"])
        #expect(said.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == derived, "\(said.stdout) vs \(derived)")
    }

    @Test func importReportsAsJSONAndExitsNonZeroWhenSomeFail() async throws {
        let library = try TemporaryFolder()
        let result = try run(["import", "--library", library.url.path, "--json", "--jobs", "2", Fixtures.sample("pdfs")])
        #expect(result.status == 1)
        let report = try json(result.stdout)
        #expect((report["imported"] as? [Any])?.count == 5)
        #expect((report["skipped"] as? [Any])?.count == 0)
        let failed = try #require(report["failed"] as? [[String: Any]])
        #expect(Set(failed.compactMap { $0["code"] as? String }) == ["encrypted-pdf", "damaged-pdf"])

        let again = try run(["import", "--library", library.url.path, Fixtures.sample("pdfs/Flow control paper.pdf")])
        #expect(again.status == 0)
        #expect(again.stdout.contains("0 imported, 1 skipped, 0 failed."))
    }

    @Test func infoShowsMetadataFormatAndEntries() async throws {
        let library = try TemporaryFolder()
        _ = try run(["import", "--tag", "bank", Fixtures.sample("pdfs/Bank statement reminder.pdf")], environment: ["YIANA_LIBRARY": library.url.path])
        let text = try run(["info", "Bank statement reminder"], environment: ["YIANA_LIBRARY": library.url.path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Pages:       2"))
        #expect(text.stdout.contains("Tags:        bank"))
        let info = try json(try run(["info", "--json", "--library", library.url.path, "Bank statement reminder.yianazip"]).stdout)
        #expect(info["format"] as? String == "zip")
        #expect(info["formatVersion"] as? Int == 2)
        #expect((info["entries"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["metadata.json", "content.pdf", "format.json"])
        #expect((info["metadata"] as? [String: Any])?["title"] as? String == "Bank statement reminder")
    }

    @Test func infoReadsLegacyFormatsAndSaysWhichItIs() async throws {
        let info = try json(try run(["info", "--json", Fixtures.sample("archives/Legacy Separator.yianazip")]).stdout)
        #expect(info["format"] as? String == "legacy-separator")
    }

    @Test func exportWritesTheExactPDFAndRefusesToOverwrite() async throws {
        let library = try TemporaryFolder()
        let source = Fixtures.sample("pdfs/Flow control paper.pdf")
        _ = try run(["import", "--library", library.url.path, source])
        let out = library.url.appendingPathComponent("out.pdf").path
        let first = try run(["export", "--library", library.url.path, "Flow control paper", "--pdf", out])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == Data(contentsOf: URL(fileURLWithPath: source)))
        let second = try run(["export", "--library", library.url.path, "Flow control paper", "--pdf", out])
        #expect(second.status == 1)
        #expect(second.stderr.contains("--force"))
        #expect(try run(["export", "--library", library.url.path, "Flow control paper", "--pdf", out, "--force"]).status == 0)
    }

    @Test func aDamagedDocumentIsReportedByName() async throws {
        let library = try TemporaryFolder()
        let path = library.path("Broken.yianazip")
        try Data("PK\u{3}\u{4}truncated in the middle of a write".utf8).write(to: URL(fileURLWithPath: path))
        let result = try run(["info", "--library", library.url.path, "Broken"])
        #expect(result.status == 1)
        #expect(result.stderr.contains(path))
        #expect(result.stderr.contains("truncated"))
    }

    @Test func anEvictedDocumentIsNotMissing() async throws {
        let library = try TemporaryFolder()
        try Data("bplist00".utf8).write(to: URL(fileURLWithPath: library.path(".Report.yianazip.icloud")))
        let result = try run(["info", "--library", library.url.path, "Report"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("not downloaded"))
    }

    @Test func usageErrorsExitWith2() async throws {
        #expect(try run(["import"]).status == 2)
        #expect(try run(["import", "--jobs", "0", "x.pdf"]).status == 2)
        #expect(try run(["import", "--library", "/nonexistent/library", "x.pdf"]).status == 2)
        #expect(try run(["import", "--library", try TemporaryFolder().url.path, "--into", "../out", Fixtures.sample("pdfs")]).status == 2)
        #expect(try run(["frobnicate"]).status == 2)
    }

    /// The libraries of documents (libzip with libcrypto, poppler, tesseract, qpdf) load on
    /// first use, not with the program: a command that opens no document starts without them,
    /// as the dynamic linker itself reports (LD_DEBUG=libs lists each library it starts).
    @Test func librariesOfDocumentsLoadOnlyWhenADocumentIsOpened() async throws {
        func started(_ arguments: [String]) throws -> [String] {
            let result = try run(arguments, environment: ["LD_DEBUG": "libs"])
            return result.stderr.split(separator: "\n").filter { $0.contains("calling init:") }
                .map { String($0.split(separator: "/").last ?? "") }
        }
        let documentLibraries = ["libzip", "libcrypto", "libpoppler", "libtesseract", "libqpdf"]
        let library = try TemporaryFolder()
        for arguments in [["--version"], ["status", "--library", library.url.path], ["search", "--library", library.url.path, "word"]] {
            let loaded = try started(arguments)
            #expect(loaded.contains { $0.hasPrefix("libc.so") }, "LD_DEBUG works here: \(loaded)")
            #expect(loaded.allSatisfy { name in !documentLibraries.contains { name.hasPrefix($0) } }, "\(arguments): \(loaded)")
        }
        // And a command that does open one loads what it needs.
        let verify = try started(["verify", "--library", Fixtures.sample("archives")])
        #expect(verify.contains { $0.hasPrefix("libzip") } && verify.contains { $0.hasPrefix("libpoppler-glib") }, "\(verify)")
    }
}

@Suite("shell completions")
struct CompletionTests {
    let yiana = Fixtures.productsFolder.appendingPathComponent("yiana")

    @Test(arguments: ["bash", "zsh", "fish"])
    func everyShellGetsEveryCommand(shell: String) async throws {
        let run = try await runProcess(yiana, ["--generate-completion-script", shell])
        #expect(run.status == 0)
        for word in ["import", "edit", "repair", "conflicts", "resolve", "download", "take-temp", "strategy"] {
            #expect(run.stdout.contains(word), "\(shell) completion lacks \(word)")
        }
    }
}

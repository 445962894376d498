import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary

/// What `rename`, `move` and `delete` did to one document (`--json`).
struct OrganizeResult: Encodable {
    let path: String
    /// `renamed`, `moved`, `deleted`, `would-rename`, `would-move`, `would-delete`, `unchanged`, `failed`.
    var status: String
    var newPath: String?
    /// For a deletion: the version kept, which `yiana versions restore` brings back.
    var kept: String?
    var code: String?
    var error: String?
}

/// The verbs the app has for a document besides editing it, shared by `rename`, `move` and `delete`.
protocol OrganizesDocuments: WritesDocuments {
    var json: Bool { get }
    var dryRun: Bool { get }
}

extension OrganizesDocuments {
    /// Runs `act` on each named document, the batch going on past a failure; prints and exits.
    func each(_ names: [String], _ act: (URL, String, Library) throws -> OrganizeResult) throws {
        let library = try libraryOptions.open()
        var results: [OrganizeResult] = []
        for name in names {
            guard case .document(let url) = library.locate(name) else {
                let evicted = if case .placeholder = library.locate(name) { true } else { false }
                results.append(OrganizeResult(path: name, status: "failed", code: evicted ? "not-downloaded" : "not-found",
                                              error: evicted ? "not downloaded: download it first (`yiana download \"\(name)\"`)" : "no document \"\(name)\" in \(library.root.path)"))
                continue
            }
            let path = library.relativePath(of: url) ?? url.path
            do {
                results.append(try act(url, path, library))
            } catch {
                results.append(OrganizeResult(path: path, status: "failed", code: (error as? OrganizeError)?.code ?? "failed", error: "\(error)"))
            }
        }
        if json {
            try Output.json(results)
        } else {
            for result in results {
                let line = "\(result.status.padding(toLength: 13, withPad: " ", startingAt: 0)) \(result.path)"
                if let error = result.error { Output.error("\(line): \(error)"); continue }
                print(line + (result.newPath.map { " → \($0)" } ?? "")
                      + (result.kept.map { "; kept as version \($0): `yiana versions restore \"\(result.path)\" \($0)` brings it back" } ?? ""))
            }
        }
        if results.contains(where: { $0.status == "failed" }) { throw ExitCode.failure }
    }
}

extension Yiana {
    struct Rename: AsyncParsableCommand, OrganizesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "rename",
            abstract: "Give a document a new title, and its file the name the app gives it.",
            discussion: """
                As the app renames: the title is what you type; the file becomes the typed name \
                with ? # % / : \\ * " < > | dropped, spaces made underscores and each part \
                capitalised (`annual report` → `Annual_Report.yianazip`), in the same folder. A \
                name another document has is refused (nothing is changed). The title is written \
                through the coordinated writer (the old version kept in the version store), then \
                the file takes its new name without ever replacing one; its OCR results follow \
                it, and the app's address files follow the title.

                Examples:
                  yiana rename "Scan 2026-03-01" "Hartley referral"
                  yiana rename Report "Annual report 2026" --dry-run --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Say what would be done; change nothing.") var dryRun = false
        @Flag(help: "Print the result as JSON.") var json = false
        @Argument(help: ArgumentHelp("The document.", valueName: "doc")) var document: String
        @Argument(help: ArgumentHelp("Its new title.", valueName: "title")) var title: String

        func run() async throws {
            try each([document]) { url, path, library in
                let target = try DocumentOrganizer(library: library).rename(url, to: title, dryRun: dryRun)
                let newPath = library.relativePath(of: target) ?? target.path
                return OrganizeResult(path: path, status: dryRun ? "would-rename" : "renamed", newPath: newPath)
            }
        }
    }

    struct Move: AsyncParsableCommand, OrganizesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "move",
            abstract: "Move documents to another folder of the library (made when missing).",
            discussion: """
                Each document keeps its file name; one whose name the folder already has is \
                refused (as the app refuses it) and the others go on. The file takes its new \
                place without ever replacing one, and its OCR results follow it. --to "" is the \
                library's top folder.

                Examples:
                  yiana move "Scan 1" "Scan 2" --to Letters/2026
                  yiana move Letters/Report --to "" --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @Option(help: ArgumentHelp("The folder, relative to the library.", valueName: "folder")) var to: String
        @Flag(help: "Say what would be done; change nothing.") var dryRun = false
        @Flag(help: "Print the results as JSON.") var json = false
        @Argument(help: ArgumentHelp("The documents.", valueName: "doc")) var documents: [String]

        func validate() throws {
            guard !documents.isEmpty else { throw ValidationError("name at least one document to move.") }
        }

        func run() async throws {
            try each(documents) { url, path, library in
                let target = try DocumentOrganizer(library: library).move(url, toFolder: to, dryRun: dryRun)
                let newPath = library.relativePath(of: target) ?? target.path
                return OrganizeResult(path: path, status: newPath == path ? "unchanged" : dryRun ? "would-move" : "moved", newPath: newPath)
            }
        }
    }

    struct Delete: AsyncParsableCommand, OrganizesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "delete",
            abstract: "Delete documents, each kept first in the version store.",
            discussion: """
                Each document is kept in the version store (synced: any device can bring it \
                back), then removed under its lock only if it is still the version kept. The \
                line printed for each says how to bring it back: `yiana versions restore DOC \
                VERSION`, or `yiana versions list --deleted`.

                Examples:
                  yiana delete "Scan 2026-03-01"
                  yiana delete Old/Draft Old/Copy --dry-run --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @Flag(help: "Say what would be done; change nothing.") var dryRun = false
        @Flag(help: "Print the results as JSON.") var json = false
        @Argument(help: ArgumentHelp("The documents.", valueName: "doc")) var documents: [String]

        func validate() throws {
            guard !documents.isEmpty else { throw ValidationError("name at least one document to delete.") }
        }

        func run() async throws {
            try each(documents) { url, path, library in
                let kept = try DocumentOrganizer(library: library).delete(url, dryRun: dryRun)
                return OrganizeResult(path: path, status: dryRun ? "would-delete" : "deleted", kept: kept?.shortID)
            }
        }
    }
}

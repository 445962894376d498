import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary

extension Yiana {
    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "versions",
            abstract: "List, restore and prune the versions the toolkit kept.",
            discussion: """
                Every document yiana replaces, repairs, resolves away or deletes is kept first \
                in the library's hidden .yiana/versions folder, identical bytes once. Nothing \
                leaves it but through `yiana versions prune`.
                """,
            subcommands: [List.self, Restore.self, Prune.self]
        )
    }
}

extension Yiana.Versions {
    /// The document a versions command is about: it may no longer exist (then its path);
    /// something there that is not a regular file is refused, as every command refuses it.
    static func documentURL(_ argument: String, in library: Library) throws -> URL {
        switch library.locate(argument) {
        case .document(let url):
            try CommandFailure.unlessRegularFile(url)
            return url
        case .placeholder(_, let document): return document
        case .notFound:
            let name = argument.lowercased().hasSuffix(".\(Library.documentExtension)") ? argument : "\(argument).\(Library.documentExtension)"
            return argument.hasPrefix("/") ? URL(fileURLWithPath: name) : library.root.appendingPathComponent(name)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the kept versions of a document, newest first.",
            discussion: """
                DOC may be a document that no longer exists: its kept versions are listed by \
                its path, and by its metadata id while it exists. The kept versions of the \
                app's files about it (.addresses/<title>.json and .overrides.json) are listed \
                with it, and `versions restore` puts one back under its plain name.

                Examples:
                  yiana versions list "Letters/Bank statement"
                  yiana versions list --json Report | jq '.[0].sha256'
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print the versions as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The document.", valueName: "doc"))
        var document: String

        func run() async throws {
            let library = try libraryOptions.open()
            let url = try Yiana.Versions.documentURL(document, in: library)
            let versions = try VersionStore(library: library).versions(of: url)
            if json { return try Output.json(versions) }
            guard !versions.isEmpty else {
                print("no kept versions of \(library.relativePath(of: url) ?? url.path).")
                return
            }
            let dates = DateFormatter()
            dates.dateFormat = "yyyy-MM-dd HH:mm:ss"
            for version in versions {
                print("\(version.shortID)  \(dates.string(from: version.keptAt))  \(readableByteCount(version.size).padding(toLength: 10, withPad: " ", startingAt: 0))  \(version.reason)  (\(version.originalPath))")
            }
        }
    }

    struct Restore: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Put a kept version of a document back in place.",
            discussion: """
                The document there now is kept first, so a restore can itself be undone. The \
                kept bytes must verify as a document before they replace anything.

                Example:
                  yiana versions restore "Letters/Bank statement" 3f2a9c01b7e4
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Argument(help: ArgumentHelp("The document.", valueName: "doc"))
        var document: String

        @Argument(help: ArgumentHelp("The version's id (as `versions list` shows it, or its first characters).", valueName: "version"))
        var version: String

        func run() async throws {
            let library = try libraryOptions.open()
            let url = try Yiana.Versions.documentURL(document, in: library)
            let store = VersionStore(library: library)
            do {
                let record = try store.version(version, of: url)
                if record.originalPath != library.relativePath(of: url), record.documentID == nil, CompanionFile.classify(record.originalPath) != nil {
                    // A version of one of the document's companion files: back under its plain name.
                    let (path, replaced) = try store.restoreCompanion(record)
                    print("restored version \(record.shortID) to \(path)" + (replaced.map { "; the replaced file is kept as \($0.shortID)" } ?? ""))
                    return
                }
                let replaced = try store.restore(record, to: url)
                print("restored version \(record.shortID) to \(library.relativePath(of: url) ?? url.path)"
                      + (replaced.map { "; the replaced document is kept as \($0.shortID)" } ?? ""))
            } catch let error as VersionStoreError {
                throw CommandFailure(error.description)
            }
        }
    }

    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Remove old versions from the store.",
            discussion: """
                For each document path, the newest --keep-last versions and all versions \
                younger than --keep-days days are kept; the rest are removed and their bytes \
                deleted when no other version needs them. Use --dry-run to see what would go.

                Examples:
                  yiana versions prune --keep-days 90 --keep-last 5 --dry-run
                  yiana versions prune --keep-last 10
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "Keep every version younger than this many days.")
        var keepDays: Int?

        @Option(help: "Keep at least this many of the newest versions of each document.")
        var keepLast: Int?

        @Flag(help: "Say what would be removed, remove nothing.")
        var dryRun = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func validate() throws {
            guard keepDays != nil || keepLast != nil else { throw ValidationError("say what to keep: --keep-days N and/or --keep-last N.") }
            guard (keepDays ?? 0) >= 0, (keepLast ?? 0) >= 0 else { throw ValidationError("--keep-days and --keep-last take 0 or more.") }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let report = try VersionStore(library: library).prune(keepDays: keepDays, keepLast: keepLast, dryRun: dryRun)
            if json { return try Output.json(report) }
            for record in report.removed {
                print("\(dryRun ? "would remove" : "removed") \(record.shortID)  \(record.originalPath)  (\(record.reason))")
            }
            print("\(report.removed.count) \(dryRun ? "would be" : "were") removed, \(report.kept) kept; "
                  + "\(Output.count(report.deletedObjects, "stored copy", "stored copies")) (\(readableByteCount(report.freedBytes))) \(dryRun ? "would be" : "were") deleted.")
        }
    }
}

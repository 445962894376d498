import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary

extension Yiana.Versions {
    struct Restore: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Put a kept version of a document back in place, or every document lost since a time.",
            discussion: """
                The document there now is kept first, so a restore can itself be undone. The \
                kept bytes must verify as a document (and a state this machine kept, its \
                SHA-256) before they replace anything. A deleted document comes back at its \
                path; the restore is an ordinary write that syncs to the other devices.

                --deleted brings back, in one command, every document deleted or overwritten \
                since --since (all of them without it), each with its newest state that \
                verifies; a path someone has put something else at since is left alone and \
                said. Use --dry-run first.

                Examples:
                  yiana versions restore "Letters/Bank statement" 3f2a9c01b7e4
                  yiana versions restore --deleted --since 2h --dry-run
                  yiana versions restore --deleted --since '2026-11-25 14:00'

                --repo brings the state back from a restic repository (`yiana backup`) instead: \
                the newest of the document's states there, or the one VERSION names, from the \
                newest snapshot (or the one --snapshot or --at picks), checked against its \
                SHA-256 and as a document before it replaces anything.

                  yiana versions restore --repo /media/backup/yiana "Letters/Bank statement"
                  yiana versions restore --repo /media/backup/yiana Report 3f2a9c01 --at 2026-11-01

                Exit status: 0 when everything asked for was restored, 1 when something was not.
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var backupOptions: BackupSourceOptions

        @Flag(help: "Restore every document lost (deleted or overwritten) since --since.")
        var deleted = false

        @Option(help: ArgumentHelp("With --deleted: those lost since then (2h, 3d, 2026-11-25, '2026-11-25 14:30').", valueName: "time"))
        var since: String?

        @Flag(help: "With --deleted: say what would be restored, write nothing.")
        var dryRun = false

        @Flag(help: "With --deleted: print the outcome as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The document.", valueName: "doc"))
        var document: String?

        @Argument(help: ArgumentHelp("The version's id (as `versions list` shows it, or its first characters).", valueName: "version"))
        var version: String?

        func validate() throws {
            try backupOptions.validate()
            if backupOptions.reading {
                guard document != nil, !deleted else { throw ValidationError("with --repo, say which document (and optionally which version).") }
                if since != nil || dryRun || json { throw ValidationError("--since, --dry-run and --json go with --deleted.") }
                return
            }
            if deleted {
                guard document == nil, version == nil else { throw ValidationError("--deleted restores every lost document; give no DOC or VERSION with it.") }
                if let since, Moment.parse(since) == nil { throw ValidationError("--since \(since): not a time; give e.g. 2h, 3d, 2026-11-25 or '2026-11-25 14:30'.") }
            } else {
                guard document != nil, version != nil else { throw ValidationError("say which document and version (or --deleted for every lost document).") }
                if since != nil || dryRun || json { throw ValidationError("--since, --dry-run and --json go with --deleted.") }
            }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            if backupOptions.reading, let document { return try await backupOptions.restore(document, version: version, in: library) }
            guard let document, let version else { return try await restoreLost(library) }
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
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                let replaced = try store.restore(record, to: url)
                print("restored version \(record.shortID) to \(library.relativePath(of: url) ?? url.path)"
                      + (replaced.map { "; the replaced \($0.documentID == nil ? "file" : "document") is kept as \($0.shortID)" } ?? ""))
            } catch let error as VersionStoreError {
                throw CommandFailure(error.description)
            }
        }

        private func restoreLost(_ library: Library) async throws {
            let keeper = Keeper(library: library)
            let results = await keeper.restoreLost(since: since.flatMap { Moment.parse($0) }, dryRun: dryRun)
            if json {
                try Output.json(results)
            } else {
                for result in results {
                    let how = result.how == .deleted ? "deleted" : "overwritten"
                    switch result.outcome {
                    case .restored: print("restored \(result.path) (\(how)) from version \(result.version ?? "")"
                                          + (result.replacedKeptAs.map { "; what was there is kept as \($0)" } ?? ""))
                    case .wouldRestore: print("would restore \(result.path) (\(how)) from version \(result.version ?? "")")
                    case .skipped: Output.error("skipped \(result.path): \(result.reason ?? "")")
                    case .failed: Output.error("failed \(result.path): \(result.reason ?? "")")
                    }
                }
                let done = results.filter { $0.outcome == (dryRun ? .wouldRestore : .restored) }.count
                print(results.isEmpty ? "no documents lost\(since.map { " since \($0)" } ?? "")."
                      : "\(Output.count(done, "document")) \(dryRun ? "would be" : "") restored, \(results.count - done) not."
                        .replacingOccurrences(of: "  ", with: " "))
            }
            if results.contains(where: { [.skipped, .failed].contains($0.outcome) }) { throw ExitCode.failure }
        }
    }
}

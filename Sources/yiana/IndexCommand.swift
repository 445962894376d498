import ArgumentParser
import Foundation
import YianaLibrary
import YianaPostgres
import YianaSearch

/// `--index`, shared by the commands that use the search index.
struct IndexOptionGroup: ParsableArguments {
    @Option(name: .customLong("index"), help: ArgumentHelp(
        "The search index: a file, or a PostgreSQL database every machine shares (postgres://USER@HOST[:PORT]/DB).",
        discussion: """
            Default: $YIANA_INDEX if set, else ~/.cache/yiana-tools/index-<library>-<hash>.sqlite, one per library, outside             the synced folder. A postgres:// URL takes what psql takes: ?sslmode=, sslrootcert=, connect_timeout=, a socket             folder as host; the password from ~/.pgpass (mode 0600) or $PGPASSWORD, never on the command line.
            """,
        valueName: "path-or-url"))
    var path: String?

    /// Where the index is: `--index`, `$YIANA_INDEX`, or the library's default file.
    func resolve(for library: Library) throws -> IndexLocation {
        do {
            return try IndexLocation.resolve(path, library: library)
        } catch {
            throw CommandFailure(error.description)
        }
    }

    /// Whether the index was named (`--index` or `$YIANA_INDEX`), not the default file.
    var isNamed: Bool {
        path != nil || !(ProcessInfo.processInfo.environment[IndexLocation.environmentKey] ?? "").isEmpty
    }

    /// Whether the index named is on a PostgreSQL server (one database holds many libraries).
    var isServer: Bool {
        PostgresLocation.isURL(path ?? ProcessInfo.processInfo.environment[IndexLocation.environmentKey] ?? "")
    }
}

extension Yiana {
    struct Index: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "index",
            abstract: "Build or update the search index of a library.",
            discussion: """
                Extracts the text of every page with poppler (for a page without a text layer, \
                the OCR text the app stored) into an SQLite full-text index kept outside the \
                library. Only documents that changed since the last run are read again; moved \
                and renamed documents are followed without extracting them again. An \
                interrupted run can simply be run again.

                Each run first keeps the state of every new or changed document on this \
                machine (the keeper: `yiana versions list --deleted` lists documents deleted \
                or overwritten since; the --json report's "keeper" says what it kept and found).

                Every document gets a status: ok, no-text-layer, encrypted, damaged, \
                not-downloaded (an evicted placeholder: only its name is indexed, nothing is \
                downloaded) or failed. Exit code 1 when a document is damaged or failed.

                Examples:
                  yiana index --library ~/Yiana
                  yiana index --problems
                  yiana index --full --jobs 1 --json > index-report.json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var indexOptions: IndexOptionGroup

        @Flag(help: "Extract every document again instead of only the changed ones.")
        var full = false

        @OptionGroup var jobsOption: JobsOption
        @OptionGroup var arrivalOption: ArrivalOption

        @Flag(help: "List the documents whose status is not ok, with the reason.")
        var problems = false

        @Flag(help: "Print one JSON object (counts and every document's status) instead of text.")
        var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let location = try indexOptions.resolve(for: library)
            let index = try await location.openForWriting(library)
            let bar = ProgressBar(label: "Indexing")
            var options = IndexOptions(jobs: jobsOption.jobs, full: full)
            options.settle = arrivalOption.settle
            options.listEveryDocument = json  // the text says how many, and lists only the problems
            let report = try await index.closing {
                try await Indexer(library: library, index: index).run(options: options) { progress in
                    bar.update(completed: progress.completed, total: progress.total, current: progress.current)
                }
            }
            bar.finish()
            if json {
                try Output.json(report)
            } else {
                print("\(Output.count(report.documentCount, "document")) in the index: \(report.extracted) extracted, \(report.reused) reused, "
                      + "\(report.unchanged) unchanged, \(report.removed) removed"
                      + (report.addresses == 0 ? "." : "; the people of \(Output.count(report.addresses, "document"))'s address files indexed again."))
                let problems = report.problems
                if self.problems {
                    for document in problems {
                        print("\(document.status.rawValue): \(document.path)\(document.reason.map { " — \($0)" } ?? "")")
                    }
                    OCRProblems.print(for: library)
                } else if !problems.isEmpty {
                    let counts = Dictionary(grouping: problems, by: \.status).map { "\($0.value.count) \($0.key.rawValue)" }.sorted()
                    print("Not fully indexed: \(counts.joined(separator: ", ")) (see --problems)."
                          + Output.later(problems.filter { $0.status == .stillArriving }.count))
                }
                print("Index: \(index.location)")
            }
            if report.problems.contains(where: { $0.status == .damaged || $0.status == .failed }) {
                throw ExitCode.failure
            }
        }
    }
}

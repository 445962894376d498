import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Import: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "import",
            abstract: "Import PDFs into the library as new documents.",
            discussion: """
                Each PDF becomes one document named after the file (\"/\" and \":\" become \"-\"; \
                a taken name gets \" 1\", \" 2\", … as the app does). A folder is searched for \
                *.pdf recursively and keeps its structure: importing ~/Scans puts \
                Scans/2024/a.pdf at <library>/Scans/2024/a.yianazip.

                A PDF the library already holds (same SHA-256) is skipped. A file that is not a \
                PDF, is encrypted or damaged is reported with the reason; the others are \
                imported, and the exit code is 1.

                A library folder that does not exist yet is made (its parent must exist). If \
                the library has a search index (`yiana index`), the new documents are added \
                to it at once.

                Examples:
                  yiana import --library ~/Documents/Yiana scan.pdf
                  yiana import --into Letters --tag bank --tag 2026 ~/Downloads/statements
                  yiana import --json ~/Scans > report.json
                  yiana import --append-to "Letters/Smith, Jane" referral.pdf
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: ArgumentHelp("A folder inside the library to import into (created if missing).", valueName: "folder"))
        var into: String?

        @Option(name: .customLong("tag"), help: ArgumentHelp("A tag for every new document; repeat for several.", valueName: "tag"))
        var tags: [String] = []

        @OptionGroup var jobsOption: JobsOption

        @Flag(help: "Import PDFs even if the library already has a document with the same bytes.")
        var allowDuplicates = false

        @Flag(help: "Print one JSON object (imported, skipped, failed) instead of text.")
        var json = false

        @Option(name: .customLong("append-to"), help: ArgumentHelp("Add the PDFs' pages to the end of this document instead (as `yiana append`).", valueName: "doc"))
        var appendTo: String?

        @Argument(help: ArgumentHelp("PDF files and folders of PDFs.", valueName: "path"))
        var paths: [String]

        func validate() throws {
            guard !paths.isEmpty else { throw ValidationError("name at least one PDF or folder to import.") }
            if appendTo != nil, into != nil || !tags.isEmpty {
                throw ValidationError("--append-to adds pages to an existing document: --into and --tag do not apply.")
            }
        }

        func run() async throws {
            if let appendTo {
                return try Yiana.Append.append(paths, to: appendTo, libraryOptions: libraryOptions, dryRun: false,
                                               allowDuplicates: allowDuplicates, json: json)
            }
            let library = try libraryOptions.openOrCreate()
            let options = ImportOptions(into: into, tags: tags, jobs: jobsOption.jobs, allowDuplicates: allowDuplicates)
            let bar = ProgressBar(label: "Importing")
            let report: ImportReport
            do {
                report = try await Importer(library: library).run(paths, options: options) { progress in
                    bar.update(completed: progress.completed, total: progress.total, current: progress.current)
                }
            } catch let error as LibraryError {
                throw ValidationError(error.description)
            }
            bar.finish()
            if json {
                try Output.json(report)
            } else {
                render(report)
            }
            if report.hasFailures { throw ExitCode.failure }
        }

        private func render(_ report: ImportReport) {
            for item in report.imported {
                print("imported \(item.source) -> \(item.document) (\(item.pageCount) page\(item.pageCount == 1 ? "" : "s"))")
            }
            for item in report.skipped {
                print("skipped  \(item.reason)")
            }
            for item in report.failed {
                Output.error("failed   \(item.reason)")
            }
            print("\(report.imported.count) imported, \(report.skipped.count) skipped, \(report.failed.count) failed.")
        }
    }
}

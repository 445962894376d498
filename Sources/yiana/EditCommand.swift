import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Edit: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "edit",
            abstract: "Change documents' titles and tags, as the app would.",
            discussion: """
                Each document is rewritten through the coordinated writer with its PDF unchanged \
                and `modified` set to now; what it replaces is kept in the version store first \
                (`yiana versions`), and the step is recorded in the history so that \
                `yiana conflicts resolve --strategy merge` can later find the common ancestor \
                of edits made on two devices. The file keeps its name. If another process writes \
                a document meanwhile, the edit is made again on what it wrote.

                Examples:
                  yiana edit "Letters/Bank statement" --tag bank --tag 2026
                  yiana edit Report --title "Annual report 2026" --untag draft
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "The new title.")
        var title: String?

        @Option(help: ArgumentHelp("Add this tag (repeat for several).", valueName: "tag"))
        var tag: [String] = []

        @Option(help: ArgumentHelp("Remove this tag (repeat for several).", valueName: "tag"))
        var untag: [String] = []

        @Flag(help: "Print what was changed as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The documents.", valueName: "doc"))
        var documents: [String]

        func validate() throws {
            guard !documents.isEmpty else { throw ValidationError("name at least one document to edit.") }
            guard title != nil || !tag.isEmpty || !untag.isEmpty else {
                throw ValidationError("say what to change: --title, --tag or --untag.")
            }
            if let title, title.trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("--title cannot be empty.") }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let edit = MetadataEdit(title: title, addTags: tag, removeTags: untag)
            let report = DocumentEditor(library: library).apply(edit, toDocumentsNamed: documents)
            if json {
                try Output.json(report)
            } else {
                for result in report.results {
                    if let error = result.error {
                        Output.error("failed     \(result.path): \(error)")
                    } else if let title = result.title, let tags = result.tags {
                        print("edited     \(result.path): \"\(title)\"\(tags.isEmpty ? "" : ", tags \(tags.joined(separator: ", "))")")
                    } else {
                        print("unchanged  \(result.path): already so")
                    }
                }
            }
            if report.failed { throw ExitCode.failure }
        }
    }
}

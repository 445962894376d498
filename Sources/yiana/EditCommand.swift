import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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

        struct Result: Encodable {
            let path: String
            let changed: Bool
            let title: String?
            let tags: [String]?
            let error: String?
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let edit = MetadataEdit(title: title, addTags: tag, removeTags: untag)
            var results: [Result] = []
            for argument in documents {
                do {
                    let url = try libraryOptions.document(argument, in: library)
                    let path = library.relativePath(of: url) ?? url.path
                    if let written = try DocumentEditor(library: library).apply(edit, to: url) {
                        results.append(Result(path: path, changed: true, title: written.title, tags: written.tags, error: nil))
                        if !json { print("edited     \(path): \"\(written.title)\"\(written.tags.isEmpty ? "" : ", tags \(written.tags.joined(separator: ", "))")") }
                    } else {
                        results.append(Result(path: path, changed: false, title: nil, tags: nil, error: nil))
                        if !json { print("unchanged  \(path): already so") }
                    }
                } catch {
                    results.append(Result(path: argument, changed: false, title: nil, tags: nil, error: "\(error)"))
                    if !json { Output.error("failed     \(argument): \(error)") }
                }
            }
            if json { try Output.json(results) }
            if results.contains(where: { $0.error != nil }) { throw ExitCode.failure }
        }
    }
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Evict: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "evict",
            abstract: "Evict documents to the cloud, leaving placeholders.",
            discussion: """
                The cloud store is given each document's current bytes first; then the local \
                file is replaced by an iCloud stub, .Name.yianazip.icloud (or, with \
                --dataless, the macOS 14 way: a file of the same name and size without data). \
                Damaged documents are not evicted; one evicted already is left as it is.

                Exit codes: 0 every document is evicted; 1 some could not be (the others \
                still are); 2 the command line is wrong.

                Examples:
                  yiana evict "Letters/Bank statement" Scan
                  yiana evict --json --dataless Scan | jq .failed
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Evict the macOS 14 way: keep the name and size, drop the data.")
        var dataless = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The documents.", valueName: "doc"))
        var documents: [String]

        func validate() throws {
            guard !documents.isEmpty else { throw ValidationError("name at least one document to evict.") }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let report = Eviction(library: library).evict(named: documents, dataless: dataless)
            if json {
                try Output.json(report)
            } else {
                for path in report.alreadyEvicted { print("already evicted \(path)") }
                for path in report.evicted { print("evicted \(path)") }
                for failure in report.failed { Output.error("failed   \(failure.document): \(failure.error)") }
            }
            if !report.failed.isEmpty { throw ExitCode.failure }
        }
    }
}

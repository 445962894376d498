import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaSync

extension Yiana {
    struct Diff: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Show how two documents differ.",
            discussion: """
                Metadata is compared field by field (keys the toolkit does not know \
                included); the PDFs page by page, by a hash of each page's text. Exit code 0 \
                when they are the same, 1 when they differ.

                Examples:
                  yiana diff Report.yianazip "Report (Bob's conflicted copy 2026-03-01).yianazip"
                  yiana diff --json A B | jq .differingPages
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print the differences as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The first document.", valueName: "a"))
        var first: String

        @Argument(help: ArgumentHelp("The second document.", valueName: "b"))
        var second: String

        func run() async throws {
            let library = try libraryOptions.open()
            let a = try libraryOptions.document(first, in: library), b = try libraryOptions.document(second, in: library)
            let diff = try DocumentDiff.compare(a, b, names: (library.relativePath(of: a) ?? a.path, library.relativePath(of: b) ?? b.path))
            if json {
                try Output.json(diff)
            } else {
                render(diff)
            }
            if !diff.identical { throw ExitCode.failure }
        }

        /// A date key's value (seconds since 2001, as the app writes it) as a date a person
        /// reads, to the millisecond; any other value as its JSON.
        private func render(_ diff: DocumentDiff) {
            print("a: \(diff.a)\nb: \(diff.b)")
            if diff.fields.isEmpty { print("metadata: the same") }
            for field in diff.fields {
                print("  \(field.key): \(field.a.map { DocumentMetadata.readableValue(of: field.key, $0) } ?? "(absent)") → \(field.b.map { DocumentMetadata.readableValue(of: field.key, $0) } ?? "(absent)")")
            }
            if diff.samePDF {
                print("PDF: the same bytes")
            } else {
                print("PDF: \(diff.pageCountA.map { "\($0) pages" } ?? "none") → \(diff.pageCountB.map { "\($0) pages" } ?? "none")"
                      + (diff.differingPages.isEmpty ? "; every page's text the same" : "; pages differing: \(diff.differingPages.map(String.init).joined(separator: ", "))"))
            }
            for problem in diff.pdfProblems { print("  \(problem)") }
        }
    }
}

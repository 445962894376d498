import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Inject: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "inject",
            abstract: "Append the rendered letters waiting in .letters/inject/ to their documents.",
            discussion: """
                The app's render service drops each letter as .letters/inject/<document>_<UUID>.pdf; \
                it belongs at the end of the document whose file name is <document>, found \
                anywhere in the library. Each letter is claimed first by renaming it \
                `….pdf.processing`, as the app does, then appended as `yiana append` appends \
                (the document's version before kept, the letter's id recorded in the shared \
                history and in the document). Unlike the app, yiana:
                  - reports two documents of that name instead of taking the first (the letter \
                stays where it is);
                  - leaves a letter still arriving, or whose document is not downloaded, for a \
                later run;
                  - never appends a letter twice: one already in its document, appended on this \
                device or another, is kept in the version store and removed from the inject folder;
                  - reports claims a run never finished (`….processing` older than 10 minutes), \
                and gives them back with --release-claims.
                A letter that is not named as the render service names them, has no document, or \
                is not a PDF that can be appended goes to .letters/unmatched/, as the app's do, \
                with the reason in the report.

                Exit codes: 0 every letter appended or waiting; 1 a letter went to \
                .letters/unmatched/, is ambiguous or a claim is left over; 2 the command line is wrong.

                Examples:
                  yiana inject --dry-run
                  yiana inject --json | jq '.letters[] | select(.outcome != "appended")'
                  yiana watch --inject
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var arrivalOption: ArrivalOption

        @Flag(help: "Say what would be done with each letter; change nothing.")
        var dryRun = false

        @Flag(help: "Give claims that a run never finished back to the inject folder (as ….pdf).")
        var releaseClaims = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            var options = InjectOptions()
            options.dryRun = dryRun
            options.settle = arrivalOption.settle
            options.releaseClaims = releaseClaims
            let report = try Injector(library: library).run(options)
            if json {
                try Output.json(report)
            } else {
                for letter in report.letters {
                    let document = letter.document.map { " → \($0)" } ?? ""
                    let pages = letter.pages.map { " (pages \($0))" } ?? ""
                    let line = "\(letter.outcome.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(letter.path)\(document)\(pages)\(letter.reason.map { ": \($0)" } ?? "")"
                    if [.unmatched, .ambiguous, .claimLeft].contains(letter.outcome) { Output.error(line) } else { print(line) }
                }
                let appended = report.letters.filter { $0.outcome == .appended }.count
                print("\(Output.count(report.letters.count, "letter")): \(appended) \(dryRun ? "would be " : "")appended."
                      + Output.later(report.letters.filter { $0.outcome == .waiting && $0.reason?.hasPrefix("still arriving") == true }.count, "letter"))
            }
            if report.failed { throw ExitCode.failure }
        }
    }
}

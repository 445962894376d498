import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Verify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "verify",
            abstract: "Check documents strictly, and name every problem.",
            discussion: """
                Each file is read once, in constant memory: ZIP structure, every CRC, the \
                entries, metadata.json and format.json, the PDF (page count, pdfHash, \
                damaged, encrypted). Every problem gets a stable code (in --json and in the \
                text) and a sentence. Evicted documents are reported as not downloaded, \
                which is not damage. Temporary files left by interrupted writes and documents \
                sharing an id are reported too.

                Exit codes: 0 all clean; 1 problems were found; 2 the command line is wrong.

                Examples:
                  yiana verify
                  yiana verify --json Letters "Scans/2026" | jq '.files[] | select(.ok == false)'
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var jobsOption: JobsOption
        @OptionGroup var arrivalOption: ArrivalOption

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        @Argument(help: ArgumentHelp("Files or folders (default: the whole library).", valueName: "path"))
        var paths: [String] = []

        func run() async throws {
            let library = try libraryOptions.open()
            let urls = libraryOptions.targets(paths, in: library)
            let bar = ProgressBar(label: "Verifying")
            let report = await Verifier(library: library).verify(urls, jobs: jobsOption.jobs, settle: arrivalOption.settle) { done, total, current in
                bar.update(completed: done, total: total, current: current)
            }
            bar.finish()
            if json {
                try Output.json(report)
            } else {
                for file in report.files where !file.problems.isEmpty {
                    for problem in file.problems {
                        print("\(problem.isNotice ? "note" : "FAIL") [\(problem.code)] \(problem.message)")
                    }
                }
                for note in report.notes { print("note: \(note)") }
                let bad = report.files.filter { !$0.ok }.count
                let arriving = report.files.filter { $0.problems.contains { $0.code == .stillArriving } }.count
                print("\(Output.count(report.files.count, "file")) checked: \(report.files.count - bad) fine, \(bad) with problems (\(Output.count(report.problemCount, "problem")))."
                      + Output.later(arriving, "file"))
            }
            if !report.clean { throw ExitCode.failure }
        }
    }
}

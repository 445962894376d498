import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Repair: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "repair",
            abstract: "Repair damaged documents from the evidence they hold.",
            discussion: """
                Runs verify, then for each document with problems: keeps the original in the \
                version store first, then recovers each entry from the central directory, the \
                local headers or a forward scan of the bytes, whichever passes its CRC; \
                rebuilds format.json; recomputes pageCount and pdfHash; migrates the legacy \
                formats; gives a copy sharing another document's id its own. A PDF that is \
                cut off goes to a side file "<Title> (partial PDF).pdf", never into the \
                document. The repaired file must pass verify, or nothing is written. A \
                document whose metadata.json is lost but whose PDF is intact gets metadata \
                rebuilt (its id and title from its newest kept version when there is one). \
                A PDF that is itself damaged or encrypted, or a file from a newer app, is \
                left as it is, with what to do.

                A sync service's conflict copy keeps its id: `yiana conflicts resolve` \
                decides between it and the original.

                Temporary files left by interrupted writes are checked: for each document \
                the newest one holding a complete document is offered, and `--take-temp` \
                puts it in place (what it replaces is kept). None is ever deleted unasked: \
                `--remove-temps` keeps each in the version store, then removes it from the \
                library (the toolkit's own only while no write holds its document; another \
                program's only once it has been untouched for an hour).

                A document a sync program is still writing (it changed in the last few \
                seconds, or the program's temporary file for it is there) is left for a \
                later run; `--now` repairs it anyway.

                Exit status: 0 when everything was repaired (or nothing needed it), 1 when \
                something is left for you to decide or for later, 2 for usage errors.

                Examples:
                  yiana repair --dry-run
                  yiana repair "Letters/Bank statement"
                  yiana repair --from-version Report    # put back its newest good version
                  yiana repair --take-temp .Report.yianazip.yiana-tmp-1A2B3C4D
                  yiana repair --remove-temps --dry-run
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var arrivalOption: ArrivalOption

        @Flag(help: "Say what would be done; change nothing.")
        var dryRun = false

        @Flag(help: "For a document nothing can be recovered from, put back its newest kept version that verifies.")
        var fromVersion = false

        @Option(help: ArgumentHelp("Put this leftover temporary file in place of the document it was written for.", valueName: "temp-file"))
        var takeTemp: String?

        @Flag(help: "Keep each leftover temporary file in the version store, then remove it from the library.")
        var removeTemps = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("Files or folders (default: the whole library).", valueName: "path"))
        var paths: [String] = []

        func validate() throws {
            guard takeTemp == nil || paths.isEmpty else { throw ValidationError("--take-temp takes the temporary file alone, without other paths.") }
            guard takeTemp == nil || !removeTemps else {
                throw ValidationError("--take-temp puts one temporary file in place; --remove-temps removes them: give one of the two.")
            }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            var options = RepairOptions()
            options.dryRun = dryRun
            options.fromVersion = fromVersion
            options.removeTemps = removeTemps
            options.settle = arrivalOption.settle
            let urls = libraryOptions.targets(paths, in: library)
            let report: RepairReport
            if let takeTemp {
                report = Repairer(library: library).takeTemp(named: takeTemp, dryRun: dryRun)
            } else {
                report = await Repairer(library: library).repair(urls, options: options)
            }
            if json {
                try Output.json(report)
                if !report.notRepaired.isEmpty || !report.offered.isEmpty || !report.waiting.isEmpty { throw ExitCode.failure }
                return
            }
            for action in report.repaired where action.action == .removeTemp {
                let kept = action.keptAs.map { " (kept in the version store as \($0))" } ?? " (after keeping it in the version store)"
                print("\(dryRun ? "would remove" : "removed") \(action.path)\(kept): \(action.detail)")
            }
            for action in report.repaired where action.action != .removeTemp {
                print("\(dryRun ? "would repair" : "repaired") \(action.path) (\(action.action)): \(action.detail)\(action.keptAs.map { "  [original kept as \($0)]" } ?? "")")
            }
            for action in report.notRepaired { Output.error("not repaired \(action.path): \(action.detail)") }
            for action in report.offered { print("offered \(action.path): \(action.detail)") }
            for action in report.waiting { print("left for later: \(action.detail)") }
            let removals = report.repaired.filter { $0.action == .removeTemp }.count
            let offered = report.offered.isEmpty ? "" : ", \(Output.count(report.offered.count, "temporary file")) offered"
            let removed = removals == 0 ? "" : ", \(Output.count(removals, "temporary file")) \(dryRun ? "would be " : "")removed"
            print("\(report.repaired.count - removals) \(dryRun ? "would be " : "")repaired\(removed), \(report.notRepaired.count) not repaired\(offered)."
                  + Output.later(report.waiting.count))
            if !report.notRepaired.isEmpty || !report.offered.isEmpty || !report.waiting.isEmpty { throw ExitCode.failure }
        }
    }
}

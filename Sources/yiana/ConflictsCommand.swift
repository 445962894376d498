import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the conflict copies sync services made.",
            subcommands: [List.self]
        )
    }
}

extension Yiana.Conflicts {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List conflict copies, identical copies and duplicate ids, grouped by document.",
            discussion: """
                Files are grouped by their metadata id; names are read as iCloud Drive, \
                Syncthing, Dropbox and Nextcloud make them (conflicts of conflicts too). Only \
                metadata and ZIP directories are read, never the PDFs. `Name 2` with its own id \
                is the app's numbering, not a conflict, and is not listed. Exit code 1 when a \
                conflict copy needs resolving.

                Examples:
                  yiana conflicts list
                  yiana conflicts list --json | jq '.groups[] | select(.files[].role == "conflict-copy")'
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var jobsOption: JobsOption

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let report = try await ConflictDetector(library: library).detect(jobs: jobsOption.jobs)
            if json {
                try Output.json(report)
            } else {
                render(report)
            }
            if report.groups.contains(where: \.needsResolving) || report.strayCopies.contains(where: { $0.role == .conflictCopy }) {
                throw ExitCode.failure
            }
        }

        private func render(_ report: ConflictReport) {
            for group in report.groups {
                print("\(group.files[0].path)\(group.title.map { "  \"\($0)\"" } ?? "")  id \(group.documentID ?? "?")")
                for file in group.files.dropFirst() {
                    let what = file.marks.isEmpty ? "" : "  [\(file.marks.joined(separator: "; "))]"
                    print("  \(file.role.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)) \(file.path)\(what)\(file.reason.map { "  — \($0)" } ?? "")")
                }
            }
            for stray in report.strayCopies {
                print("stray \(stray.role.rawValue): \(stray.path)  — \(stray.reason ?? "")")
            }
            for skew in report.clockSkew {
                print("clock skew: \(skew.path): \(skew.problem)")
            }
            let conflicts = report.groups.filter(\.needsResolving).count
            print("\(report.documentsScanned) files scanned: \(report.groups.count) documents with copies, \(conflicts) needing resolution, "
                  + "\(report.strayCopies.count) stray copies, \(report.clockSkew.count) clock problems.")
        }
    }
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Conflicts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "conflicts",
            abstract: "Find the conflict copies sync services made.",
            subcommands: [List.self, Resolve.self]
        )
    }
}

extension Yiana.Conflicts {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List conflict copies, identical copies and duplicate ids, grouped by document.",
            discussion: """
                Files are grouped by their metadata id; names are read as iCloud Drive, \
                Syncthing, Dropbox, Nextcloud and ownCloud, unison, rclone bisync, OneDrive, \
                Google Drive, Seafile, Resilio, pCloud, Box and MEGA make them (conflicts of \
                conflicts too; the table is docs/CONFLICT-NAMES.md). The original is chosen \
                from what the names say; when every file carries a sync mark (rclone's \
                `Name.yianazip..path1` and `..path2`) the group is resolved back under the \
                plain name. Files a sync program is still writing are listed as such. Only \
                metadata and ZIP directories are read, never the PDFs. `Name 2` with its own id \
                is the app's numbering, not a conflict, and is not listed. The app's own files \
                beside the documents (.addresses/, .letters/, .worklist.json) are listed \
                with their conflict copies too, under the document or library they belong \
                to: the app reads only their plain names. Exit code 1 when a conflict copy \
                needs resolving.

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
            if report.groups.contains(where: \.needsResolving) || report.strayCopies.contains(where: { $0.role == .conflictCopy })
                || report.companions.contains(where: \.needsResolving) {
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
            for group in report.groups where group.target != nil {
                print("  resolves to     \(group.target!)  — the plain name a sync service took away")
            }
            for group in report.companions {
                let owner = group.document.map { "of \($0)" } ?? group.key.map { "of \"\($0)\"" } ?? "of the library"
                print("\(group.plainPath)  (\(group.kind.label) \(owner))\(group.files.contains { $0.role == .original } ? "" : "  — the plain name is missing")")
                for file in group.files where file.role != .original {
                    let what = file.marks.isEmpty ? "" : "  [\(file.marks.joined(separator: "; "))]"
                    print("  \(file.role.rawValue.padding(toLength: 15, withPad: " ", startingAt: 0)) \(file.path)\(what)")
                }
            }
            for path in report.arriving { print("still arriving: \(path)  — a sync program is writing it; resolved on a later run") }
            for stray in report.strayCopies {
                print("stray \(stray.role.rawValue): \(stray.path)  — \(stray.reason ?? "")")
            }
            for skew in report.clockSkew {
                print("clock skew: \(skew.path): \(skew.problem)")
            }
            let conflicts = report.groups.filter(\.needsResolving).count
            let companions = report.companions.isEmpty ? "" : ", \(Output.count(report.companions.count, "companion file")) of the app with copies"
            print("\(Output.count(report.documentsScanned, "file")) scanned: \(Output.count(report.groups.count, "document")) with copies, \(conflicts) needing resolution, "
                  + "\(Output.count(report.strayCopies.count, "stray copy", "stray copies")), \(Output.count(report.clockSkew.count, "clock problem"))\(companions).")
        }
    }
}

extension ResolveStrategy: ExpressibleByArgument {}

extension Yiana.Conflicts {
    struct Resolve: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "resolve",
            abstract: "Resolve conflict copies, keeping every version.",
            discussion: """
                Strategies:
                  newest     the causally newest copy wins (then the newest modified date)
                  keep-both  every conflict copy becomes its own document, with a new id
                  merge      a three-way merge of the metadata; a PDF changed on both sides
                             is never dropped: the other becomes its own document

                The app's companion files are settled by their kind, whatever the strategy: \
                address corrections merged (every correction of every device kept once; \
                three-way against the last merge, so a deleted one stays deleted), the work \
                list merged by id as the app merges it, drafts and the letterhead three-way \
                by key (else the newer stays), extraction results the newest (corrections \
                inside older ones carried over). Rendered and injected PDFs that differ are \
                left for a person.

                Always: identical copies are collapsed, and a copy that is only an older \
                version of the document (by the toolkit's history or version store) is \
                removed. Every file removed or replaced is kept in the version store first \
                (`yiana versions list`), and every decision is logged in \
                .yiana/resolutions.jsonl. A group with an evicted or damaged copy waits until \
                it is downloaded or repaired.

                Examples:
                  yiana conflicts resolve --strategy merge --dry-run
                  yiana conflicts resolve --strategy newest "Letters/Bank statement"
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var arrivalOption: ArrivalOption

        @Option(help: "newest, keep-both or merge.")
        var strategy: ResolveStrategy

        @Flag(help: "Say exactly what would happen; change nothing.")
        var dryRun = false

        @Flag(help: "Give copies made by the app's Duplicate command an id of their own.")
        var reassignId = false

        @Flag(help: "Download evicted copies from the cloud store first, so their groups can be resolved.")
        var download = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("Only the conflicts of these documents (default: all).", valueName: "doc"))
        var documents: [String] = []

        func run() async throws {
            let library = try libraryOptions.open()
            var options = ResolveOptions(strategy: strategy)
            options.dryRun = dryRun
            options.reassignIDs = reassignId
            options.downloadEvicted = download
            options.settle = arrivalOption.settle
            options.documents = documents.map { argument in
                switch library.locate(argument) {
                case .document(let url): return library.relativePath(of: url) ?? argument
                case .placeholder(_, let url): return library.relativePath(of: url) ?? argument
                case .notFound: return argument
                }
            }
            let report = try await ConflictResolver(library: library).resolve(options)
            if json {
                try Output.json(report)
                if !report.failed.isEmpty { throw ExitCode.failure }
                return
            }
            for resolution in report.resolutions {
                print("\(resolution.original) (\(resolution.strategy))")
                for step in resolution.steps {
                    print("  \(dryRun ? "would " : "")\(step.action)  \(step.path)  — \(step.detail)\(step.keptAs.map { "  [kept as \($0)]" } ?? "")")
                }
                let isCompanion = CompanionFile.classify(resolution.original) != nil
                for note in resolution.overruled { print("  \(isCompanion ? "note" : "overruled"): \(note)") }
            }
            for skipped in report.skipped { print("skipped \(skipped.path): \(skipped.reason)") }
            for failed in report.failed { Output.error("failed  \(failed.path): \(failed.reason)") }
            let companions = report.resolutions.filter { CompanionFile.classify($0.original) != nil }.count
            let resolved = Output.count(report.resolutions.count - companions, "document") + (companions == 0 ? "" : " and \(Output.count(companions, "companion file"))")
            let arriving = report.skipped.filter { $0.reason.hasPrefix("still arriving") }.count
            print("\(resolved) \(dryRun ? "would be " : "")resolved, \(report.skipped.count) skipped\(report.failed.isEmpty ? "" : ", \(report.failed.count) failed")."
                  + Output.later(arriving, "file"))
            if !report.failed.isEmpty { throw ExitCode.failure }
        }
    }
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct SyncCommand: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Upload local changes to the simulated cloud and pull remote ones.",
            discussion: """
                A document changed on this device and another since the last sync keeps this \
                device's version; the other arrives as a conflict copy named as iCloud names \
                them ("Name 2"), for `yiana conflicts` to resolve. Deletions travel as \
                tombstones; a document deleted elsewhere is kept in the version store before it \
                is removed here, and an edit wins over a deletion it had not seen. Evicted \
                documents stay evicted.

                Example:
                  yiana sync --library ~/laptop
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let report = try Sync(library: library).run()
            if json {
                try Output.json(report)
            } else {
                for path in report.uploaded { print("uploaded   \(path)") }
                for path in report.pulled { print("pulled     \(path)") }
                for (path, copy) in report.conflictCopies.sorted(by: { $0.key < $1.key }) { print("conflict   \(path): the other device's version is \(copy)") }
                for path in report.deletedInCloud { print("deleted in the cloud  \(path)") }
                for path in report.deletedHere { print("deleted here (kept in the version store)  \(path)") }
                for (path, error) in report.failed.sorted(by: { $0.key < $1.key }) { Output.error("failed     \(path): \(error)") }
                print("\(report.uploaded.count) uploaded, \(report.pulled.count) pulled, \(Output.count(report.conflictCopies.count, "conflict")), "
                      + "\(Output.count(report.deletedInCloud.count + report.deletedHere.count, "deletion")), \(report.failed.count) failed.")
            }
            if !report.failed.isEmpty { throw ExitCode.failure }
        }
    }
}

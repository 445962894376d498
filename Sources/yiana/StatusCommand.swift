import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each document's download status.",
            discussion: """
                Apple's statuses: notDownloaded (only a placeholder is here), downloaded (the \
                local copy is older than the cloud's), current (the newest version is local); \
                beside them whether a download is under way (with its progress), the last \
                download error, changes not uploaded yet, and conflicts.

                Examples:
                  yiana status
                  yiana status --json Letters
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print the status as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("Documents or folders (default: the whole library).", valueName: "path"))
        var paths: [String] = []

        func run() async throws {
            let library = try libraryOptions.open()
            if !json { OCRProblems.print(for: library) }
            let report = try await CloudStore.status(of: library, paths: paths.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
            if json { return try Output.json(report) }
            for document in report.documents {
                var notes: [String] = []
                if document.isDownloading, let progress = document.progress { notes.append("downloading \(Int(progress * 100))%") }
                if let error = document.downloadError { notes.append("error: \(error)") }
                if document.uploadPending { notes.append("changes not uploaded") }
                if document.inConflict { notes.append("in conflict") }
                print("\(document.status.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(document.path)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")")
            }
            let dates = DateFormatter()
            dates.dateFormat = "yyyy-MM-dd HH:mm:ss"
            print("device \(report.device); last sync: \(report.lastSync.map { dates.string(from: $0) } ?? "never")")
        }
    }
}

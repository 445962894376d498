import ArgumentParser
import Foundation
import YianaSystem
import YianaLibrary
import YianaSync
import YianaWatch

extension Yiana {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "Show each document's download status, and the documents OCR failed on.",
            discussion: """
                Apple's statuses: notDownloaded (only a placeholder is here), downloaded (the \
                local copy is older than the cloud's), current (the newest version is local); \
                beside them whether a download is under way (with its progress), the last \
                download error, changes not uploaded yet, and conflicts. Documents `yiana ocr` \
                failed on are listed first (ocr-failed: path — reason, and when it is tried \
                again). A library kept by another sync program (not attached with `yiana cloud \
                init`) has no download status; its OCR failures are still shown.

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

        /// What `--json` prints: the download status (nil fields when the library is not
        /// attached to a cloud store) and the documents OCR failed on.
        struct Report: Encodable {
            let cloudAttached: Bool
            let device: String?
            let lastSync: Date?
            let documents: [DocumentStatus]
            let ocrFailures: [OCRProblems.Entry]
            let watcher: WatcherStatus?
        }

        /// `yiana watch`'s health, as its last heartbeat left it.
        struct WatcherStatus: Encodable {
            let running: Bool
            let health: WatchHealth
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let failures = OCRProblems.entries(for: library)
            let watcher = WatchHealth.file(for: library).load().map { WatcherStatus(running: $0.isRunning, health: $0) }
            let cloud: StatusReport?
            do {
                cloud = try await CloudStore.status(of: library, paths: paths.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
            } catch CloudError.notAttached {
                // A library another sync program keeps (Syncthing, Dropbox …): no download
                // status here, but what yiana itself knows.
                cloud = nil
            }
            if json {
                return try Output.json(Report(cloudAttached: cloud != nil, device: cloud?.device, lastSync: cloud?.lastSync,
                                              documents: cloud?.documents ?? [], ocrFailures: failures, watcher: watcher))
            }
            if let watcher { print(Self.describe(watcher)) }
            OCRProblems.print(failures)
            guard let report = cloud else {
                print("\(library.root.path) is not attached to the simulated cloud store: no download status (`yiana cloud init DIR` attaches it).")
                if failures.isEmpty { print("No OCR failures.") }
                return
            }
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

        static func describe(_ watcher: WatcherStatus) -> String {
            let health = watcher.health
            func when(_ date: Date?) -> String { date.map(InternetTime.string) ?? "none yet" }
            let error = health.lastError.map { "last error \(when(health.lastErrorAt)): \($0)" } ?? "no errors"
            guard watcher.running else {
                let why = health.stopped.map { "stopped \(when($0))" } ?? "its process \(health.pid) is gone; last heartbeat \(when(health.heartbeat))"
                return "watcher: not running (\(why)); \(error)"
            }
            return "watcher: running (pid \(health.pid), since \(when(health.started))); last event \(when(health.lastEvent)), "
                + "last pass \(when(health.lastPass)) (\(health.passes) passes), \(health.queued) changes queued, "
                + "\(health.foldersWatched) folders watched; \(error)"
        }
    }
}

import ArgumentParser
import Foundation
import YianaSystem
import YianaLibrary
import YianaSearch
import YianaSync
import YianaWatch

extension Yiana {
    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "status",
            abstract: "The library's health: how many documents, and which need what; then each document's download status.",
            discussion: """
                First a summary of the whole library: how many documents, and how many are \
                still arriving, damaged, in conflict, not downloaded, waiting for OCR or failed \
                in it, not indexed, each with the command that deals with them; the watcher; \
                the search index. It opens no document: it reads the folders, the search \
                index's record of each document (a document changed since the index read it \
                is "not indexed", its state unknown until `yiana index`), the OCR failures and \
                the watcher's heartbeat.

                Then, for a library attached to the simulated cloud, Apple's statuses: notDownloaded (only a placeholder is here), downloaded (the \
                local copy is older than the cloud's), current (the newest version is local); \
                beside them whether a download is under way (with its progress), the last \
                download error, changes not uploaded yet, and conflicts. Documents `yiana ocr` \
                failed on are listed first (ocr-failed: path — reason, and when it is tried \
                again). A library kept by another sync program (one not attached \
                with `yiana cloud init`) has no download status; its OCR failures are still shown.

                The keeper line says where this machine keeps every document state it saw, \
                how (link, reflink or copy, and why), and how many lost documents it can bring \
                back. When a large share of the library was deleted or overwritten within an \
                hour, the mass-loss alarm is printed (also on stderr) and the exit status is 3.

                Examples:
                  yiana status
                  yiana status --json | jq '.summary.states[] | {state, count, run}'
                  yiana status --json Letters
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var indexOptions: IndexOptionGroup

        @Flag(help: "Print the status as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("Documents or folders (default: the whole library).", valueName: "path"))
        var paths: [String] = []

        /// What `--json` prints: the download status (nil fields when the library is not
        /// attached to a cloud store) and the documents OCR failed on.
        struct Report: Encodable {
            let summary: LibraryHealth
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
            let location = try indexOptions.resolve(for: library)
            var index: (any IndexStore)?
            do {
                index = try await location.openExisting(library)
            } catch {
                // The rest of the status needs no index: said, and the status goes on.
                Output.error("note: the search index (\(location)) could not be read: \(error)")
            }
            let summary = try await LibraryHealth.gather(library, index: index)
            await index?.close()
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
                try Output.json(Report(summary: summary, cloudAttached: cloud != nil, device: cloud?.device, lastSync: cloud?.lastSync,
                                       documents: cloud?.documents ?? [], ocrFailures: failures, watcher: watcher))
                if summary.keeper?.alarm != nil { throw ExitCode(3) }
                return
            }
            Self.render(summary)
            print(watcher.map(Self.describe) ?? "watcher: never ran on this library (`yiana watch`, or Scripts/install.sh for a service)")
            OCRProblems.print(failures)
            if let report = cloud { Self.render(report) } else {
                print("Download status: \(library.root.path) is not attached to the simulated cloud store (`yiana cloud init DIR` attaches it).")
            }
            if summary.keeper?.alarm != nil { throw ExitCode(3) }
        }

        /// Each document's download status.
        static func render(_ report: StatusReport) {
            for document in report.documents {
                var notes: [String] = []
                if document.isDownloading, let progress = document.progress { notes.append("downloading \(Int(progress * 100))%") }
                if let error = document.downloadError { notes.append("error: \(error)") }
                if document.uploadPending { notes.append("changes not uploaded") }
                if document.inConflict { notes.append("in conflict") }
                print("\(document.status.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(document.path)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")")
            }
            print("device \(report.device); last sync: \(report.lastSync.map { LocalTime($0).text } ?? "never")")
        }

        /// The summary: a line per state with its count and command, then the index.
        static func render(_ health: LibraryHealth) {
            print("\(health.library): \(Output.count(health.documents, "document")), \(health.fine) fine.")
            let width = health.states.map { "\($0.count) \($0.state)".count }.max() ?? 0
            for state in health.states {
                let head = "\(state.count) \(state.state)".padding(toLength: width, withPad: " ", startingAt: 0)
                print("  \(head)  \(state.meaning) → \(state.run)")
            }
            if let index = health.index {
                let when = index.lastRun.map { "last run \(InternetTime.string($0))" } ?? "last run not recorded"
                print("index: \(Output.count(index.documents, "document")), \(when) (\(index.path))")
            } else {
                print("index: none yet → yiana index")
            }
            if let keeper = health.keeper {
                let lost = keeper.lost == 0 ? "" : "; \(Output.count(keeper.lost, "document")) lost and restorable → yiana versions list --deleted"
                print("keeper: \(Output.count(keeper.states, "state")) of \(Output.count(keeper.documents, "document")) kept by \(keeper.mode.rawValue) "
                      + "(\(keeper.reason): \(keeper.folder))\(lost)")
                if let alarm = keeper.alarm {
                    print(alarm.message)
                    Output.error(alarm.message)
                }
                print(Self.backupLine(keeper.backup))
            }
            if let notifications = health.notifications {
                if let sent = notifications.lastSent {
                    print("notified: \(InternetTime.string(sent.at)) \"\(sent.title)\" to \(sent.to.isEmpty ? "no one" : sent.to.joined(separator: ", "))")
                }
                if let beat = notifications.heartbeat {
                    print("heartbeat: \(InternetTime.string(beat.at)) to \(beat.to)\(beat.failing ? " (failing)" : "")\(beat.error.map { ": \($0)" } ?? ", answered")")
                }
                for waiting in notifications.waiting {
                    print("waiting to notify: \"\(waiting.title)\" to \(waiting.to), tried \(waiting.tries) times (\(waiting.lastError ?? "not yet")), next \(InternetTime.string(waiting.next))")
                }
            }
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

extension Yiana.Status {
    /// The last backup, as `status` says it.
    static func backupLine(_ record: BackupRecord?) -> String {
        guard let record, record.lastSuccess != nil || record.lastFailure != nil else { return "backup: none yet → yiana backup --repo REPO" }
        var line = "backup: " + (record.lastSuccess.map {
            "last succeeded \(InternetTime.string($0.at)), snapshot \($0.snapshot) in \($0.repository)\($0.incomplete ? " (incomplete: some files could not be read)" : "")"
        } ?? "never succeeded")
        if let failure = record.lastFailure { line += "; FAILED \(InternetTime.string(failure.at)): \(failure.error)" }
        return line
    }
}

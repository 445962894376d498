import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

extension Yiana {
    struct Backup: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "backup",
            abstract: "Keep the library's whole history off this machine, in a restic repository.",
            discussion: """
                `yiana backup --repo REPO` makes one restic snapshot of the library: every \
                document as it should be kept (its state now, or its last good state when the \
                file is damaged, evicted or still arriving; never a placeholder or a half-written \
                file), the app's companion files, and every state this machine's keeper holds \
                (deleted documents' and earlier ones), with the keeper's journal, so that the \
                repository alone knows each document's history. Each kept state is checked \
                against its SHA-256 before it goes in. restic (Debian's `restic`, 0.14 or later) \
                deduplicates, encrypts and checks (`restic check`); unchanged documents cost \
                nothing the next time.

                The repository and its password are restic's own settings, passed through and \
                never printed: --repo or RESTIC_REPOSITORY (a folder, sftp:HOST:/PATH, s3:…, \
                b2:…, rest:…), and RESTIC_PASSWORD_FILE or RESTIC_PASSWORD_COMMAND. Make the \
                repository once with `restic init`.

                Reading it back: `yiana versions list --repo REPO [--deleted] [DOC]`, \
                `yiana versions restore --repo REPO DOC [SHA]`, and `yiana backup restore` \
                for a whole library. `yiana backup forget` applies a retention (a year by \
                default). `yiana status` says when the last backup succeeded.

                Exit codes: 0 done; 1 failed; 2 wrong command line or no repository named; \
                3 the snapshot lacks files restic could not read (run again); 10 no repository \
                at the location; 11 the repository is locked, or another backup of the library \
                runs; 12 a wrong or no password; 13 no space left; 14 restic missing or too old.

                Examples:
                  restic init --repo /media/backup/yiana
                  RESTIC_PASSWORD_FILE=~/.config/yiana-tools/restic-password yiana backup --repo /media/backup/yiana
                  yiana backup --repo sftp:me@nas:/srv/restic/yiana --json
                  yiana backup snapshots --repo /media/backup/yiana
                  yiana backup restore --repo /media/backup/yiana --to ~/Yiana-restored --at 2026-11-01
                  yiana backup forget --repo /media/backup/yiana --prune
                """,
            subcommands: [Run.self, Snapshots.self, Restore.self, Forget.self],
            defaultSubcommand: Run.self
        )
    }
}

/// `--repo`, for every command that reads or writes a restic repository.
struct RepositoryOptions: ParsableArguments {
    @Option(name: .customLong("repo"), help: ArgumentHelp(
        "The restic repository.", discussion: "Default: restic's own RESTIC_REPOSITORY or RESTIC_REPOSITORY_FILE.", valueName: "repo"))
    var repository: String?

    @Option(name: .customLong("restic-option"), help: ArgumentHelp(
        "One of restic's extended options, for every run (restic's -o; repeatable).",
        discussion: "For example sftp.command='ssh -p 2222 backup@nas -s sftp' or s3.region=eu-west-1.", valueName: "key=value"))
    var options: [String] = []

    func validate() throws {
        for option in options where !option.contains("=") { throw ValidationError("--restic-option \(option): give KEY=VALUE, as restic's -o takes.") }
    }

    /// restic, ready for the repository; its refusal as an exit code and a message.
    func restic() throws -> Restic {
        do { return try Restic(repository: repository, options: options) } catch { throw Self.failure(error) }
    }

    /// What restic refused, said, with its exit code (the `yiana backup` help lists them).
    static func failure(_ error: Error) -> Error {
        guard let error = error as? ResticError else {
            if let error = error as? BackupError {
                Output.error(error.description)
                if case .running = error { return ExitCode(11) }
                return ExitCode.failure
            }
            return error
        }
        if error == .noRepositoryGiven { return ValidationError(error.description) }
        Output.error(error.description)
        switch error {
        case .noRepository: return ExitCode(10)
        case .locked: return ExitCode(11)
        case .wrongPassword, .noPassword: return ExitCode(12)
        case .noSpace: return ExitCode(13)
        case .missing, .tooOld: return ExitCode(14)
        default: return ExitCode.failure
        }
    }

    /// Runs `body`, restic's refusals said with their exit codes.
    func said<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw Self.failure(error) }
    }
}

extension Yiana.Backup {
    struct Run: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run",
            abstract: "Make one snapshot of the library's documents and history (the default).",
            discussion: """
                The keeper looks at the library first (what changed is kept and hashed), then \
                the backup folder in the keeper's place (links to the kept states, made once) \
                is brought up to date and restic backs it up, tagged `yiana` and \
                `library:<the library's id>`. A run cut off halfway leaves the repository as \
                restic leaves it, usable; the next run completes it. One backup of a library \
                runs at a time.

                A systemd timer runs it daily: Scripts/service/systemd/yiana-backup@.timer.

                Examples:
                  yiana backup --repo /media/backup/yiana
                  RESTIC_REPOSITORY=sftp:me@nas:/srv/restic/yiana yiana backup run --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var repositoryOptions: RepositoryOptions
        @OptionGroup var jobsOption: JobsOption

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let restic = try repositoryOptions.restic()
            let scan: LibraryScan
            do { scan = try LibraryScanner.scan(library) } catch { throw CommandFailure("\(library.root.path): the library could not be listed: \(error)") }
            let bar = ProgressBar(label: "Backing up")
            let report = try await repositoryOptions.said {
                defer { bar.finish() }
                return try await Keeper(library: library).backUp(to: restic, scan: scan, jobs: jobsOption.jobs) { phase in
                    switch phase {
                    case .looking: bar.update(completed: 0, total: 100, current: "keeping what changed")
                    case .viewing: bar.update(completed: 0, total: 100, current: "checking the kept states")
                    case .sending(let done): bar.update(completed: Int(done * 100), total: 100, current: "restic")
                    }
                }
            }
            if json {
                try Output.json(report)
            } else {
                for path in report.unkept { Output.error("\(path): no whole state of it is kept yet (still arriving, or damaged before it was ever seen whole): not in this snapshot") }
                if !report.notDownloaded.isEmpty {
                    Output.error("\(Output.count(report.notDownloaded.count, "evicted document")) never downloaded to this machine, not in this snapshot: `yiana download` brings them here for the next backup "
                                 + "(\(report.notDownloaded.prefix(3).joined(separator: ", "))\(report.notDownloaded.count > 3 ? ", …" : ""))")
                }
                for failure in report.failures { Output.error(failure) }
                print("snapshot \(report.snapshot) in \(report.repository): \(Output.count(report.documents, "document")), "
                      + "\(Output.count(report.companions, "companion file")), \(Output.count(report.states, "other kept state")); "
                      + "\(report.filesNew) files new, \(report.filesChanged) changed, \(report.filesUnmodified) unmodified; "
                      + "\(readableByteCount(UInt64(max(0, report.dataAdded)))) added (\(String(format: "%.1f", report.seconds)) s).")
                if report.incomplete { Output.error("restic could not read some files: the snapshot lacks them; run `yiana backup` again.") }
            }
            if report.incomplete { throw ExitCode(3) }
            if !report.unkept.isEmpty || !report.failures.isEmpty { throw ExitCode.failure }
        }
    }

    struct Snapshots: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "snapshots",
            abstract: "List the library's snapshots in the repository, oldest first.",
            discussion: """
                Each snapshot's id, when it was made and on which machine. Give an id (or its \
                first characters) to --snapshot of `versions list`, `versions restore` and \
                `backup restore`.

                Example:
                  yiana backup snapshots --repo /media/backup/yiana --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var repositoryOptions: RepositoryOptions
        @OptionGroup var historyOptions: HistoryOptions

        @Flag(help: "Print the snapshots as JSON.")
        var json = false

        func run() async throws {
            let history = try historyOptions.history(repositoryOptions, try libraryOptions.open())
            let snapshots = try await repositoryOptions.said { try history.snapshots() }
            if json { return try Output.json(snapshots) }
            for snapshot in snapshots { print("\(snapshot.shortID)  \(LocalTime(snapshot.time).text)  \(snapshot.hostname)") }
            print("\(Output.count(snapshots.count, "snapshot")) of library \(history.libraryID) in \(history.restic.shownRepository).")
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore",
            abstract: "Bring back a whole library as a snapshot holds it, into a new folder.",
            discussion: """
                Every document is checked against the SHA-256 the snapshot records before the \
                folder takes it; the app's companion files come with them. --at picks the \
                newest snapshot made at or before a time; --snapshot one by its id; the default \
                is the newest. On a new machine, give the repository and its password and \
                nothing else: the repository's one library is found (--library-id picks one \
                of several).

                Examples:
                  yiana backup restore --repo /media/backup/yiana --to ~/Yiana
                  yiana backup restore --repo sftp:me@nas:/srv/restic/yiana --to /tmp/as-of --at '2026-11-01 18:00'
                """
        )

        @OptionGroup var repositoryOptions: RepositoryOptions
        @OptionGroup var historyOptions: HistoryOptions

        @Option(help: ArgumentHelp("The library whose snapshots are read (its id is taken; optional).", valueName: "dir"))
        var library: String?

        @Option(help: ArgumentHelp("The folder to restore into: new, or empty.", valueName: "dir"))
        var to: String

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let known: Library?
            do { known = try library.map { try Library.resolve(explicit: $0) } } catch { throw ValidationError("\(error)") }
            let history = try historyOptions.history(repositoryOptions, known)
            let folder = URL(fileURLWithPath: to).standardizedFileURL
            let result = try await repositoryOptions.said {
                let snapshot = try historyOptions.snapshot(of: history)
                return try history.restoreLibrary(snapshot, to: folder)
            }
            if json {
                try Output.json(result)
            } else {
                for path in result.damaged { Output.error("\(path): the bytes restic gave back do not match the snapshot's SHA-256: left out (run `restic check --read-data`)") }
                print("restored snapshot \(result.snapshot) (\(LocalTime(result.snapshotTime).text)) into \(result.folder): "
                      + "\(Output.count(result.documents, "document")) checked against their SHA-256, \(Output.count(result.companions, "companion file")).")
            }
            if !result.damaged.isEmpty { throw ExitCode.failure }
        }
    }

    struct Forget: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "forget",
            abstract: "Forget the library's snapshots its retention does not keep (restic's forget).",
            discussion: """
                Keeps the last snapshot of each of the last --keep-daily days, --keep-weekly \
                weeks, --keep-monthly months and --keep-yearly years (7, 4, 12 and 0: a year), \
                across the machines that back the library up; the newest is always kept. \
                --prune then deletes the data no snapshot needs (restic's prune: slow on a big \
                repository, so only when asked). Nothing is forgotten while the mass-loss \
                alarm stands.

                Examples:
                  yiana backup forget --repo /media/backup/yiana --dry-run
                  yiana backup forget --repo /media/backup/yiana --keep-yearly 7 --prune
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var repositoryOptions: RepositoryOptions

        @Option(help: "Keep the last snapshot of each of this many days.") var keepDaily = 7
        @Option(help: "Keep the last snapshot of each of this many weeks.") var keepWeekly = 4
        @Option(help: "Keep the last snapshot of each of this many months.") var keepMonthly = 12
        @Option(help: "Keep the last snapshot of each of this many years.") var keepYearly = 0

        @Flag(help: "Also delete the data no snapshot needs any more (restic's prune).")
        var prune = false

        @Flag(help: "Say what would be forgotten, forget nothing.")
        var dryRun = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func validate() throws {
            guard [keepDaily, keepWeekly, keepMonthly, keepYearly].allSatisfy({ $0 >= 0 }) else { throw ValidationError("the --keep-… options take 0 or more.") }
            guard keepDaily + keepWeekly + keepMonthly + keepYearly > 0 else { throw ValidationError("keep something: one --keep-… option above 0.") }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let restic = try repositoryOptions.restic()
            let retention = BackupRetention(daily: keepDaily, weekly: keepWeekly, monthly: keepMonthly, yearly: keepYearly)
            let report = try await repositoryOptions.said {
                try Keeper(library: library).forgetBackups(restic, retention: retention, prune: prune, dryRun: dryRun)
            }
            if json { return try Output.json(report) }
            for id in report.removed { print("\(dryRun ? "would forget" : "forgot") \(id)") }
            print("\(Output.count(report.kept.count, "snapshot")) kept, \(report.removed.count) \(dryRun ? "would be" : "were") forgotten"
                  + (report.pruned ? "; the data no snapshot needs was deleted." : "."))
        }
    }
}

/// Which library's snapshots, and which snapshot, a command reads.
struct HistoryOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The library's id in the repository (when it holds several; `yiana backup snapshots` lists them).", valueName: "id"))
    var libraryID: String?

    @Option(help: ArgumentHelp("Read this snapshot (its id or the start of it).", valueName: "id"))
    var snapshot: String?

    @Option(help: ArgumentHelp("Read the newest snapshot made at or before this time (2026-11-25, '2026-11-25 14:30', 3d).", valueName: "time"))
    var at: String?

    func validate() throws {
        if let at, Moment.parse(at) == nil { throw ValidationError("--at \(at): give a time such as 2026-11-25, '2026-11-25 14:30' or 3d.") }
        if snapshot != nil, at != nil { throw ValidationError("give --snapshot or --at, not both.") }
    }

    /// The history of `library` (nil: the repository's one library).
    func history(_ repository: RepositoryOptions, _ library: Library?) throws -> ResticHistory {
        let restic = try repository.restic()
        let scratch = library.map { Keeper(library: $0).place.folder } ?? URL(fileURLWithPath: NSTemporaryDirectory())
        do {
            return try ResticHistory(restic: restic, library: library, chosenID: libraryID, scratch: scratch)
        } catch {
            throw RepositoryOptions.failure(error)
        }
    }

    func snapshot(of history: ResticHistory) throws -> ResticSnapshot {
        try history.snapshot(id: snapshot, at: at.flatMap { Moment.parse($0) })
    }
}

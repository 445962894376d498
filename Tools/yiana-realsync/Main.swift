import ArgumentParser
import Foundation

/// yiana-realsync: the toolkit under a real sync program (scenario in Scenario.swift).
@main
struct RealSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yiana-realsync",
        abstract: "Run yiana on two devices kept in step by a real sync program, and check that nothing conflicts or is lost.",
        discussion: """
            Two folders of this machine are two devices, synced by unison (`-copyonconflict`) \
            or by two Syncthing instances on 127.0.0.1 (discovery, relays, NAT, upgrades and \
            reports off). A document is imported and synced; while the devices are apart one \
            adds a tag and the other changes the title; they sync (the program makes its \
            conflict copy); `yiana conflicts resolve --strategy merge` runs on one; they sync \
            again. Checked: both edits kept by a three-way merge, both devices the same, no \
            conflict copy of a document or of the toolkit's own files, `verify` clean on both, \
            every kept version listed by `versions list` on both with its bytes, and nothing \
            but documents and the shared state (no lock, no scratch file) ever in the library.

            --scenario ocr: a scan is imported and synced; while apart both devices run \
            `yiana ocr --all`; they sync (the program conflict-copies the document and its \
            .ocr_results files); on one, `conflicts resolve --strategy merge` and `yiana ocr \
            --all` (which settles the results' copies); they sync again. Checked: nothing \
            overruled, no conflict copy left anywhere, both devices the same, verify clean, the \
            results files those of the recognition the document holds, and search finding the \
            scan's word on its page on both.

            --scenario companions: while apart, each device makes address corrections to one \
            document (the same page on both, and another page), changes the work list and \
            edits one letter draft, as the app writes them; they sync (the program \
            conflict-copies those files); `conflicts resolve --strategy merge` on one; they \
            sync twice. Checked: every correction and work-list item of both devices in the \
            plain files on both, which the app's decoders read; no conflict copy left; every \
            byte from before resolving retrievable from the version store on both; verify clean.

            --scenario inject: the same rendered letter is dropped in .letters/inject/ on both \
            devices while apart, a second letter on one of them, and `yiana inject` runs on \
            both; they sync (the program conflict-copies the document); `conflicts resolve \
            --strategy merge` on one; they sync twice. Checked: each letter's pages in the \
            document exactly once on both, no \
            conflict copy left, every byte from before resolving retrievable, verify clean.

            --scenario shared-index: one device imports three documents and indexes them into \
            a PostgreSQL database (--index), which makes the library's id; they sync; both run \
            `yiana watch --index` on their copies while documents are added, edited, renamed and \
            removed on both and synced across. Checked: the library's rows in the database equal \
            a fresh `yiana index` of one copy into another database (--fresh-index), both copies \
            the same, and no watcher logged an error.

            --scenario keeper: a library of the sample documents, indexed and synced; a runs \
            `yiana watch`; b deletes two documents, overwrites two with random bytes and one \
            with zero bytes, and edits one; they sync. Checked: on a, `versions list --deleted` \
            lists exactly the five (and how long that took), the mass-loss alarm is raised \
            (`status` exits 3); a deletion made on a while no watcher runs is recorded by \
            `yiana index`; `versions restore --deleted --since` brings all back byte for byte \
            (SHA-256) and lowers the alarm; after syncing, b has them back too and keeps its \
            edit; both the same; verify clean on both.

            --scenario extract: a scanned letter imported and recognised on a, synced; while \
            apart a runs `yiana extract --all` and on b a person corrects the patient's name as \
            the app writes corrections (.addresses/<title>.overrides.json). After two syncs both \
            files are on both devices as written, the app decodes both and shows the correction \
            over the extracted page, nothing is left conflict-named.

            --scenario letter: the patient's document (Smith_Jane_120345) made on a and synced; \
            on b the app's letter for her lands in .letters/inject/ and one pass of `yiana watch \
            --inject --extract` appends it and finds its people. After two syncs the document \
            holds the letter once on both, each of its pages names the patient of its Re: line \
            (her MRN, postcode and GP), never the consultant who signed; nothing conflict-named.

            --scenario organize: three documents imported on a, synced and indexed on both; a \
            renames one (its file named as the app names it), moves one into a new folder and \
            deletes one. After syncing b holds the same files at the new paths, none at the old \
            ones, nothing conflict-named; the deletion is restorable on a (its version store) \
            and on b (its keeper), and b's restore reaches a byte for byte; verify clean on both.

            --scenario notify: 25 documents synced; a runs `yiana watch --notify json://… \
            --heartbeat …` to receivers on loopback. b deletes a fifth of them: within a minute \
            one alert with the count and the restore command, the heartbeat at /fail; the \
            restore on a: one "resolved", the heartbeat healthy. With the receiver down, b \
            overwrites a document with garbage: the message waits and is delivered once the \
            receiver is back. A restarted watcher repeats nothing.

            Exit status: 0 when every check passed, 1 otherwise.
            """
    )

    @Option(help: "unison or syncthing.")
    var program: String

    @Option(help: "edit (edits on both devices, merged), ocr (both devices recognise one scan), companions (the app's corrections, work list and draft changed on both), inject (one letter injected on both, another on one), shared-index, keeper, extract, organize (rename, move and delete carried) or notify (alerts and heartbeat through apprise).")
    var scenario = "edit"

    @Option(help: ArgumentHelp("For --scenario shared-index: the database both watchers share (postgres://…).", valueName: "url"))
    var index: String?

    @Option(help: ArgumentHelp("For --scenario shared-index: an empty database for the fresh index it is compared with.", valueName: "url"))
    var freshIndex: String?

    @Option(help: "Work folder (default: a new folder in /tmp, removed when all is well).")
    var work: String?

    @Option(help: "The SampleDocs folder.")
    var samples = "SampleDocs"

    @Flag(help: "Print the result as JSON.")
    var json = false

    func validate() throws {
        guard ["unison", "syncthing"].contains(program) else { throw ValidationError("--program is unison or syncthing.") }
        guard ["edit", "ocr", "companions", "inject", "shared-index", "keeper", "extract", "letter", "organize", "notify"].contains(scenario) else {
            throw ValidationError("--scenario is edit, ocr, companions, inject, shared-index, keeper, extract, letter, organize or notify.")
        }
        guard scenario != "shared-index" || (index != nil && freshIndex != nil) else {
            throw ValidationError("--scenario shared-index needs --index and --fresh-index (two databases on a PostgreSQL server).")
        }
    }

    func run() async throws {
        let bin = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        let workURL = work.map { URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yiana-realsync-\(UUID().uuidString.prefix(8))")
        let a = workURL.appendingPathComponent("device-a"), b = workURL.appendingPathComponent("device-b")
        for folder in [workURL, a, b] { try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true) }
        var environment = ProcessInfo.processInfo.environment
        // This machine's state for both devices (each has its own: they are different paths).
        environment["XDG_STATE_HOME"] = workURL.appendingPathComponent("machine/state").path
        environment["XDG_CACHE_HOME"] = workURL.appendingPathComponent("machine/cache").path
        environment["NO_COLOR"] = "1"
        let shell = Shell(scratch: workURL, environment: environment)
        let scenario = Scenario(shell: shell, yiana: bin.appendingPathComponent("yiana").path,
                                samples: URL(fileURLWithPath: samples).standardizedFileURL, a: a, b: b)
        let play = { (program: inout any SyncProgram) async throws -> any Outcome in
            switch self.scenario {
            case "ocr": try await OCRScenario(base: scenario).run(&program)
            case "companions": try await CompanionScenario(base: scenario).run(&program)
            case "inject": try await InjectScenario(base: scenario).run(&program)
            case "keeper": try await KeeperScenario(base: scenario).run(&program)
            case "extract": try await ExtractScenario(base: scenario).run(&program)
            case "letter": try await LetterScenario(base: scenario).run(&program)
            case "organize": try await OrganizeScenario(base: scenario).run(&program)
            case "notify": try await NotifyScenario(base: scenario).run(&program)
            case "shared-index": try await SharedIndexScenario(base: scenario, shared: self.index ?? "", fresh: self.freshIndex ?? "").run(&program)
            default: try await scenario.run(&program)
            }
        }
        let result: any Outcome
        if program == "unison" {
            var unison: any SyncProgram = try Unison(shell: shell, work: workURL)
            try await unison.start(a: a, b: b)
            result = try await play(&unison)
        } else {
            var syncthing: any SyncProgram = Syncthing(shell: shell, work: workURL)
            defer { syncthing.stop() }
            try await syncthing.start(a: a, b: b)
            result = try await play(&syncthing)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print(result.summary)
            for problem in result.problems { print("FAILED: \(problem)") }
        }
        if result.passed, work == nil { try? FileManager.default.removeItem(at: workURL) }
        if !result.passed {
            FileHandle.standardError.write(Data("work folder kept: \(workURL.path)\n".utf8))
            throw ExitCode.failure
        }
    }
}

/// What a scenario found, for the line printed and the exit status.
protocol Outcome: Encodable {
    var problems: [String] { get }
    /// One line for a person.
    var summary: String { get }
}

extension Outcome {
    var passed: Bool { problems.isEmpty }
}

extension Scenario.Result: TravelResult {
    var summary: String {
        """
        \(program): both edits kept \(bothEditsKept ? "yes" : "NO") (three-way \(mergedThreeWay ? "yes" : "NO")); \
        conflict copies left: documents \(documentConflictCopiesLeft), toolkit files \(stateConflictCopiesLeft); \
        converged \(converged ? "yes" : "NO"); verify clean \(verifyClean.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
        versions listed \(versionsListed.map(String.init).joined(separator: "/")) of \(versionsKept) kept; \
        files that travelled but must not: \(travelled.count); \(String(format: "%.1f", seconds)) s
        """
    }
}

extension SharedIndexScenario.Result: Outcome {
    var summary: String {
        """
        \(program), two watchers into one PostgreSQL index: copies converged \(converged ? "yes" : "NO"); \
        the shared index equals a fresh one \(equalsFresh ? "yes" : "NO") (\(indexedShared) and \(indexedFresh) documents, \
        settled \(String(format: "%.1f", secondsToSettle)) s after the last sync); watcher errors \(watcherErrors.count); \
        \(String(format: "%.1f", seconds)) s
        """
    }
}

extension CompanionScenario.Result: TravelResult {
    var summary: String {
        """
        \(program), the app's files changed on both devices: conflict copies made \(companionCopiesMade); \
        corrections kept \(correctionsKept.map(String.init).joined(separator: "/")) of \(correctionsMade); \
        work-list items kept \(workListItemsKept.map(String.init).joined(separator: "/")) of \(workListItemsMade); \
        conflict copies left \(conflictCopiesLeft.count); bytes from before retrievable \
        \(versionsRetrievable.map(String.init).joined(separator: "/")) of \(versionsNeeded); \
        versions of its address files listed \(versionsListed.map(String.init).joined(separator: "/")) of \(versionsKept) kept; \
        converged \(converged ? "yes" : "NO"); verify clean \(verifyClean.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
        files that travelled but must not: \(travelled.count); \(String(format: "%.1f", seconds)) s
        """
    }
}

extension ExtractScenario.Result: TravelResult {
    var summary: String {
        "\(program), extraction on a and a person's correction on b while apart: extracted pages kept \(pagesKept.map(String.init).joined(separator: "/")); "
            + "correction kept \(correctionKept.map { $0 ? "yes" : "NO" }.joined(separator: "/")); the app decodes both \(appDecodes.map { $0 ? "yes" : "NO" }.joined(separator: "/")); "
            + "shown \(shown.joined(separator: " / ")); conflict copies left \(conflictCopiesLeft.count); converged \(converged ? "yes" : "NO"); "
            + "files that travelled but must not: \(travelled.count); \(String(format: "%.1f", seconds)) s"
    }
}

extension LetterScenario.Result: TravelResult {
    var summary: String {
        "\(program), the app's letter injected and extracted on b: pages \(pages.map(String.init).joined(separator: "/")) of \(expectedPages); "
            + "the letter's pages naming its patient \(letterPagesNamingThePatient.map(String.init).joined(separator: "/")) of \(letterPages); "
            + "the consultant as a patient \(consultantAsPatient.map(String.init).joined(separator: "/")); the app decodes \(appDecodes.map { $0 ? "yes" : "NO" }.joined(separator: "/")); "
            + "conflict copies left \(conflictCopiesLeft.count); converged \(converged ? "yes" : "NO"); "
            + "files that travelled but must not: \(travelled.count); \(String(format: "%.1f", seconds)) s"
    }
}

extension KeeperScenario.Result: TravelResult {
    var summary: String {
        "\(program): \(deleted.count) deleted and \(overwritten.count) overwritten on b; listed on a after \(String(format: "%.1f", secondsToList)) s; "
            + "alarm raised \(alarmRaised), lowered \(alarmLowered); restored identical on a and b \(restoredIdentical); "
            + "unwatched deletion recovered \(unwatchedRecovered); b's edit kept \(editKept); converged \(converged); verify clean \(verifyClean) (\(String(format: "%.1f", seconds)) s)"
    }
}

extension InjectScenario.Result: TravelResult {
    var summary: String {
        """
        \(program), one letter injected on both devices and another on one: appends made \(appendsMade), document copies made \(documentCopiesMade); \
        pages \(pages.map(String.init).joined(separator: "/")) of \(expectedPages) (each letter once); \
        documents \(documents.map(String.init).joined(separator: "/")); \
        conflict copies left \(conflictCopiesLeft.count); bytes from before retrievable \
        \(bytesRetrievable.map(String.init).joined(separator: "/")) of \(bytesNeeded); \
        converged \(converged ? "yes" : "NO"); verify clean \(verifyClean.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
        files that travelled but must not: \(travelled.count); \(String(format: "%.1f", seconds)) s
        """
    }
}

extension OCRScenario.Result: TravelResult {
    var summary: String {
        """
        \(program), ocr on both devices: document conflicts \(documentConflictGroups), results copies made \(resultCopiesMade), \
        settled \(resultCopiesSettled); overruled \(overruled.count); conflict copies left \(conflictCopiesLeft.count); \
        converged \(converged ? "yes" : "NO"); verify clean \(verifyClean.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
        results match \(resultsMatch.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
        found on its page \(foundOnPage.map { $0 ? "yes" : "NO" }.joined(separator: "/")); \
        files that travelled but must not: \(travelled.count); \(String(format: "%.1f", seconds)) s
        """
    }
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaNotify
import YianaOCR
import YianaPostgres
import YianaSearch
import YianaSystem
import YianaWatch

extension Yiana {
    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "watch",
            abstract: "Keep libraries healthy as sync delivers changes: index, OCR, and report problems as they arrive.",
            discussion: """
                Runs until stopped (Ctrl-C or SIGTERM: the current step finishes or is \
                abandoned safely; a second Ctrl-C stops at once; kill -9 at any instant damages \
                nothing, every write is the toolkit's crash-safe one).

                It watches each library with inotify (every folder, including those made later; \
                never the toolkit's, the app's or a sync program's own), scans everything at \
                start, and lists every folder again every --rescan seconds and whenever the \
                kernel's event queue overflows (what changed meanwhile is then found and done, \
                as if inotify had said it). \
                Once events have been quiet for half a second (2 s at most while they keep \
                coming), a pass does what `yiana index` \
                does (added, changed, moved, renamed, deleted and evicted documents; moves are \
                followed without extracting again), with --ocr what `yiana ocr --all` does for \
                the documents that changed (with its back-off), and reports, once each, what \
                is wrong: damaged documents, conflict copies, evicted placeholders, leftover \
                temporary files, and the app's companion files that sync conflict-copied or \
                that it cannot decode. With --resolve identical, copies identical to their \
                document are collapsed (kept in the version store); nothing else is resolved \
                unattended. With --inject, letters in .letters/inject/ are appended to their \
                documents as `yiana inject` appends them (never twice). With --extract, the \
                people of each new or changed document (and of each one --ocr just recognised) \
                are written to its address file as `yiana extract` writes them.

                Every pass keeps each new or changed document's state on this machine (the \
                keeper, outside the synced folder: docs/KEEPER.md), so that a deletion or an \
                overwrite sync brings from another device can be undone: such documents are \
                logged, listed by `yiana versions list --deleted`, and a mass loss raises an \
                alarm (an error in the log, `yiana status` exits 3).

                With --notify URL (or $YIANA_NOTIFY), the library's person is told, through \
                Debian's apprise (ntfy, Pushover, email, Matrix, Telegram and a hundred more): \
                the mass-loss alarm at once, documents damaged on arrival, conflict copies \
                waiting for over an hour, documents whose OCR keeps failing; each incident once \
                (more of the same within the hour joined into one message, a restart repeating \
                nothing), and once more when it is resolved. A message that cannot be delivered \
                waits and is tried again; `yiana status` shows the last one sent and what waits. \
                `yiana notify test` tries the URLs.

                A file a sync program is still writing (in place, or through its own temporary \
                names: .syncthing.*.tmp, .unison.*, rclone's .partial) is left until it has \
                been still for --settle seconds (default 5) and reads as a whole document: \
                it is never reported as damaged, kept as a version or repaired meanwhile.

                Each library's events go to a JSON-lines log on this machine \
                (~/.local/state/yiana-tools/libraries/<library>/watch-events.jsonl), never into \
                the synced folder; `yiana status` shows the watcher's health (running, last \
                event, queue, last error).

                As a service: Scripts/install.sh installs the systemd user unit \
                yiana-watch@.service; `systemctl --user enable --now yiana-watch@$(systemd-escape \
                --path ~/Yiana)` starts it now and at every login. Without systemd, run it under \
                any supervisor, or in the background: `nohup yiana watch --library ~/Yiana &`.

                Examples:
                  yiana watch --library ~/Yiana
                  yiana watch --library ~/Yiana --library ~/Work --ocr --resolve identical
                  yiana watch --json | jq 'select(.kind == "problem")'
                  yiana watch --once --ocr        (one pass, from a timer or cron)
                  yiana watch --notify ntfy://ntfy.sh/my-secret-topic --public-url https://box.example.org/
                """
        )

        @Option(name: .customLong("library"), help: ArgumentHelp(
            "A library folder (repeat for several).", discussion: "Default: $YIANA_LIBRARY, else the current folder.", valueName: "dir"))
        var libraries: [String] = []

        @OptionGroup var indexOptions: IndexOptionGroup

        @Flag(help: "Recognise new scans with tesseract, as `yiana ocr` does (with its back-off).")
        var ocr = false

        @Flag(help: "Append the letters in .letters/inject/ to their documents, as `yiana inject` does.")
        var inject = false

        @Flag(help: "Find the people in new and changed documents, after --ocr, as `yiana extract` does.")
        var extract = false

        @Option(name: .customLong("lang"), help: ArgumentHelp("tesseract's languages for --ocr, joined by +.", valueName: "eng+deu"))
        var languages = "eng"

        @Option(help: ArgumentHelp("What to resolve unattended: identical (copies identical to their document).", valueName: "what"))
        var resolve: String?

        @Option(help: ArgumentHelp("Seconds a file must have been still before it is acted on, if it does not read as a whole document.",
                                   discussion: "Default: $YIANA_SETTLE_SECONDS, else 5.", valueName: "seconds"))
        var settle: Double?

        @Option(help: ArgumentHelp("Seconds between rescans (every folder listed again), the safety net for events inotify cannot see.", valueName: "seconds"))
        var rescan = 600.0

        @OptionGroup var jobsOption: JobsOption

        @OptionGroup var notify: NotifyOptions

        @Flag(help: "Do one pass (index, OCR, problems) and exit, for a timer instead of a running watcher; exit 1 if it logged an error.")
        var once = false

        @Flag(help: "Print each event as one JSON object per line instead of text.")
        var json = false

        func validate() throws {
            guard resolve == nil || resolve == "identical" else {
                throw ValidationError("--resolve takes identical: only copies identical to their document are resolved unattended.")
            }
            guard libraries.count <= 1 || indexOptions.path == nil || PostgresLocation.isURL(indexOptions.path ?? "") else {
                throw ValidationError("--index names one library's index file: with several libraries each uses its own default index (or name a postgres:// database, which holds them all).")
            }
            guard rescan >= 1 else { throw ValidationError("--rescan must be at least 1 second.") }
            guard (settle ?? 0) >= 0 else { throw ValidationError("--settle cannot be negative.") }
        }

        func run() async throws {
            do {
                try await watch()
            } catch let error as WatchError {
                throw CommandFailure(error.description)
            }
        }

        private func watch() async throws {
            // Taken first, so that a stop asked for while the libraries and tesseract are
            // still being opened is a clean stop too (exit 0), not death by the signal.
            let stop = once ? nil : try StopSignals()
            let roots = libraries.isEmpty ? [nil] : libraries.map { Optional($0) }
            let opened = try roots.map { root in
                do { return try Library.resolve(explicit: root) } catch let error as LibraryError { throw ValidationError(error.description) }
            }
            var ocrOptions: OCROptions?
            if ocr {
                var options = OCROptions()
                options.languages = languages
                options.jobs = jobsOption.jobs
                do { _ = try TesseractEngine(languages: languages) } catch let error as OCRError { throw CommandFailure(error.description) }
                ocrOptions = options
            }
            let checked = try notify.targets()
            let printer = EventPrinter(json: json, several: opened.count > 1)
            if once {
                var clean = true
                for library in opened {
                    let watcher = try await LibraryWatcher(library: library, options: options(for: library, ocr: ocrOptions, notifying: checked)) {
                        printer.print($0, library: library.root.lastPathComponent)
                    }
                    if await !watcher.runOnce() { clean = false }
                }
                if !clean { throw ExitCode.failure }
                return
            }
            guard let stop else { return }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for library in opened {
                    let name = library.root.lastPathComponent
                    let watcher = try await LibraryWatcher(library: library, options: options(for: library, ocr: ocrOptions, notifying: checked)) {
                        printer.print($0, library: name)
                    }
                    group.addTask { try await watcher.run(wake: stop.fd) { stop.requested } }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension Yiana.Watch {
    func options(for library: Library, ocr: OCROptions?, notifying checked: (Apprise, [NotifyTarget])?) throws -> WatchOptions {
        // $YIANA_INDEX names a file for one library only; a database holds them all.
        let named = libraries.count <= 1 || indexOptions.path != nil || indexOptions.isServer
        var options = WatchOptions(index: named ? try indexOptions.resolve(for: library) : .file(SearchIndex.defaultLocation(for: library.root)))
        options.jobs = jobsOption.jobs
        options.ocr = ocr
        options.resolveIdentical = resolve == "identical"
        options.inject = inject
        options.extract = extract
        options.rescanEvery = rescan
        options.settle = settle ?? Arrival.defaultWindow
        options.notifier = notify.notifier(for: library, checked)
        options.heartbeat = try notify.heartbeat(for: library)
        options.digest = try notify.digestSchedule()
        return options
    }
}

/// Prints watcher events as they come, as text or JSON lines, one library's or several.
final class EventPrinter: @unchecked Sendable {
    // @unchecked: printing is serialised by `lock`.
    let json: Bool
    let several: Bool
    private let lock = NSLock()
    private let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .internetTime
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    init(json: Bool, several: Bool) {
        self.json = json
        self.several = several
    }

    func print(_ event: WatchEvent, library: String) {
        var line: String
        if json {
            guard var object = (try? encoder.encode(event)).flatMap({ try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }) else { return }
            if several { object["library"] = library }
            guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
            line = String(decoding: data, as: UTF8.self)
        } else {
            let place = several ? "[\(library)] " : ""
            let what = [event.path, event.code.map { "(\($0))" }, event.detail].compactMap { $0 }.joined(separator: " ")
            line = "\(InternetTime.string(event.time)) \(place)\(event.kind.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)) \(what)"
        }
        line += "\n"
        // Written at once (not through stdout's buffer), so a pipe sees each event as it happens.
        lock.lock()
        FileHandle.standardOutput.write(Data(line.utf8))
        lock.unlock()
    }
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaNotify

/// `--notify URL` (repeatable) and `$YIANA_NOTIFY`, for `watch`, `serve --watch` and `notify test`.
struct NotifyOptions: ParsableArguments {
    @Option(name: .customLong("notify"), help: ArgumentHelp(
        "Where to tell what happens (an Apprise URL; repeat for several).",
        discussion: """
            Any URL Debian's apprise understands: ntfy://host/topic, pover://user@token, \
            mailto://user:password@example.com, tgram://bot-token/chat-id, json://host/path and a \
            hundred more (`apprise --details`). Also $YIANA_NOTIFY, URLs separated by spaces (for \
            the systemd units' environment file). Each URL is checked at start; its secrets are \
            never printed or kept.
            """, valueName: "url"))
    var urls: [String] = []

    @Option(name: .customLong("public-url"), help: ArgumentHelp(
        "The address at which `yiana serve` shows this library, for the links in messages.", valueName: "url"))
    var publicURL: String?

    @Option(name: .customLong("heartbeat"), help: ArgumentHelp(
        "An address requested every --heartbeat-every seconds while all is well, its failing form while an alarm or error stands.",
        discussion: """
            For a monitor that is not on this box, which says so when the requests stop: a \
            healthchecks.io check (https://hc-ping.com/UUID; `/fail` is added while failing) or an \
            Uptime Kuma push monitor (https://kuma.example.org/api/push/TOKEN?status=up; \
            status=down while failing).
            """, valueName: "url"))
    var heartbeat: String?

    @Option(name: .customLong("heartbeat-every"), help: ArgumentHelp("Seconds between two heartbeats.", valueName: "seconds"))
    var heartbeatEvery: Double = 300

    @Option(name: .customLong("digest"), help: ArgumentHelp(
        "With --notify: a digest every day, every Monday, or never (daily, weekly, off).",
        discussion: """
            What arrived or changed, what was deleted or overwritten (kept here, and until when it \
            can be brought back), and what waits for a person: one plain message (`yiana notify \
            digest` shows it now).
            """, valueName: "period"))
    var digest: DigestSchedule.Period = .daily

    @Option(name: .customLong("digest-at"), help: ArgumentHelp("The local time the digest is sent at.", valueName: "HH:MM"))
    var digestAt = "08:00"

    /// The digest's schedule; nil without --notify.
    /// - Throws: `ValidationError` for a time that is not one.
    func digestSchedule() throws -> DigestSchedule? {
        do {
            let schedule = try DigestSchedule(digest, at: digestAt)
            return all.isEmpty ? nil : schedule
        } catch let error as NotifyError {
            throw ValidationError(error.description)
        }
    }

    /// The heartbeat for `library`, or nil without --heartbeat.
    /// - Throws: ``CommandFailure`` for an address that is not http(s).
    func heartbeat(for library: Library) throws -> Heartbeat? {
        guard let heartbeat else { return nil }
        guard heartbeatEvery >= 1 else { throw ValidationError("--heartbeat-every must be at least 1 second.") }
        do { return try Heartbeat(heartbeat, every: heartbeatEvery, library: library) } catch let error as NotifyError {
            throw CommandFailure("--heartbeat: \(error.description)")
        }
    }

    /// The URLs given here and in `$YIANA_NOTIFY`.
    var all: [String] { NotifyTarget.urls(options: urls) }

    /// The targets, each checked by apprise; none when no URL is given.
    /// - Throws: ``CommandFailure`` naming the URL (secrets hidden) and apprise's reason, or
    ///   the command that installs apprise.
    func targets() throws -> (Apprise, [NotifyTarget])? {
        guard !all.isEmpty else { return nil }
        do {
            let apprise = try Apprise()
            return (apprise, try all.map { try NotifyTarget($0, apprise: apprise) })
        } catch let error as NotifyError {
            throw CommandFailure("--notify: \(error.description)")
        }
    }

    /// A notifier for `library` to the targets checked once (``targets()``), or nil without any.
    func notifier(for library: Library, _ checked: (Apprise, [NotifyTarget])?) -> Notifier? {
        checked.map { Notifier(library: library, targets: $0.1, apprise: $0.0, publicURL: publicURL) }
    }
}

extension Yiana {
    struct Notify: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "notify",
            abstract: "Tell a library's person what happens to it: try the notification URLs, show the digest.",
            discussion: """
                `yiana watch --notify URL` (and `serve --watch`) sends a message, through \
                Debian's apprise, when something needs a person: the keeper's mass-loss alarm (at \
                once), documents damaged on arrival, conflict copies waiting for over an hour, \
                documents whose OCR or text extraction keeps failing, the keeper past 90% of its \
                disk budget, the search index unusable; each incident once, and once more when \
                it is resolved. A message that cannot be delivered waits in the library's local \
                state and is tried again (30 s, doubling, at most hourly) until it is. A digest \
                goes every morning (--digest, --digest-at). `yiana notify test` checks the URLs \
                first; `yiana notify digest` shows the digest now.
                """,
            subcommands: [Test.self, Digest.self]
        )
    }
}

extension Yiana.Notify {
    struct Test: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "test",
            abstract: "Send a test message to each notification URL (and request the heartbeat) and say what each answered.",
            discussion: """
                The URLs are those of --notify, else of $YIANA_NOTIFY. Exit code 1 when any \
                URL could not be reached (each one's reason is printed), 2 when a URL is not \
                one apprise understands.

                Examples:
                  yiana notify test --notify ntfy://ntfy.example.org/yiana-home
                  yiana notify test --library ~/Yiana     (the URLs of $YIANA_NOTIFY; what waits for ~/Yiana)
                  yiana notify test --heartbeat https://hc-ping.com/UUID
                  YIANA_NOTIFY='mailto://me:pw@example.org json://127.0.0.1:8080/hook' yiana notify test --json
                """
        )

        @OptionGroup var notify: NotifyOptions

        @Option(name: .long, help: ArgumentHelp(
            "A library whose messages these are: named in the test message, and what still waits to be sent for it is listed.", valueName: "dir"))
        var library: String?

        @Flag(help: "Print the outcome as JSON.")
        var json = false

        struct Outcome: Encodable {
            let url: String
            let delivered: Bool
            let error: String?
        }

        struct Answer: Encodable {
            let results: [Outcome]
            /// With --library: what waits to be sent for it.
            let waiting: [NotifyStatus.Waiting]?
        }

        func run() async throws {
            guard !notify.all.isEmpty || notify.heartbeat != nil else {
                throw ValidationError("No URL to try: give --notify URL (or set $YIANA_NOTIFY), or --heartbeat URL.")
            }
            var outcomes: [Outcome] = []
            var refused = false
            if let heartbeat = notify.heartbeat {
                let shown = "heartbeat " + Apprise.sketch(heartbeat)
                if let url = URL(string: heartbeat), ["http", "https"].contains(url.scheme?.lowercased() ?? "") {
                    do {
                        let status = try await Ping.get(url)
                        outcomes.append(Outcome(url: shown, delivered: (200..<300).contains(status), error: (200..<300).contains(status) ? nil : "answered \(status)"))
                    } catch {
                        outcomes.append(Outcome(url: shown, delivered: false, error: "\(error)"))
                    }
                } else {
                    refused = true
                    outcomes.append(Outcome(url: shown, delivered: false, error: "a heartbeat is an http:// or https:// address"))
                }
            }
            let apprise: Apprise?
            do { apprise = notify.all.isEmpty ? nil : try Apprise() } catch let error as NotifyError { throw CommandFailure(error.description) }
            let host = ProcessInfo.processInfo.hostName
            let opened = try library.map { root in
                do { return try Library.resolve(explicit: root) } catch let error as LibraryError { throw ValidationError(error.description) }
            }
            let about = opened.map { " for the library \($0.root.path)" } ?? ""
            if let apprise {
                let sent = Self.send(to: notify.all, apprise: apprise) { target in
                    NotifyMessage(incident: "test", level: .info, title: "yiana: a test message from \(host)\(about)",
                                  body: "If you read this, yiana's messages reach you here (\(target.shown)).")
                }
                outcomes += sent.outcomes
                refused = refused || sent.refused
            }
            let waiting = opened.map { Notifier.status(of: $0).waiting } ?? []
            try Self.finish(outcomes, waiting: opened == nil ? nil : waiting, json: json, refused: refused)
        }

        /// Sends each URL its message now (not through the waiting messages); a URL apprise
        /// does not understand is refused.
        static func send(to urls: [String], apprise: Apprise, message: (NotifyTarget) -> NotifyMessage) -> (outcomes: [Outcome], refused: Bool) {
            var outcomes: [Outcome] = []
            var refused = false
            for url in urls {
                let target: NotifyTarget
                do { target = try NotifyTarget(url, apprise: apprise) } catch {
                    refused = true
                    outcomes.append(Outcome(url: (error as? NotifyError)?.shownURL ?? "?", delivered: false, error: "\(error)"))
                    continue
                }
                switch apprise.send(message(target), to: target.url) {
                case .delivered: outcomes.append(Outcome(url: target.shown, delivered: true, error: nil))
                case .failed(let reason): outcomes.append(Outcome(url: target.shown, delivered: false, error: reason))
                }
            }
            return (outcomes, refused)
        }

        /// Prints what each URL answered (and what waits); exit 2 when a URL was refused, 1
        /// when one could not be reached.
        static func finish(_ outcomes: [Outcome], waiting: [NotifyStatus.Waiting]?, json: Bool, refused: Bool) throws {
            if json {
                try Output.json(Answer(results: outcomes, waiting: waiting))
            } else {
                for outcome in outcomes {
                    print(outcome.delivered ? "sent     \(outcome.url)" : "FAILED   \(outcome.url): \(outcome.error ?? "")")
                }
                for message in waiting ?? [] {
                    print("waiting  \"\(message.title)\" to \(message.to): tried \(message.tries) times (\(message.lastError ?? "not yet")); the watcher tries again")
                }
            }
            try exit(outcomes, refused: refused)
        }

        /// Exit 2 when a URL was refused, 1 when one could not be reached.
        static func exit(_ outcomes: [Outcome], refused: Bool) throws {
            if refused { throw ExitCode(2) }
            if outcomes.contains(where: { !$0.delivered }) { throw ExitCode.failure }
        }
    }
}

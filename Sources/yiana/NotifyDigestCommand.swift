import ArgumentParser
import Foundation
import YianaLibrary
import YianaNotify
import YianaWatch

extension DigestSchedule.Period: ExpressibleByArgument {}

extension Yiana.Notify {
    struct Digest: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "digest",
            abstract: "Show (or send) the digest of a library: what arrived, what was lost, what waits for you.",
            discussion: """
                The message `yiana watch --notify URL --digest daily` sends every morning, made \
                now: the documents that arrived or changed (from the watcher's event log), those \
                deleted or overwritten and kept on this machine, with the day until which they can \
                be brought back, and the problems the watcher last saw. --send sends it to the \
                URLs of --notify (else $YIANA_NOTIFY) at once, and says what each answered.

                Examples:
                  yiana notify digest --library ~/Yiana
                  yiana notify digest --since 7d --send --notify mailto://me:pw@example.org
                  yiana notify digest --since '2026-11-25 08:00' --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: ArgumentHelp("The start of the period told of (2h, 3d, 2026-11-25, '2026-11-25 14:30'); default a day ago.", valueName: "time"))
        var since: String?

        @Flag(help: "Send it to the URLs of --notify (else $YIANA_NOTIFY) now.")
        var send = false

        @Option(name: .customLong("notify"), help: ArgumentHelp("With --send: where to (an Apprise URL; repeat for several).", valueName: "url"))
        var urls: [String] = []

        @Option(name: .customLong("public-url"), help: ArgumentHelp("The address at which `yiana serve` shows this library, for the link.", valueName: "url"))
        var publicURL: String?

        @Flag(help: "Print the message (and with --send what each URL answered) as JSON.")
        var json = false

        func validate() throws {
            if let since, Moment.parse(since) == nil { throw ValidationError("--since \(since): not a time; give e.g. 2h, 3d, 2026-11-25 or '2026-11-25 14:30'.") }
            if send, NotifyTarget.urls(options: urls).isEmpty { throw ValidationError("--send needs a URL: give --notify URL (or set $YIANA_NOTIFY).") }
        }

        struct Answer: Encodable {
            let title: String
            let body: String
            let results: [Test.Outcome]?
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let now = Date()
            let from = since.flatMap { Moment.parse($0, now: now) } ?? now.addingTimeInterval(-86_400)
            let content = LibraryWatcher.digestContent(library: library, log: EventLog(library: library),
                                                       period: DateInterval(start: min(from, now), end: now),
                                                       standing: Notifier.lastObserved(in: library))
            let message = Notifier.digestMessage(content, library: library, publicURL: publicURL, now: now)
            var sent: (outcomes: [Test.Outcome], refused: Bool)?
            if send {
                let apprise: Apprise
                do { apprise = try Apprise() } catch let error as NotifyError { throw CommandFailure(error.description) }
                sent = Test.send(to: NotifyTarget.urls(options: urls), apprise: apprise) { _ in message }
            }
            if json {
                try Output.json(Answer(title: message.title, body: message.body, results: sent?.outcomes))
                if let sent { try Test.exit(sent.outcomes, refused: sent.refused) }
                return
            }
            print(message.title)
            print(message.body)
            if let sent {
                print("")
                try Test.finish(sent.outcomes, waiting: nil, json: false, refused: sent.refused)
            }
        }
    }
}

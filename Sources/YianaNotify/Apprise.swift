import Foundation
import YianaSystem

/// Debian's `apprise` command (package `apprise`): one URL syntax for ntfy, Pushover, email,
/// Matrix, Signal, Telegram, Slack, Gotify and a hundred more services. The toolkit never
/// speaks those services itself; it runs apprise once per URL and message, so that each
/// URL's answer is known on its own.
///
/// A URL often holds a secret (a token, a password): it goes to apprise in its environment
/// (`APPRISE_URLS`), never on a command line that `ps` shows, and is shown only as apprise
/// shows it with its secrets hidden (``check(_:)``). The message's text goes on standard input.
public struct Apprise: Sendable {
    /// The program's path.
    public let executable: String
    /// The environment apprise runs in (this process's, so that proxies and `HOME` carry over).
    let environment: [String: String]

    /// What installs it, for the message that says it is missing.
    public static let installCommand = "sudo apt-get install apprise"

    /// Seconds one delivery may take before apprise is stopped (its own time-outs are shorter).
    public static let timeout: Double = 60

    /// - Throws: ``NotifyError/appriseMissing`` when no `apprise` is on `$PATH`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        guard let path = ChildProcess.find("apprise", environment: environment) else { throw NotifyError.appriseMissing }
        executable = path
        var environment = environment
        // Only the URL given: no configuration file of the user's, no other URL from outside.
        environment["APPRISE_CONFIG"] = nil
        self.environment = environment
    }

    /// Checks `url` without sending anything (apprise's dry run). Returns the URL as apprise
    /// shows it, its secrets hidden.
    /// - Throws: ``NotifyError/badURL(_:reason:)`` with apprise's reason.
    public func check(_ url: String) throws -> String {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.contains(where: { $0.isWhitespace || $0 == "," }) else {
            throw NotifyError.badURL(Self.sketch(url), reason: "one URL at a time, without spaces or commas")
        }
        let run = try runApprise(["--dry-run"], url: trimmed, input: Data(), timeout: 30)
        let listed = run.output.split(separator: "\n").compactMap { line -> String? in
            let text = line.trimmingCharacters(in: .whitespaces)
            guard let dot = text.firstIndex(of: "."), Int(text[..<dot]) != nil else { return nil }
            return text[text.index(after: dot)...].trimmingCharacters(in: .whitespaces)
        }
        guard run.status == 0, listed.count == 1 else {
            // Apprise's reason quotes the URL: the sketch instead, without what may be a secret.
            let reason = (Self.reason(run) ?? "apprise does not know how to send to it").replacingOccurrences(of: trimmed, with: Self.sketch(trimmed))
            throw NotifyError.badURL(Self.sketch(trimmed), reason: reason)
        }
        // Without its options (apprise adds its defaults, and cuts the line at 75 characters).
        return String(listed[0].prefix { $0 != "?" })
    }

    /// Sends `message` to `url`. Never throws: what went wrong is the ``Delivery``'s reason.
    public func send(_ message: NotifyMessage, to url: String, timeout: Double = Apprise.timeout) -> Delivery {
        let arguments = ["-v", "--notification-type", message.level.rawValue, "--input-format", "text", "--title", message.title]
        do {
            let run = try runApprise(arguments, url: url, input: Data(message.body.utf8), timeout: timeout)
            if run.timedOut { return .failed("apprise did not finish within \(Int(timeout)) s") }
            if run.status == 0 { return .delivered }
            return .failed(Self.reason(run) ?? "apprise exited with status \(run.status)")
        } catch {
            return .failed("apprise could not be started (\(executable)): \(error)")
        }
    }

    private func runApprise(_ arguments: [String], url: String, input: Data, timeout: Double) throws -> ChildProcess {
        var environment = self.environment
        environment["APPRISE_URLS"] = url
        return try ChildProcess.run(executable, arguments, environment: environment, input: input, timeout: timeout)
    }

    /// Apprise's own words for what failed, without its time stamp: its first error (the
    /// cause; later ones follow from it), else its last warning.
    static func reason(_ run: ChildProcess) -> String? {
        let lines = run.output.split(separator: "\n").map(String.init)
        guard let line = lines.first(where: { $0.contains(" - ERROR - ") }) ?? lines.last(where: { $0.contains(" - WARNING - ") }) else { return nil }
        for marker in [" - ERROR - ", " - WARNING - "] {
            if let range = line.range(of: marker) { return String(line[range.upperBound...]) }
        }
        return line
    }

    /// A URL shown without what may be a secret: its scheme and host.
    public static func sketch(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return url.count > 12 ? String(url.prefix(8)) + "…" : url }
        let rest = url[schemeEnd.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        let host = authority.split(separator: "@").last.map(String.init) ?? ""
        return String(url[..<schemeEnd.upperBound]) + host + (rest.count > authority.count ? "/…" : "")
    }
}

/// What one delivery came to.
public enum Delivery: Sendable, Equatable {
    case delivered
    case failed(String)
}

public enum NotifyError: Error, Equatable, CustomStringConvertible {
    case appriseMissing
    case badURL(String, reason: String)
    /// A digest schedule that is not one (the whole sentence).
    case badDigest(String)

    /// The URL refused, as shown (its secrets hidden).
    public var shownURL: String? {
        if case .badURL(let url, _) = self { url } else { nil }
    }

    public var description: String {
        switch self {
        case .appriseMissing:
            "notifications are sent by apprise, which is not installed: `\(Apprise.installCommand)`"
        case .badURL(let url, let reason):
            "the notification URL \(url) is not one apprise can send to: \(reason) (the services and their URLs: `apprise --details`)"
        case .badDigest(let reason):
            reason
        }
    }
}

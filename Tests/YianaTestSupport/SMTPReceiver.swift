import Foundation

/// A real SMTP server on loopback: Debian's aiosmtpd (`python3-aiosmtpd`, run by Debian's own
/// `/usr/bin/python3`), whose handler keeps each message it accepts (sender, recipients,
/// subject and its plain-text body, decoded) as a JSON line, for apprise's `mailto://`.
public final class SMTPReceiver: @unchecked Sendable {
    // @unchecked: the process is started in init and only stopped after.
    public struct Mail: Decodable, Sendable {
        public let from: String
        public let to: [String]
        public let subject: String
        public let text: String
    }

    public let port: Int
    private let process = Process()
    private let input = Pipe()
    private let folder: TemporaryFolder
    private var mailbox: URL { folder.url.appendingPathComponent("mail.jsonl") }

    static let server = """
        import sys, json, email
        from email import policy
        from aiosmtpd.controller import Controller

        class Keep:
            async def handle_DATA(self, server, session, envelope):
                message = email.message_from_bytes(envelope.content, policy=policy.default)
                body = message.get_body(preferencelist=("plain",))
                kept = {"from": envelope.mail_from, "to": envelope.rcpt_tos, "subject": str(message["subject"]),
                        "text": body.get_content() if body else ""}
                with open(sys.argv[2], "a") as out:
                    out.write(json.dumps(kept) + "\\n")
                return "250 Message accepted"

        controller = Controller(Keep(), hostname="127.0.0.1", port=int(sys.argv[1]))
        controller.start()
        print("ready", flush=True)
        sys.stdin.read()
        controller.stop()
        """

    /// Starts the server on a free port of 127.0.0.1 and waits until it listens.
    /// - Throws: when aiosmtpd cannot start (say, `python3-aiosmtpd` is not installed).
    public init() throws {
        folder = try TemporaryFolder()
        let probe = try LoopbackReceiver()
        port = probe.port
        probe.close()
        let output = Pipe(), errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", Self.server, String(port), folder.url.appendingPathComponent("mail.jsonl").path]
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let ready = output.fileHandleForReading.availableData
        guard String(decoding: ready, as: UTF8.self).hasPrefix("ready") else {
            process.waitUntilExit()
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            throw ReceiverError("aiosmtpd did not start (apt-get install python3-aiosmtpd): \(said)")
        }
    }

    /// The messages accepted so far.
    public var received: [Mail] {
        guard let data = FileManager.default.contents(atPath: mailbox.path) else { return [] }
        return data.split(separator: 0x0A).compactMap { try? JSONDecoder().decode(Mail.self, from: Data($0)) }
    }

    /// Waits until `count` messages have come (or `seconds` passed); returns what came.
    public func wait(for count: Int, seconds: Double) -> [Mail] {
        let deadline = Date().addingTimeInterval(seconds)
        while received.count < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        return received
    }

    /// Stops the server.
    public func close() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
    }

    deinit { close() }
}

public struct ReceiverError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

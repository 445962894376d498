import Foundation
import Glibc

/// A program of the system run to its end, with a time limit: its exit status and what it
/// printed (standard output and error together). For the few outside programs the toolkit
/// drives as programs rather than libraries (Apprise, a Python program).
package struct ChildProcess: Sendable {
    /// The exit status (128 + the signal when a signal ended it).
    package let status: Int32
    /// Standard output and standard error, as printed.
    package let output: String
    /// True when the time limit ended it.
    package let timedOut: Bool

    /// The path of the first executable `name` on `$PATH` (of `environment`), or nil.
    package static func find(_ name: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
        for folder in (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":") where !folder.isEmpty {
            let path = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }

    /// Runs `executable` with `arguments` in `environment` (the whole environment it gets),
    /// `input` on its standard input. After `timeout` seconds it is asked to end (SIGTERM),
    /// and killed 2 s later.
    /// - Throws: when it cannot be started.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String],
                            input: Data = Data(), timeout: Double) throws -> ChildProcess {
        // A program that ends before reading its input must not end this process with it.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        let stdin = Pipe(), output = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = output
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        // Read on a thread of its own: a program that prints much never waits on a full pipe.
        let reading = output.fileHandleForReading
        let printed = BackgroundWork<Data> { reading.readDataToEndOfFile() }
        try? stdin.fileHandleForWriting.write(contentsOf: input)
        try? stdin.fileHandleForWriting.close()
        var timedOut = false
        if ended.wait(timeout: .now() + timeout) == .timedOut {
            timedOut = true
            process.terminate()
            if ended.wait(timeout: .now() + 2) == .timedOut {
                kill(process.processIdentifier, SIGKILL)
                ended.wait()
            }
        }
        let data = (try? printed.wait()) ?? Data()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return ChildProcess(status: status, output: String(decoding: data, as: UTF8.self), timedOut: timedOut)
    }
}

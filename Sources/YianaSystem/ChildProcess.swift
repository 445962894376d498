import Foundation
import Glibc

/// A program of the system run to its end: its exit status and what it printed. For the few
/// outside programs the toolkit drives as programs rather than libraries (Apprise, restic, a
/// Python program).
package struct ChildProcess: Sendable {
    /// The exit status (128 + the signal when a signal ended it).
    package let status: Int32
    /// Standard output and standard error, as printed (standard error alone for a run that
    /// hands its standard output over line by line).
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
        let output = Pipe()
        let (process, ended, stdin) = try start(executable, arguments, environment: environment, output: output, error: output)
        // Read on a thread of its own: a program that prints much never waits on a full pipe.
        let reading = output.fileHandleForReading
        let printed = BackgroundWork<Data> { reading.readDataToEndOfFile() }
        feed(stdin, input)
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
        return ChildProcess(status: status(of: process), output: String(decoding: data, as: UTF8.self), timedOut: timedOut)
    }

    /// Runs `executable` as ``run(_:_:environment:input:timeout:)`` does, to its end however
    /// long it takes (a backup takes what it takes), with its standard output apart: each line
    /// handed to `line` as it is printed (a program's progress, JSON lines), on a thread of its
    /// own. What it printed on standard error is the result's ``output``. `directory`: the
    /// folder it runs in (this process's when nil).
    /// - Throws: when it cannot be started.
    package static func run(_ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
                            input: Data = Data(), line: @escaping @Sendable (String) -> Void) throws -> ChildProcess {
        let output = Pipe(), error = Pipe()
        let (process, ended, stdin) = try start(executable, arguments, environment: environment, directory: directory, output: output, error: error)
        let errors = error.fileHandleForReading
        let printed = BackgroundWork<Data> { errors.readDataToEndOfFile() }
        let reading = output.fileHandleForReading
        let lines = BackgroundWork<Void> {
            var pending = Data()
            while true {
                let chunk = reading.availableData
                if chunk.isEmpty { break }
                pending.append(chunk)
                while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    line(String(decoding: pending[pending.startIndex..<end], as: UTF8.self))
                    pending.removeSubrange(pending.startIndex...end)
                }
            }
            if !pending.isEmpty { line(String(decoding: pending, as: UTF8.self)) }
        }
        feed(stdin, input)
        ended.wait()
        try? lines.wait()
        let data = (try? printed.wait()) ?? Data()
        return ChildProcess(status: status(of: process), output: String(decoding: data, as: UTF8.self), timedOut: false)
    }

    /// `executable` started, with the semaphore its end signals and its standard input.
    private static func start(_ executable: String, _ arguments: [String], environment: [String: String], directory: String? = nil,
                              output: Pipe, error: Pipe) throws -> (Process, DispatchSemaphore, FileHandle) {
        // A program that ends before reading its input must not end this process with it.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = environment
        if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory, isDirectory: true) }
        let stdin = Pipe()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = error
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        return (process, ended, stdin.fileHandleForWriting)
    }

    /// `input` written to a child's standard input, which is then closed (once its output is
    /// being read: a program that prints before it reads never waits on a full pipe).
    private static func feed(_ stdin: FileHandle, _ input: Data) {
        try? stdin.write(contentsOf: input)
        try? stdin.close()
    }

    /// The exit status, 128 + the signal when a signal ended it.
    private static func status(of process: Process) -> Int32 {
        process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }
}

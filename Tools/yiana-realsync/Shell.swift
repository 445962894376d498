import Foundation
import YianaSystem

/// How a child process ended.
struct Finished {
    let status: Int32
    let stdout: String
    let stderr: String
}

struct RealSyncError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs programs with their output in files (a full pipe never blocks a child).
struct Shell {
    let scratch: URL
    var environment: [String: String]

    /// Runs `program` to the end.
    func run(_ program: String, _ arguments: [String], extra: [String: String] = [:]) throws -> Finished {
        let process = try start(program, arguments, extra: extra)
        process.process.waitUntilExit()
        return process.finish()
    }

    /// Runs `program` and requires exit status 0 (or one of `allowed`).
    @discardableResult
    func must(_ program: String, _ arguments: [String], allowed: Set<Int32> = [0], extra: [String: String] = [:]) throws -> Finished {
        let result = try run(program, arguments, extra: extra)
        guard allowed.contains(result.status) else {
            throw RealSyncError("`\(([program] + arguments).joined(separator: " "))` exited \(result.status): \(result.stderr)\(result.stdout.suffix(2000))")
        }
        return result
    }

    /// A started child process, for servers that run beside the scenario.
    final class Running {
        let process: Process
        let out: URL, err: URL

        init(process: Process, out: URL, err: URL) {
            self.process = process
            self.out = out
            self.err = err
        }

        func finish() -> Finished {
            Finished(status: process.terminationStatus, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                     stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning && Date() < deadline { Sys.sleep(seconds: 0.02) }
            if process.isRunning { Sys.signal(process.processIdentifier, Sys.killSignal) }
            process.waitUntilExit()
        }
    }

    func start(_ program: String, _ arguments: [String], extra: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program.hasPrefix("/") ? program : try Self.which(program))
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let id = UUID().uuidString.prefix(8)
        let out = scratch.appendingPathComponent("out-\(id)"), err = scratch.appendingPathComponent("err-\(id)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return Running(process: process, out: out, err: err)
    }

    /// The full path of `program` on `PATH`.
    static func which(_ program: String) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/\(program)") {
            return "\(folder)/\(program)"
        }
        throw RealSyncError("\(program) is not installed: run Scripts/setup.sh \(program == "yiana" ? "" : program)")
    }
}

import Foundation
import YianaSystem

/// How one run of a command ended.
struct Outcome {
    var status: Int32
    /// The signal that ended it, if one did (SIGKILL from us; anything else is a crash).
    var signal: Int32?
    var seconds: Double
    var stderr: String
    var stdout = ""
}

/// Runs `yiana` (and friends) as child processes, with the fault shim when asked.
struct Runner {
    let yiana: URL
    let shim: URL
    /// Where output goes, so that a pipe never fills and blocks a child.
    let scratch: URL

    /// What the shim should do in a run.
    struct Injection {
        var root: String
        var at: Int = 0
        var kind = "eio"
        var sticky = false
        var log: String
    }

    func environment(_ injection: Injection?) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["NO_COLOR"] = "1"
        guard let injection else { return environment }
        environment["LD_PRELOAD"] = shim.path
        environment["YIANA_FAULT_ROOT"] = injection.root
        environment["YIANA_FAULT_AT"] = String(injection.at)
        environment["YIANA_FAULT_KIND"] = injection.kind
        environment["YIANA_FAULT_STICKY"] = injection.sticky ? "1" : "0"
        environment["YIANA_FAULT_LOG"] = injection.log
        return environment
    }

    /// Runs `yiana arguments…` to the end, or kills it with SIGKILL after `killAfter` seconds.
    func run(_ arguments: [String], injection: Injection? = nil, killAfter: Double? = nil, program: URL? = nil) throws -> Outcome {
        if arguments.first == ServeRequests.marker { return try serve(arguments, injection: injection, killAfter: killAfter) }
        let process = Process()
        process.executableURL = program ?? yiana
        process.arguments = arguments
        process.environment = environment(injection)
        let output = try Output(process, scratch: scratch)
        defer { output.remove() }
        let start = Date()
        try process.run()
        if let killAfter {
            let deadline = start.addingTimeInterval(killAfter)
            while process.isRunning && Date() < deadline { Sys.sleep(seconds: 0.0005) }
            if process.isRunning { Self.killTree(process.processIdentifier) }
        }
        process.waitUntilExit()
        let stderr = output.stderr, stdout = output.stdout
        let signalled = process.terminationReason == .uncaughtSignal
        return Outcome(status: signalled ? -1 : process.terminationStatus, signal: signalled ? process.terminationStatus : nil,
                       seconds: Date().timeIntervalSince(start), stderr: stderr, stdout: stdout)
    }

    /// SIGKILL to `pid` and every process it started (restic under `yiana backup`), as a
    /// machine's crash would end them all: it is frozen first (SIGSTOP: it starts no other
    /// child meanwhile), its children found, then it is killed, then they.
    /// Those children are the harness's once `pid` is dead (it is their subreaper, set in
    /// main): each is reaped, so that no dead restic stands as a live lock holder.
    static func killTree(_ pid: Int32, reaping: Bool = false) {
        Sys.signal(pid, Sys.stopSignal)
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap(Int32.init).filter { child in
            guard let stat = try? String(contentsOfFile: "/proc/\(child)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            // "pid (comm) state ppid …": the parent is the second field after the name.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && Int32(fields[1]) == pid
        }
        Sys.signal(pid, Sys.killSignal)
        for child in children { killTree(child, reaping: true) }
        if reaping { Sys.reap(pid) }
    }

    /// `cp -a from to`: a whole folder, modification times kept (the index skips files by them).
    func copyTree(_ from: URL, to: URL) throws {
        let copy = try run(["-a", from.path, to.path], program: URL(fileURLWithPath: "/bin/cp"))
        guard copy.status == 0 else { throw HarnessError("cp -a \(from.path) \(to.path) failed: \(copy.stderr)") }
    }

    /// Runs a set-up step that must succeed (`allowed` statuses).
    @discardableResult
    func must(_ arguments: [String], allowed: Set<Int32> = [0]) throws -> Outcome {
        let outcome = try run(arguments)
        guard outcome.signal == nil, allowed.contains(outcome.status) else {
            throw HarnessError("set-up step `yiana \(arguments.joined(separator: " "))` exited \(outcome.status): \(outcome.stderr)")
        }
        return outcome
    }
}

/// A child's standard output and error, in files of the scratch folder (a pipe could fill and
/// block it); its input is /dev/null.
struct Output {
    let outPath: URL, errPath: URL
    let outHandle: FileHandle, errHandle: FileHandle

    init(_ process: Process, scratch: URL) throws {
        outPath = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        errPath = scratch.appendingPathComponent("stderr-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: outPath.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath.path, contents: nil)
        outHandle = try FileHandle(forWritingTo: outPath)
        errHandle = try FileHandle(forWritingTo: errPath)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = FileHandle.nullDevice
    }

    var stdout: String { (try? String(contentsOf: outPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOf: errPath, encoding: .utf8)) ?? "" }

    func remove() {
        try? outHandle.close()
        try? errHandle.close()
        try? FileManager.default.removeItem(at: outPath)
        try? FileManager.default.removeItem(at: errPath)
    }
}

struct HarnessError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The shim's log: faults it injected and the calls it counted.
struct ShimLog {
    var faults: [(call: String, kind: String)] = []
    var calls: [Int] = []

    init(path: String) {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.first == "fault", parts.count >= 5 { faults.append((String(parts[3]), String(parts[4]))) }
            if parts.first == "calls", parts.count >= 3, let count = Int(parts[2]) { calls.append(count) }
        }
    }
}

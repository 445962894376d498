import Foundation
import YianaFolder
import YianaSystem

/// restic, the backup program the toolkit drives to keep a library's history off this
/// machine (deduplicated, encrypted, checked by `restic check`): the toolkit writes no
/// backup format of its own.
///
/// restic is run with the caller's environment as it is: `RESTIC_REPOSITORY`,
/// `RESTIC_PASSWORD_FILE`, `RESTIC_PASSWORD_COMMAND`, a store's credentials (`AWS_*`, `B2_*`,
/// `AZURE_*`), whatever restic reads, passed through untouched. The toolkit never reads a
/// password, never puts one on a command line, and shows a repository's location with any
/// password in it hidden (``shown(_:)``).
public struct Restic: Sendable {
    /// The oldest restic driven: Debian 12's (0.14.0), the first with compressed repositories.
    public static let minimumVersion = [0, 14, 0]

    /// The program's path.
    public let executable: String
    /// Its version, as `restic version` prints it ("0.14.0").
    public let version: String
    /// The repository named on the command line (`--repo`); nil: restic's own
    /// `RESTIC_REPOSITORY` or `RESTIC_REPOSITORY_FILE`.
    public let repository: String?
    /// restic's extended options, each `KEY=VALUE` (`sftp.command=…`, `s3.region=…`), given
    /// to every run as `-o`.
    public let options: [String]
    let environment: [String: String]

    /// restic found on `$PATH` (of `environment`) and its version checked.
    /// - Throws: ``ResticError/missing`` or ``ResticError/tooOld(_:)``, and
    ///   ``ResticError/noRepositoryGiven`` when neither `repository` nor restic's own
    ///   variables name one.
    public init(repository: String?, options: [String] = [], environment: [String: String] = ProcessInfo.processInfo.environment) throws(ResticError) {
        guard let executable = ChildProcess.find("restic", environment: environment) else { throw .missing }
        guard let run = try? ChildProcess.run(executable, ["version"], environment: environment, timeout: 30), run.status == 0,
              let version = Self.version(in: run.output) else { throw .missing }
        guard Self.atLeast(version, Self.minimumVersion) else { throw .tooOld(version) }
        let named = repository.map { !$0.isEmpty } ?? false
        guard named || environment["RESTIC_REPOSITORY"].map({ !$0.isEmpty }) == true
                || environment["RESTIC_REPOSITORY_FILE"].map({ !$0.isEmpty }) == true else { throw .noRepositoryGiven }
        self.executable = executable
        self.version = version
        self.options = options
        let here = FileManager.default.currentDirectoryPath
        self.repository = named ? repository.map { Self.absolute($0, in: here) } : nil
        // restic runs in the backup's folder: what names a file here must still name it there.
        var environment = environment
        environment["RESTIC_REPOSITORY"] = environment["RESTIC_REPOSITORY"].map { Self.absolute($0, in: here) }
        for name in Self.fileVariables { environment[name] = environment[name].map { $0.isEmpty ? $0 : Self.absolute(path: $0, in: here) } }
        self.environment = environment
    }

    /// restic's variables that name a file.
    static let fileVariables = ["RESTIC_REPOSITORY_FILE", "RESTIC_PASSWORD_FILE", "RESTIC_CACERT", "RESTIC_TLS_CLIENT_CERT", "RESTIC_CACHE_DIR"]
    /// The back ends a repository's location may start with (`sftp:host:/path`); anything
    /// else is a folder (`local:` may also say so).
    static let backends = ["sftp:", "rest:", "s3:", "b2:", "azure:", "gs:", "swift:", "rclone:"]

    /// A repository's location with a relative folder made absolute against `folder`.
    static func absolute(_ location: String, in folder: String) -> String {
        guard !location.isEmpty, !backends.contains(where: location.hasPrefix) else { return location }
        if location.hasPrefix("local:") { return "local:" + absolute(path: String(location.dropFirst(6)), in: folder) }
        return absolute(path: location, in: folder)
    }

    static func absolute(path: String, in folder: String) -> String {
        if path.hasPrefix("/") { return path }
        if path == "~" || path.hasPrefix("~/") { return (path as NSString).expandingTildeInPath }
        return URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: folder, isDirectory: true)).standardizedFileURL.path
    }

    /// The version in what `restic version` printed ("restic 0.14.0 compiled with go1.19.8
    /// on linux/amd64"), or nil.
    static func version(in printed: String) -> String? {
        let words = printed.split(whereSeparator: \.isWhitespace)
        guard let at = words.firstIndex(of: "restic"), at + 1 < words.count else { return nil }
        let version = String(words[at + 1])
        return version.first?.isNumber == true ? version : nil
    }

    /// True when `version` ("0.14.0", "0.16.4-dev") is `minimum` or later.
    static func atLeast(_ version: String, _ minimum: [Int]) -> Bool {
        let numbers = version.split(whereSeparator: { !$0.isNumber }).prefix(minimum.count).map { Int($0) ?? 0 }
        let padded = numbers + Array(repeating: 0, count: max(0, minimum.count - numbers.count))
        return padded.lexicographicallyPrecedes(minimum) == false
    }

    /// What a run of restic left: its exit status and what it printed on standard error.
    public struct Run: Sendable {
        public let status: Int32
        public let errors: String
    }

    /// Runs `restic ARGUMENTS` against the repository, each line of its standard output handed
    /// to `line` as it is printed (`--json` progress). restic's exit status 3 (a snapshot
    /// made without some files it could not read) is returned, not thrown.
    /// - Throws: ``ResticError`` for what restic refused or failed at (a wrong password, no
    ///   repository there, a lock held, no space), from what it printed.
    /// `directory`: the folder restic runs in (a relative target is stored as given).
    @discardableResult
    public func run(_ arguments: [String], in directory: String? = nil, input: Data = Data(),
                    line: @escaping @Sendable (String) -> Void = { _ in }) throws(ResticError) -> Run {
        let child: ChildProcess
        do {
            child = try ChildProcess.run(executable, (repository.map { ["--repo", $0] } ?? []) + options.flatMap { ["-o", $0] } + arguments,
                                         environment: environment, directory: directory, input: input, line: line)
        } catch {
            throw .missing
        }
        guard child.status == 0 || child.status == 3 else {
            throw ResticError(status: child.status, printed: child.output, repository: shownRepository)
        }
        return Run(status: child.status, errors: child.output)
    }

    /// What a `restic backup` made, from its summary.
    public struct Snapshot: Sendable, Equatable, Decodable {
        /// The snapshot's short id.
        public let id: String
        public let filesNew: Int, filesChanged: Int, filesUnmodified: Int
        /// Bytes the repository grew by, and bytes read for it.
        public let dataAdded: Int64, bytesProcessed: Int64
        /// True when restic could not read some files (exit status 3): the snapshot lacks them.
        public var incomplete = false

        enum CodingKeys: String, CodingKey {
            case id = "snapshot_id", filesNew = "files_new", filesChanged = "files_changed", filesUnmodified = "files_unmodified"
            case dataAdded = "data_added", bytesProcessed = "total_bytes_processed"
        }
    }

    /// `restic backup` of `target` (relative to `folder`, where restic runs, so that the
    /// snapshot holds it under that name) with `tags`, compared with the snapshot `parent`
    /// (else restic's choice); `progress` gets the share done (0...1) as restic reports it.
    /// - Throws: ``ResticError``; ``ResticError/failed(_:_:)`` when restic printed no summary.
    public func backup(_ target: String, in folder: String, tags: [String], parent: String? = nil,
                       progress: @escaping @Sendable (Double) -> Void = { _ in }) throws(ResticError) -> Snapshot {
        let summary = Collected()
        let arguments = ["backup", "--json"] + tags.flatMap { ["--tag", $0] } + (parent.map { ["--parent", $0] } ?? []) + [target]
        let run = try run(arguments, in: folder) { line in
            guard let data = line.data(using: .utf8), let message = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return }
            switch message["message_type"] as? String {
            case "status": if let done = message["percent_done"] as? Double { progress(done) }
            case "summary": summary.append(line)
            default: break
            }
        }
        guard var snapshot = try? JSONDecoder().decode(Snapshot.self, from: Data(summary.text.utf8)) else {
            throw .failed(run.status, "no summary of the snapshot was printed")
        }
        snapshot.incomplete = run.status == 3
        return snapshot
    }

    /// `restic unlock`: removes the locks of restic runs that are gone (killed, or of a machine
    /// that crashed), which would stop a forget, a prune or a check; never a live run's.
    public func removeStaleLocks() throws(ResticError) {
        try run(["unlock"])
    }

    /// Every line restic printed on standard output for `arguments`, as one text.
    public func output(_ arguments: [String]) throws(ResticError) -> String {
        let collected = Collected()
        try run(arguments) { collected.append($0) }
        return collected.text
    }

    /// The repository as it may be shown.
    public var shownRepository: String {
        Self.shown(repository ?? environment["RESTIC_REPOSITORY"] ?? environment["RESTIC_REPOSITORY_FILE"].map { "the repository named in \($0)" } ?? "")
    }

    /// `location` with the password of a URL in it hidden (`rest:https://user:***@host/`).
    public static func shown(_ location: String) -> String {
        guard let scheme = location.range(of: "://"), let at = location[scheme.upperBound...].firstIndex(of: "@") else { return location }
        let credentials = location[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return location }
        return String(location[..<colon]) + ":***" + String(location[at...])
    }
}

/// Lines gathered from another thread.
private final class Collected: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var text: String {
        lock.withLock { lines.joined(separator: "\n") }
    }
}

/// What restic refused or failed at, said so that a person knows what to do.
public enum ResticError: Error, Equatable, CustomStringConvertible {
    /// restic is not installed (or could not be started).
    case missing
    /// restic is older than ``Restic/minimumVersion``.
    case tooOld(String)
    /// No repository named: neither `--repo` nor `RESTIC_REPOSITORY` / `RESTIC_REPOSITORY_FILE`.
    case noRepositoryGiven
    /// Nothing at the location is a repository.
    case noRepository(String)
    /// The password does not open the repository.
    case wrongPassword(String)
    /// No password was given (restic would ask on a terminal).
    case noPassword
    /// Another restic holds the repository's lock (what restic said of it).
    case locked(String)
    /// The repository's (or restic's cache's) disk is full.
    case noSpace(String)
    /// Anything else restic failed at: its exit status and last words.
    case failed(Int32, String)

    init(status: Int32, printed: String, repository: String) {
        let lowered = printed.lowercased()
        let fatal = printed.split(separator: "\n").map { $0.hasPrefix("Fatal: ") ? String($0.dropFirst(7)) : String($0) }
            .filter { !$0.isEmpty }
        if lowered.contains("wrong password or no key found") {
            self = .wrongPassword(repository)
        } else if lowered.contains("empty password") || lowered.contains("resolving password failed")
                    || lowered.contains("reading repository password") && lowered.contains("stdin") {
            self = .noPassword
        } else if lowered.contains("is there a repository at the following location") || lowered.contains("repository does not exist") {
            self = .noRepository(repository)
        } else if lowered.contains("already locked") {
            self = .locked(fatal.first { $0.contains("locked") } ?? "")
        } else if lowered.contains("no space left on device") {
            self = .noSpace(fatal.last ?? "")
        } else if lowered.contains("please specify repository location") {
            self = .noRepositoryGiven
        } else {
            self = .failed(status, fatal.suffix(3).joined(separator: "; "))
        }
    }

    public var description: String {
        switch self {
        case .missing:
            "restic is not installed: install it (Debian and Ubuntu: `apt install restic`; else https://restic.net), version \(Restic.minimumVersion.map(String.init).joined(separator: ".")) or later"
        case .tooOld(let version):
            "restic \(version) is too old: \(Restic.minimumVersion.map(String.init).joined(separator: ".")) or later is needed (`restic self-update`, or your system's newer package)"
        case .noRepositoryGiven:
            "no repository named: give one with --repo (a folder, sftp:HOST:/PATH, s3:…, b2:…, rest:…) or set RESTIC_REPOSITORY"
        case .noRepository(let location):
            "there is no restic repository at \(location): check the location, or make one there with `restic init` (the same password setting as here)"
        case .wrongPassword(let location):
            "the password does not open the repository at \(location): check RESTIC_PASSWORD_FILE or RESTIC_PASSWORD_COMMAND"
        case .noPassword:
            "no password for the repository: set RESTIC_PASSWORD_FILE (a file holding it) or RESTIC_PASSWORD_COMMAND (a program that prints it)"
        case .locked(let detail):
            "the repository is locked by another restic\(detail.isEmpty ? "" : " (\(detail))"): wait for it to finish; if none is running, `restic unlock` removes a stale lock"
        case .noSpace(let detail):
            "no space left\(detail.isEmpty ? "" : " (\(detail))"): free space where the repository (or restic's cache, ~/.cache/restic) is, then run again; the repository stays usable"
        case .failed(let status, let words):
            "restic failed (exit status \(status))\(words.isEmpty ? "" : ": \(words)")"
        }
    }
}

import Foundation
import YianaSystem

/// The document files this machine's coordinated writer wrote, as each was when it took its
/// name: a document just written by `yiana` is not "still arriving" (``Arrival`` in the
/// library module asks), so `import` then `ocr`, or `append` then `verify`, work at once,
/// without `--now`. A file a sync program has since replaced (another inode) or written in
/// place (another size or time) no longer matches, and is arriving again.
///
/// Kept in this machine's state folder (``LocalFolders/state(environment:)``, `written/`),
/// never in the library: one small file per document path, named by its key. A record only
/// matters for the few seconds a file counts as arriving, so records older than a day are
/// swept now and then. Recording never fails a write: a record that cannot be kept only
/// means the document waits out the window as before.
public enum OwnWrites {
    static func folder(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        LocalFolders.state(environment: environment).appendingPathComponent("written", isDirectory: true)
    }

    private static func record(for path: String) -> URL {
        folder().appendingPathComponent(LocalFolders.key(URL(fileURLWithPath: path).standardizedFileURL.path))
    }

    /// The document paths this process wrote or removed, for the search index to follow
    /// (``changedInThisProcess``).
    private static let changed = PathSet()

    /// Every document path this process wrote (through the coordinated writer) or removed, once each.
    public static var changedInThisProcess: [String] { changed.paths }

    /// Notes that this process removed the document at `path` (or the stub standing for it).
    public static func noteRemoved(_ path: String) { noteChanged(path) }

    /// Notes that this process changed the file at `path`, without a record for other processes.
    public static func noteChanged(_ path: String) {
        changed.insert(URL(fileURLWithPath: path).standardizedFileURL.path)
    }

    /// False where `$YIANA_KEEP` is `0` or `off` (for a benchmark's run without the keeper):
    /// then nothing this machine writes is kept, and the writer need not hash what it wrote.
    public static func keeping(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        !["0", "off", "no", "false"].contains(environment["YIANA_KEEP"]?.lowercased() ?? "")
    }

    /// The SHA-256 of what this process wrote, by path, with the file's identity then.
    private static let hashes = HandedHashes()

    /// The SHA-256 the writer computed of the file at `path` as it wrote it, if this process
    /// wrote it and it is still that file (`identity`, as the caller found it): the keeper
    /// keeps it without reading it again.
    public static func sha256(ofWritten path: String, identity: FileIdentity) -> String? {
        hashes.sha256(URL(fileURLWithPath: path).standardizedFileURL.path, identity.fingerprint)
    }

    /// Notes that the file now at `path` is what this machine wrote there; `sha256`, its
    /// SHA-256 when the writer hashed it on the way.
    public static func note(_ path: String, sha256: String? = nil) {
        let standard = URL(fileURLWithPath: path).standardizedFileURL.path
        changed.insert(standard)
        guard let identity = FileIdentity(path: path) else { return }
        if let sha256 { hashes.keep(standard, identity.fingerprint, sha256) }
        let url = record(for: path)
        let text = standard + "\n" + identity.fingerprint + "\n"
        if !replace(url.path, with: Array(text.utf8)) {
            try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            _ = replace(url.path, with: Array(text.utf8))
        }
        sweepIfDue()
    }

    /// Writes `bytes` to a new file beside `path` and renames it over `path`: a reader sees
    /// the old record or the new one. Not `fsync`ed: a record lost in a crash only makes the
    /// document wait out the window.
    private static func replace(_ path: String, with bytes: [UInt8]) -> Bool {
        let temp = path + ".tmp-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        guard let fd = try? Sys.open(temp, [.writeOnly, .create, .exclusive], mode: 0o644) else { return false }
        let written = (try? Sys.writeAll(fd, bytes, path: temp)) != nil
        Sys.close(fd)
        guard written, (try? Sys.rename(temp, path)) != nil else {
            Sys.removeIfPresent(temp)
            return false
        }
        return true
    }

    /// True when the file at `path` is, as it is now, what this machine's writer last wrote there.
    public static func wrote(_ path: String) -> Bool {
        guard let identity = FileIdentity(path: path),
              let data = FileManager.default.contents(atPath: record(for: path).path) else { return false }
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.count >= 2 && lines[0] == URL(fileURLWithPath: path).standardizedFileURL.path && identity.matches(fingerprint: lines[1])
    }

    /// Removes records older than a day, at most once an hour (the marker file's time says when).
    private static func sweepIfDue(now: Date = Date()) {
        let marker = folder().appendingPathComponent(".swept")
        let last = (try? FileManager.default.attributesOfItem(atPath: marker.path))?[.modificationDate] as? Date
        guard last.map({ now.timeIntervalSince($0) > 3600 }) ?? true else { return }
        _ = replace(marker.path, with: [])
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder().path)) ?? []
        for name in names where name != ".swept" {
            let url = folder().appendingPathComponent(name)
            if let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date,
               now.timeIntervalSince(modified) > 86_400 {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }
}

/// A set of paths several threads add to.
private final class PathSet: @unchecked Sendable {
    private let lock = NSLock()
    private var set: Set<String> = []
    private var order: [String] = []

    func insert(_ path: String) {
        lock.lock()
        defer { lock.unlock() }
        if set.insert(path).inserted { order.append(path) }
    }

    var paths: [String] {
        lock.lock()
        defer { lock.unlock() }
        return order
    }
}

/// The hashes the writer handed over, by path (the newest write of each), several threads adding.
private final class HandedHashes: @unchecked Sendable {
    // @unchecked: `byPath` is only touched while holding `lock`.
    private let lock = NSLock()
    private var byPath: [String: (identity: String, sha256: String)] = [:]

    func keep(_ path: String, _ identity: String, _ sha256: String) {
        lock.lock()
        defer { lock.unlock() }
        if byPath.count > 100_000 { byPath.removeAll() }
        byPath[path] = (identity, sha256)
    }

    func sha256(_ path: String, _ identity: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard let handed = byPath[path], handed.identity == identity else { return nil }
        return handed.sha256
    }
}

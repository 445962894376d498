import Foundation
import YianaFolder
import YianaArchive

/// A log of the library's shared state (`.yiana/`) that a sync program can carry safely:
/// each device appends only to a file of its own, `.yiana/devices/<device id>/<name>`, so
/// no two devices ever write one file, and readers take the union of every device's file.
///
/// What a sync program makes of these files anyway is folded in, never dropped: conflict
/// copies under any service's naming (`history.sync-conflict-….jsonl`,
/// `history (conflict_on_…).jsonl`, `history.jsonl..path1`, …) are read as part of the log
/// and, on this device's next append, copied into its own file and removed. The single
/// file every device shared in earlier versions (`legacy`, e.g. `.yiana/history.jsonl`)
/// is read and migrated the same way.
public struct SharedLog<Record: Codable & Sendable>: Sendable {
    public let library: Library
    /// The file name in each device's folder (`history.jsonl`).
    public let name: String
    /// Where earlier versions kept the one shared file.
    public let legacy: URL?

    public init(library: Library, name: String, legacy: URL? = nil) {
        self.library = library
        self.name = name
        self.legacy = legacy
    }

    /// `.yiana/devices`.
    public static func devicesFolder(_ library: Library) -> URL {
        library.root.appendingPathComponent(Library.stateFolderName).appendingPathComponent("devices")
    }

    /// This device's own file of the log.
    /// - Throws: when this machine's state folder cannot hold the device id.
    public func own() throws -> JSONLinesLog<Record> {
        JSONLinesLog(url: Self.devicesFolder(library).appendingPathComponent(try LocalState(library: library).deviceID()).appendingPathComponent(name))
    }

    /// Appends `record` to this device's file, after folding in what sync programs left.
    /// - Throws: ``VersionStoreError/unwritable(_:_:)`` naming the file.
    public func append(_ record: Record) throws {
        let own = try own()
        try tidy(into: own)
        try own.append(record)
    }

    /// Every record of every device (conflict copies and the old shared file included),
    /// each once, oldest file first.
    public func read() -> [Record] {
        var seen = Set<Data>()
        var records: [Record] = []
        let files = files()
        for file in files.strays + files.devices {
            for record in JSONLinesLog<Record>(url: file).read() {
                guard let line = try? JSONLinesLog<Record>.encoder.encode(record), seen.insert(line).inserted else { continue }
                records.append(record)
            }
        }
        return records
    }

    /// The files that make up the log: each device's own, and the strays a sync program
    /// made (conflict copies, the old shared file) that the next append folds in.
    public func files() -> (devices: [URL], strays: [URL]) {
        var devices: [URL] = [], strays: [URL] = []
        let folder = Self.devicesFolder(library)
        for device in ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        where LocalState.isDeviceID(device) {
            let deviceFolder = folder.appendingPathComponent(device)
            for (url, isCopy) in Self.family(of: name, in: deviceFolder) {
                if isCopy { strays.append(url) } else { devices.append(url) }
            }
        }
        if let legacy {
            strays += Self.family(of: legacy.lastPathComponent, in: legacy.deletingLastPathComponent()).map(\.url)
        }
        return (devices, strays)
    }

    /// `name` in `folder` and every conflict copy of it a sync program made there.
    static func family(of name: String, in folder: URL) -> [(url: URL, isCopy: Bool)] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return entries.sorted().compactMap { entry in
            if entry == name { return (folder.appendingPathComponent(entry), false) }
            guard !entry.hasPrefix("."), ConflictName(fileName: entry).original == name else { return nil }
            return (folder.appendingPathComponent(entry), true)
        }
    }

    /// Copies the records of every stray file into `own` (those it lacks), `fsync`ed, then
    /// removes the strays: a sync program then removes them on the other devices too, whose
    /// records are safe in this device's file. Done once per process and log.
    func tidy(into own: JSONLinesLog<Record>, force: Bool = false) throws {
        guard TidyOnce.first("\(own.url.path)") || force else { return }
        let strays = files().strays.filter { $0.path != own.url.path }
        guard !strays.isEmpty else { return }
        try own.withLock {
            var have = Set(own.read().compactMap { try? JSONLinesLog<Record>.encoder.encode($0) })
            var missing: [Record] = []
            for stray in strays {
                for record in JSONLinesLog<Record>(url: stray).read() {
                    guard let line = try? JSONLinesLog<Record>.encoder.encode(record), have.insert(line).inserted else { continue }
                    missing.append(record)
                }
            }
            try own.appendLocked(missing)  // fsynced before any stray goes
            for stray in strays { try? FileManager.default.removeItem(at: stray) }
        }
    }

    /// How many stray files there are (for `verify`'s notes).
    public var strayCount: Int { files().strays.count }
}

/// Remembers which tidy-ups this process has done.
enum TidyOnce {
    // @unchecked: `done` is only touched while holding `lock`.
    private final class Done: @unchecked Sendable {
        let lock = NSLock()
        var keys = Set<String>()
    }
    private static let done = Done()

    static func first(_ key: String) -> Bool {
        done.lock.lock()
        defer { done.lock.unlock() }
        return done.keys.insert(key).inserted
    }
}

import Foundation
import YianaSystem
import YianaArchive

/// What the toolkit keeps about a library on this machine only, never in the synced folder:
/// this device's id, the cloud attachment and download records (``LocalFolders/state(environment:)``),
/// and scratch files and partial downloads (``LocalFolders/cache(environment:)``), each in a
/// folder keyed by the library's path (`libraries/<name>-<key>`).
///
/// Two copies of one library on one machine (two sync peers, say) are two devices: each
/// has its own folder, so its own device id.
public struct LocalState: Sendable {
    public let library: Library
    /// This machine's state for the library.
    public let folder: URL
    /// This machine's cache for the library: what can be made again.
    public let cacheFolder: URL

    public init(library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.library = library
        let name = "\(library.root.lastPathComponent.prefix(40))-\(LocalFolders.key(library.root.path))"
        folder = LocalFolders.state(environment: environment).appendingPathComponent("libraries").appendingPathComponent(name)
        cacheFolder = LocalFolders.cache(environment: environment).appendingPathComponent("libraries").appendingPathComponent(name)
    }

    /// A state file of this machine's (`name` in ``folder``). Until it is first written, the
    /// file of that name that earlier versions kept in the library's `.yiana/` is read.
    public func stateFile<Value>(_ name: String) -> StateFile<Value> {
        StateFile(url: folder.appendingPathComponent(name),
                  legacy: library.root.appendingPathComponent(Library.stateFolderName).appendingPathComponent(name))
    }

    /// Scratch space (made when missing). Files left there over a day ago, by a process that
    /// was killed, are removed: scratch files are copies, never the only place of anything.
    /// - Throws: when the folder cannot be made.
    public func scratch() throws -> URL {
        let scratch = cacheFolder.appendingPathComponent("tmp")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        Self.sweep(scratch, olderThan: Date().addingTimeInterval(-86_400))
        return scratch
    }

    /// Removes what `folder` holds that was last changed before `cutoff`.
    static func sweep(_ folder: URL, olderThan cutoff: Date) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names {
            let url = folder.appendingPathComponent(name)
            if let modified = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.modificationDate] as? Date, modified < cutoff {
                try? FileManager.default.removeItem(at: url)
            }
        }
    }

    /// The id this device writes its shared logs under (`.yiana/devices/<id>/`), made once:
    /// the host's name and eight random hex digits, e.g. `laptop-3f2a9c01`.
    /// - Throws: when the state folder cannot be written.
    public func deviceID() throws -> String {
        let file = folder.appendingPathComponent("device-id")
        if let id = Self.readID(file) { return id }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let id = "\(Self.hostLabel())-\(String(format: "%08x", UInt32.random(in: 0...UInt32.max)))"
        // Two processes may get here at once: the first to place its file wins, both use it.
        do {
            let temp = try TemporaryFile(beside: file.path)
            try temp.write(Array((id + "\n").utf8))
            try temp.sync()
            try temp.place(at: file.path, .keepingExisting)  // false, harmlessly, if another was first
        } catch {
            throw VersionStoreError.unwritable(file.path, error.code.description)
        }
        guard let placed = Self.readID(file) else {
            throw VersionStoreError.unwritable(file.path, "the device id could not be stored")
        }
        return placed
    }

    private static func readID(_ file: URL) -> String? {
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let id = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return isDeviceID(id) ? id : nil
    }

    /// True for the shape of a device id: letters, digits and `-`, 1 to 64 of them.
    public static func isDeviceID(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64 && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    }

    private static func hostLabel() -> String {
        let host = ProcessInfo.processInfo.hostName
        let label = String(host.lowercased().prefix { $0 != "." }.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "-" }.prefix(24))
        return label.isEmpty ? "device" : label
    }
}

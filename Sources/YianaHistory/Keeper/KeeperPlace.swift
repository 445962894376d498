import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// Where the keeper of a library keeps what it saw, and how it keeps it: chosen so that a
/// hard link is possible (the store on the library's own file system) and never inside the
/// synced folder, where every device would get a copy.
///
/// 1. `$YIANA_KEEPER_DIR/<library>-<key>` when that variable names a folder;
/// 2. else this machine's state folder for the library (``LocalState/folder``, `keeper/`),
///    when it is on the library's file system;
/// 3. else, as the freedesktop.org trash does for other disks, a folder at the top of the
///    library's file system: `<top>/.yiana-keeper-<uid>/<library>-<key>`, when it can be made
///    there and the top is not the library itself;
/// 4. else the state folder, with copies (and ``reason`` says why).
public struct KeeperPlace: Sendable, Equatable {
    /// The store's folder.
    public let folder: URL
    /// How new states are kept: ``KeeperMode/link`` where the store shares the library's file
    /// system and no program was seen rewriting a document in place; else reflink where the
    /// file system offers it, else copy (tried in that order for each state).
    public let mode: KeeperMode
    /// Why the store is there and keeps that way, for `yiana status`.
    public let reason: String

    /// The environment variable naming a folder for every library's keeper.
    public static let environmentVariable = "YIANA_KEEPER_DIR"
    /// The file in the store that says documents were rewritten in place (links are unsafe).
    static let inPlaceMarker = "rewritten-in-place"

    /// Chooses the place for `library`'s keeper (making nothing but the top-level folder of
    /// option 3, which is needed to know that it can be written).
    public static func choose(for library: Library, environment: [String: String] = ProcessInfo.processInfo.environment) -> KeeperPlace {
        let local = LocalState(library: library, environment: environment)
        let name = local.folder.lastPathComponent
        let libraryDevice = (try? Sys.stat(library.root.path))?.device
        if let chosen = environment[environmentVariable], chosen.hasPrefix("/") {
            let folder = URL(fileURLWithPath: chosen, isDirectory: true).appendingPathComponent(name)
            let same = libraryDevice != nil && existingAncestorDevice(folder.path) == libraryDevice
            return make(folder, link: same, reason: "in $\(environmentVariable)" + (same ? "" : ", on another file system than the library, so states are copied"))
        }
        let stateFolder = local.folder.appendingPathComponent("keeper")
        guard let libraryDevice else { return make(stateFolder, link: false, reason: "the library's folder cannot be examined") }
        if existingAncestorDevice(stateFolder.path) == libraryDevice {
            return make(stateFolder, link: true, reason: "in this machine's state folder, on the library's file system")
        }
        let top = topOfFileSystem(library.root.path, device: libraryDevice)
        if top == library.root.path {
            return make(stateFolder, link: false, reason: "the library is the top of its own file system, so no folder outside it can hold links to its documents; states are copied to this machine's state folder")
        }
        let shared = (top == "/" ? "" : top) + "/.yiana-keeper-\(Sys.userID)"
        do throws(SystemError) {
            try Sys.makeDirectory(shared, mode: 0o700)
            let st = try Sys.lstat(shared)
            guard st.isDirectory, st.st_uid == Sys.userID, st.device == libraryDevice else {
                throw SystemError("use", path: shared, code: .accessDenied)
            }
            return make(URL(fileURLWithPath: shared, isDirectory: true).appendingPathComponent(name), link: true,
                        reason: "at the top of the library's file system (\(shared)), as this machine's state folder is on another one")
        } catch {
            return make(stateFolder, link: false, reason: "the state folder is on another file system than the library and \(shared) cannot be made (\(error.code)); states are copied")
        }
    }

    private static func make(_ folder: URL, link: Bool, reason: String) -> KeeperPlace {
        let marker = folder.appendingPathComponent(inPlaceMarker)
        if link, let why = FileManager.default.contents(atPath: marker.path) {
            return KeeperPlace(folder: folder, mode: .reflink,
                               reason: reason + "; but " + String(decoding: why, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                                   + ", so states are cloned (reflink) where the file system can, else copied")
        }
        return KeeperPlace(folder: folder, mode: link ? .link : .copy, reason: reason)
    }

    /// The device of `path`, or of its nearest ancestor that exists.
    static func existingAncestorDevice(_ path: String) -> UInt64? {
        var current = path
        while true {
            if let st = try? Sys.stat(current) { return st.device }
            guard let slash = current.lastIndex(of: "/"), current != "/" else { return nil }
            current = slash == current.startIndex ? "/" : String(current[..<slash])
        }
    }

    /// The highest folder above `path` (itself included) on the same file system.
    static func topOfFileSystem(_ path: String, device: UInt64) -> String {
        var top = path
        while top != "/" {
            let parent = URL(fileURLWithPath: top).deletingLastPathComponent().path
            guard (try? Sys.stat(parent))?.device == device else { break }
            top = parent
        }
        return top
    }
}

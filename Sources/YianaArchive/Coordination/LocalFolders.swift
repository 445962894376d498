import Foundation
import YianaSystem

/// The folders of this machine (never inside a synced library) where the toolkit keeps what
/// belongs to one machine: locks, scratch files, partial downloads, caches and local state.
///
/// A sync program copies every file written into a library to every other device, deletes
/// what the other side deleted and conflict-copies what both changed; none of that may
/// happen to a lock or a scratch file. The folders follow the XDG base-directory rules.
public enum LocalFolders {
    /// `$XDG_RUNTIME_DIR/yiana-tools`, else `/run/user/UID/yiana-tools` when that folder is
    /// this user's (as for a cron job, which has no `XDG_RUNTIME_DIR`), else
    /// `$TMPDIR/yiana-tools-UID` (`/tmp`), created `0700`. Every process of one user on one
    /// machine arrives at the same folder, whatever its environment, so they coordinate.
    /// - Throws: ``SystemError`` when no such folder can be made, or one exists that is not
    ///   this user's own private folder (someone else could remove its locks).
    public static func runtime(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> URL {
        let uid = Sys.userID
        var base: String? = nil
        if let xdg = environment["XDG_RUNTIME_DIR"], xdg.hasPrefix("/"), isOwnFolder(xdg, uid: uid) {
            base = xdg
        } else if isOwnFolder("/run/user/\(uid)", uid: uid) {
            base = "/run/user/\(uid)"
        }
        let folder: String
        if let base {
            folder = base + "/yiana-tools"
        } else {
            let tmp = environment["TMPDIR"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
            folder = tmp + "/yiana-tools-\(uid)"
        }
        try makePrivateFolder(folder, uid: uid)
        return URL(fileURLWithPath: folder, isDirectory: true)
    }

    /// `$XDG_STATE_HOME/yiana-tools` (`~/.local/state/yiana-tools`): state that must survive a
    /// reboot but belongs to this machine (device id, cloud attachment, download records).
    public static func state(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        xdg("XDG_STATE_HOME", default: ".local/state", environment: environment)
    }

    /// `$XDG_CACHE_HOME/yiana-tools` (`~/.cache/yiana-tools`): what can be made again (the
    /// search index, scratch files, partial downloads).
    public static func cache(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        xdg("XDG_CACHE_HOME", default: ".cache", environment: environment)
    }

    private static func xdg(_ variable: String, default relative: String, environment: [String: String]) -> URL {
        if let value = environment[variable], value.hasPrefix("/") {
            return URL(fileURLWithPath: value, isDirectory: true).appendingPathComponent("yiana-tools", isDirectory: true)
        }
        let home = environment["HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(relative, isDirectory: true)
            .appendingPathComponent("yiana-tools", isDirectory: true)
    }

    private static func isOwnFolder(_ path: String, uid: uid_t) -> Bool {
        guard let st = try? Sys.lstat(path) else { return false }
        return st.isDirectory && st.st_uid == uid && Sys.canWrite(path)
    }

    private static func makePrivateFolder(_ path: String, uid: uid_t) throws {
        try Sys.makeDirectory(path, mode: 0o700)
        // A folder of this name made by someone else (a shared /tmp) would let them break our locks.
        let st = try Sys.lstat(path)
        guard st.isDirectory, st.st_uid == uid, st.permissions & 0o022 == 0 else {
            throw SystemError("use folder (not this user's own private folder)", path: path, code: .notPermitted)
        }
    }

    /// A short, stable key for a path: 16 hex digits of its FNV-1a hash.
    public static func key(_ text: String) -> String {
        String(fnv1a(text), radix: 16).leftPadded(to: 16)
    }

    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

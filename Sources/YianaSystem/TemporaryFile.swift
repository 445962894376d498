import Foundation

/// The one way the toolkit replaces or creates a file so that a crash at any instant leaves
/// the old file or the new one, never a mix: documents, state files, version objects and
/// evicted stubs all go through it.
///
/// The new bytes go to a hidden temporary file beside the destination (created with
/// `O_EXCL`, named `.<name>.yiana-tmp-XXXXXXXX` so that `verify` can find one a kill left
/// behind), which is `fsync`ed and then given the destination's name in one step
/// (``place(at:_:)``), after which the folder is `fsync`ed. A temporary file that is never
/// placed is removed when this object goes away.
package final class TemporaryFile {
    /// The marker in the names of the toolkit's temporary files.
    package static let marker = ".yiana-tmp-"

    /// How the file takes its name.
    package enum Placement: Sendable {
        /// `rename` over whatever is there.
        case replacing
        /// Never replace: `link`, which fails with `EEXIST` if the name is taken.
        case creating
        /// Keep a file that is already there (content-addressed objects: the same name is the
        /// same bytes) and drop this one.
        case keepingExisting
    }

    package let path: String
    private(set) package var fd: Int32
    private var placed = false

    /// A new, empty temporary file in the folder of `destination`.
    package init(beside destination: String, mode: mode_t = 0o644) throws(SystemError) {
        let (folder, name) = Self.split(destination)
        var lastError = SystemError("create temporary file", path: destination, code: .exists)
        for _ in 0..<16 {
            let suffix = String(UInt32.random(in: 0...UInt32.max), radix: 16).leftPadded(to: 8)
            let candidate = folder + "/." + name + Self.marker + suffix
            do {
                fd = try Sys.open(candidate, [.writeOnly, .create, .exclusive], mode: mode)
                path = candidate
                return
            } catch where error.code == .exists {
                lastError = error
            }
        }
        throw lastError
    }

    deinit {
        discard()
    }

    /// Writes all of `bytes` at the file position.
    package func write(_ bytes: some ContiguousBytes) throws(SystemError) {
        try Sys.writeAll(fd, bytes, path: path)
    }

    /// `fsync`: the bytes are on disk.
    package func sync() throws(SystemError) {
        try Sys.fsync(fd, path: path)
    }

    /// Closes the file and gives it the name `destination` (see ``Placement``), then `fsync`s
    /// the folder (not when `durable` is false: a scratch file a crash may lose). Call
    /// ``sync()`` first. On failure the temporary file is removed.
    /// - Returns: false when `keepingExisting` found a file there (this one was dropped).
    @discardableResult
    package func place(at destination: String, _ placement: Placement, durable: Bool = true) throws(SystemError) -> Bool {
        closeFile()
        defer { discard() }
        switch placement {
        case .replacing:
            try Sys.rename(path, destination)
            placed = true
        case .creating, .keepingExisting:
            do {
                try Sys.link(path, destination)
            } catch where error.code == .exists {
                if placement == .keepingExisting { return false }
                throw error
            } catch where [.notPermitted, .notSupported, .operationNotSupported, .tooManyLinks].contains(error.code) {
                // File systems without hard links (FAT, some FUSE mounts): check, then rename.
                // Callers hold a lock that keeps other toolkit processes out of the small gap.
                if (try? Sys.lstat(destination)) != nil {
                    if placement == .keepingExisting { return false }
                    throw SystemError("link", path: destination, code: .exists)
                }
                try Sys.rename(path, destination)
                placed = true
            }
        }
        if durable { try Sys.fsyncDirectory(Self.split(destination).folder) }
        return true
    }

    /// Closes and removes the file, unless it was placed (also done on deinit).
    package func discard() {
        closeFile()
        if !placed {
            Sys.removeIfPresent(path)
            placed = true
        }
    }

    private func closeFile() {
        if fd >= 0 {
            Sys.close(fd)
            fd = -1
        }
    }

    /// Replaces (or creates) the file at `path` with `bytes`, crash-safely.
    package static func replace(_ path: String, with bytes: some ContiguousBytes, mode: mode_t = 0o644) throws(SystemError) {
        let file = try TemporaryFile(beside: path, mode: mode)
        try file.write(bytes)
        try file.sync()
        try file.place(at: path, .replacing)
    }

    static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let folder = String(path[..<slash])
        return (folder.isEmpty ? "/" : folder, String(path[path.index(after: slash)...]))
    }
}

import YianaSystem

/// Opening files that must be regular files.
public enum RegularFile {
    /// Opens `path` for reading if, and only if, it is a regular file: never a link
    /// (`O_NOFOLLOW`), and never blocking on a FIFO or a device (`O_NONBLOCK`, then `fstat`
    /// before any read).
    /// - Throws: ``ArchiveError`` `.fileNotFound`, `.notARegularFile` with the reason, or `.system`.
    public static func openForReading(_ path: String) throws(ArchiveError) -> Int32 {
        try openForReadingWithSize(path).fd
    }

    /// ``openForReading(_:)``, with the file's size from the same `fstat`.
    public static func openForReadingWithSize(_ path: String) throws(ArchiveError) -> (fd: Int32, size: UInt64) {
        let fd: Int32
        do {
            fd = try Sys.open(path, [.readOnly, .nonBlocking, .noFollow, .noControllingTerminal])
        } catch {
            if error.isNotFound { throw ArchiveError(.fileNotFound, path: path) }
            if error.code == .loop, let reason = FileKind.at(path).refusal { throw ArchiveError(.notARegularFile(reason: reason), path: path) }
            throw ArchiveError(.system(error), path: path)
        }
        let kind: FileKind, size: UInt64
        do {
            let status = try Sys.fstat(fd, path: path)
            kind = status.kind
            size = UInt64(status.st_size)
        } catch {
            Sys.close(fd)
            throw ArchiveError(.system(error), path: path)
        }
        guard kind == .regular else {
            Sys.close(fd)
            throw ArchiveError(.notARegularFile(reason: kind.refusal ?? "not a regular file"), path: path)
        }
        // Reads of a regular file never block anyway; clear the flag all the same.
        Sys.setBlocking(fd)
        return (fd, size)
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Linux's inotify over a folder tree: one watch per folder (inotify is not recursive), folders
/// created later watched as their events arrive, and the kernel's queue overflow said as such
/// (the caller then scans everything again: events were lost).
///
/// Symbolic links are never followed (`IN_DONT_FOLLOW`), and a folder `skip` names (a sync
/// program's or the toolkit's own) is never watched.
package final class Inotify: @unchecked Sendable {
    // @unchecked: used by one thread at a time (the watcher waits on its own queue, then reads).
    /// One change in a watched folder.
    package struct Event: Sendable, Equatable {
        /// The full path of the entry the event is about (the folder itself for its own removal).
        package let path: String
        package let mask: UInt32

        package var isFolder: Bool { mask & UInt32(IN_ISDIR) != 0 }
        /// The entry was created or moved in: a new folder must be watched.
        package var arrived: Bool { mask & (UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) != 0 }
        /// The entry was written and closed: a writer is done with it (for now).
        package var closedAfterWriting: Bool { mask & UInt32(IN_CLOSE_WRITE) != 0 }
    }

    /// What one read brought.
    package struct Batch: Sendable {
        package var events: [Event] = []
        /// The kernel's queue overflowed: events were lost, and everything must be scanned again.
        package var overflowed = false
        /// A folder stopped being watched (removed, moved away, or the watch limit was hit).
        package var foldersLost: [String] = []
    }

    private let fd: Int32
    private var folders: [Int32: String] = [:]
    private var watches: [String: Int32] = [:]
    private let skip: @Sendable (String) -> Bool
    /// Folders that could not be watched (`ENOSPC`: the user's `max_user_watches` is reached).
    package private(set) var unwatched: [String: SystemError] = [:]

    /// The events of interest: entries created, removed, moved in or out, written and closed,
    /// and changes of metadata (a file made dataless, say); a folder's own removal.
    static let mask = UInt32(IN_CREATE) | UInt32(IN_DELETE) | UInt32(IN_MOVED_FROM) | UInt32(IN_MOVED_TO)
        | UInt32(IN_CLOSE_WRITE) | UInt32(IN_MODIFY) | UInt32(IN_ATTRIB) | UInt32(IN_DELETE_SELF) | UInt32(IN_MOVE_SELF)
        | UInt32(IN_ONLYDIR) | UInt32(IN_DONT_FOLLOW) | UInt32(IN_EXCL_UNLINK)

    /// - Parameter skip: true for a folder path never to watch (nor anything below it).
    package init(skip: @escaping @Sendable (String) -> Bool = { _ in false }) throws(SystemError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK) | Int32(IN_CLOEXEC))
        guard fd >= 0 else { throw Sys.lastError("inotify_init1", "inotify") }
        self.fd = fd
        self.skip = skip
    }

    deinit {
        Sys.close(fd)
    }

    /// The number of folders watched.
    package var count: Int { watches.count }

    /// Watches `root` and every folder below it (symbolic links not followed); returns the
    /// folders newly watched.
    @discardableResult
    package func watchTree(_ root: String) -> [String] {
        var added: [String] = []
        var stack = [root]
        while let folder = stack.popLast() {
            guard !skip(folder) else { continue }
            if watches[folder] == nil {
                let wd = inotify_add_watch(fd, folder, Self.mask)
                guard wd >= 0 else {
                    if Sys.errno != ENOENT && Sys.errno != ENOTDIR { unwatched[folder] = Sys.lastError("inotify_add_watch", folder) }
                    continue
                }
                unwatched[folder] = nil
                // A watch descriptor seen again names the same folder reached by another path
                // (a bind mount): keep the first name.
                if folders[wd] == nil {
                    folders[wd] = folder
                    watches[folder] = wd
                    added.append(folder)
                }
            }
            for entry in (try? DirectoryEntry.list(folder)) ?? [] where entry.kind == .folder {
                if let name = entry.name { stack.append(folder == "/" ? "/" + name : folder + "/" + name) }
            }
        }
        return added
    }

    /// Waits up to `timeout` seconds (nil: for ever) for events, or for `wake` (another
    /// descriptor, a pipe the signal handler writes to) to be readable. Returns true when
    /// inotify has something to read.
    package func wait(timeout: Double?, wake: Int32? = nil) -> Bool {
        var descriptors = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        if let wake { descriptors.append(pollfd(fd: wake, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32(max(0, min($0, 86_400)) * 1000) } ?? -1
        let ready = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), milliseconds) }
        return ready > 0 && descriptors[0].revents & Int16(POLLIN) != 0
    }

    /// Reads every event queued now (never blocks); folders that arrived are watched, with
    /// their own folders (their entries, made before the watch, come as events of the batch).
    package func read() -> Batch {
        var batch = Batch()
        let size = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(fd, buffer, size)
            if count < 0 && Sys.errno == EINTR { continue }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let header = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = buffer.advanced(by: offset + MemoryLayout<inotify_event>.size)
                let name = header.len > 0 ? String(cString: nameStart.assumingMemoryBound(to: CChar.self)) : ""
                offset += MemoryLayout<inotify_event>.size + Int(header.len)
                handle(header, name: name, into: &batch)
            }
        }
        return batch
    }

    private func handle(_ header: inotify_event, name: String, into batch: inout Batch) {
        if header.mask & UInt32(IN_Q_OVERFLOW) != 0 {
            batch.overflowed = true
            return
        }
        guard let folder = folders[header.wd] else { return }
        if header.mask & UInt32(IN_IGNORED) != 0 {
            // The kernel dropped the watch (the folder is gone or was moved away).
            forget(header.wd, folder)
            batch.foldersLost.append(folder)
            return
        }
        let path = name.isEmpty ? folder : (folder == "/" ? "/" + name : folder + "/" + name)
        let event = Event(path: path, mask: header.mask)
        batch.events.append(event)
        if event.isFolder, event.arrived {
            // Everything made in it before its watch existed shows up as created too.
            for added in watchTree(path) {
                if added != path { batch.events.append(Event(path: added, mask: UInt32(IN_CREATE) | UInt32(IN_ISDIR))) }
                for entry in (try? DirectoryEntry.list(added)) ?? [] where entry.kind != .folder {
                    if let name = entry.name { batch.events.append(Event(path: added + "/" + name, mask: UInt32(IN_CREATE))) }
                }
            }
        } else if event.isFolder, header.mask & UInt32(IN_MOVED_FROM) != 0 {
            // Moved away (or within the tree: its new name arrives as IN_MOVED_TO and is
            // watched anew): its watches below go with the old names.
            for (watched, wd) in watches where watched == path || watched.hasPrefix(path + "/") {
                inotify_rm_watch(fd, wd)
                forget(wd, watched)
            }
        }
    }

    private func forget(_ wd: Int32, _ folder: String) {
        folders[wd] = nil
        if watches[folder] == wd { watches[folder] = nil }
    }
}

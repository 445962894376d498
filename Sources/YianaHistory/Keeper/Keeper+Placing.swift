import Crypto
import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// Keeping one file: its bytes hashed, and placed in the store by link, reflink or copy.
extension Keeper {
    enum KeepOutcome: Sendable {
        /// With the bytes copied to place it (0 when linked, cloned or there already).
        case kept(KeptState, copied: UInt64)
        case notDocument(FileStamp)
        case vanished
        case failed(String)
    }

    /// Keeps the file at `url` (a document unless `anyBytes`): hashes it, and places its bytes
    /// as `objects/<sha256>` unless they are there already, by `mode` (falling from link to
    /// reflink to copy where the file system refuses; `mode` keeps the step that worked).
    func keepOne(url: URL, path: String, reason: String, anyBytes: Bool, known: KeeperCatalog,
                 mode: inout KeeperMode, now: Date) -> KeepOutcome {
        let fd: Int32
        do { fd = try RegularFile.openForReading(url.path) } catch {
            return FileKind.at(url.path) == .missing ? .vanished : .failed("\(error)")
        }
        defer { Sys.close(fd) }
        guard let before = try? Sys.fstat(fd, path: url.path) else { return .vanished }
        let stamp = FileStamp(before)
        var documentID: String?, title: String?
        do {
            let metadata = try DocumentReader(path: url.path, checks: .layout).metadata()
            documentID = metadata.id.uuidString
            title = metadata.title
        } catch where Self.isReadFailure(error) {
            return .failed("\(error)")  // an I/O error is never taken for bytes that are not a document
        } catch {
            // The name may have been given to another file while this one was read.
            if !anyBytes { return FileStamp(path: url.path) == stamp ? .notDocument(stamp) : .vanished }
        }
        // What this process wrote was hashed by the writer on the way (and every state is
        // hashed again before it is offered): not read a second time here.
        let sha256: String
        if let handed = OwnWrites.sha256(ofWritten: url.path, identity: FileIdentity(before)) {
            sha256 = handed
        } else {
            do { sha256 = try FileHash.sha256(fd: fd, path: url.path) } catch { return .failed("\(error)") }
        }
        guard let after = try? Sys.fstat(fd, path: url.path), FileStamp(after) == stamp else { return .vanished }
        var state = KeptState(sha256: sha256, size: stamp.size > 0 ? UInt64(stamp.size) : 0, stamp: stamp, path: path, seenAt: now,
                              documentID: documentID, title: title, reason: reason)
        let final = objectURL(sha256)
        if known.object(sha256) != nil, FileKind.at(final.path) == .regular { return .kept(state, copied: 0) }
        do {
            let (how, copied) = try place(fd: fd, source: url.path, inode: stamp.inode, sha256: sha256, at: final, mode: &mode)
            guard let placed = FileStamp(path: final.path) else { return .failed("\(final.path) vanished from the store") }
            state.placed = KeptState.Placement(how: how, modified: how == .link ? stamp.modified : placed.modified)
            return .kept(state, copied: copied)
        } catch KeepFailure.changedMeanwhile {
            return .vanished
        } catch {
            return .failed("\(error)")
        }
    }

    enum KeepFailure: Error { case changedMeanwhile }

    /// True for an error that says the file could not be read (an I/O error, a lock), not
    /// that its bytes are wrong.
    static func isReadFailure(_ error: any Error) -> Bool {
        if error is SystemError { return true }
        guard let error = error as? ArchiveError else { return false }
        switch error.kind {
        case .system, .lockTimeout: return true
        case .zip(let code, _): return code == .read || code == .open
        default: return false
        }
    }

    /// Puts the bytes of `fd` (the file `source`, inode `inode`, SHA-256 `sha256`) at `final`.
    private func place(fd: Int32, source: String, inode: Int64, sha256: String, at final: URL,
                       mode: inout KeeperMode) throws -> (KeeperMode, UInt64) {
        // Bytes already there (an earlier run placed them, but died before its journal line):
        // no new name, so the document's link count and ctime stay as they are.
        if let there = FileStamp(path: final.path), let size = (try? Sys.fstat(fd, path: source))?.size, there.size == Int64(size) {
            return (there.inode == inode ? .link : .copy, 0)
        }
        if mode == .link {
            switch link(source, inode: inode, at: final) {
            case .linked: return (.link, 0)
            case .changedMeanwhile: throw KeepFailure.changedMeanwhile
            case .cannot: mode = .reflink
            case .failed(let error): throw error
            }
        }
        let temp = try TemporaryFile(beside: final.path, mode: 0o444)
        if mode == .reflink {
            do {
                try Sys.cloneFile(temp.fd, from: fd, path: temp.path)
                try temp.sync()
                try temp.place(at: final.path, .keepingExisting)
                return (.reflink, 0)
            } catch {
                mode = .copy
                try Sys.ftruncate(temp.fd, 0, path: temp.path)
            }
        }
        // A copy, hashed as it is written: bytes that changed meanwhile are never named by a
        // hash they do not have.
        var hasher = SHA256()
        var offset: UInt64 = 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        while true {
            let n = try Sys.pread(fd, buffer.baseAddress!, buffer.count, offset, path: source)
            if n == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
            hasher.update(bufferPointer: chunk)
            try Sys.pwriteAll(temp.fd, chunk.baseAddress!, n, offset, path: temp.path)
            offset += UInt64(n)
        }
        guard FileHash.hex(hasher.finalize()) == sha256 else { throw KeepFailure.changedMeanwhile }
        try temp.sync()
        try temp.place(at: final.path, .keepingExisting)
        return (.copy, offset)
    }

    private enum LinkOutcome {
        case linked, changedMeanwhile, cannot
        case failed(SystemError)
    }

    /// Gives the file `source` (inode `inode`) the name `final` in the store.
    private func link(_ source: String, inode: Int64, at final: URL) -> LinkOutcome {
        let temp = objectsFolder.appendingPathComponent(".incoming-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))").path
        do {
            try Sys.link(source, temp)
        } catch {
            let refusals: [SystemError.Code] = [.crossDevice, .notPermitted, .notSupported, .operationNotSupported, .tooManyLinks, .accessDenied]
            return refusals.contains(error.code) ? .cannot : error.isNotFound ? .changedMeanwhile : .failed(error)
        }
        defer { Sys.removeIfPresent(temp) }
        // The name may have been given to another file since it was opened.
        guard let linked = FileStamp(path: temp), linked.inode == inode else { return .changedMeanwhile }
        do { try Sys.link(temp, final.path) } catch where error.code == .exists {} catch {
            return .failed(error)
        }
        return .linked  // the folder is synced once for the batch, before the journal names it
    }

    /// Says, in the store, that documents of this library are rewritten in place, so that
    /// no later look links them.
    func markRewrittenInPlace(_ what: String, now: Date) {
        let marker = place.folder.appendingPathComponent(KeeperPlace.inPlaceMarker)
        guard FileKind.at(marker.path) == .missing else { return }
        let stamp = ISO8601DateFormatter().string(from: now)
        try? TemporaryFile.replace(marker.path, with: Array("\(what) (seen \(stamp))\n".utf8), mode: 0o600)
    }
}

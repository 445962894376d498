import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaSystem

extension DocumentOrganizer {
    /// Gives the document at `from` the name `to`, under both names' locks, only if `to` is
    /// free: a second name made with `link` (which never replaces), then the first removed,
    /// both folders synced. On a file system without links, a rename checked under the locks.
    /// Its OCR results beside the library follow it.
    func relocate(_ from: URL, to: URL) throws {
        let paths = [from.path, to.path].sorted()
        let locks = try paths.map { try DocumentLock(document: $0, mode: .exclusive, timeout: CoordinatedDocument.defaultLockTimeout) }
        defer { locks.forEach { $0.release() } }
        guard FileKind.at(from.path) == .regular else { throw ArchiveError(.fileNotFound, path: from.path) }
        if Self.isSameFile(from, to) {
            // A move a crash stopped half way: the new name is there, the old one goes now.
            do {
                try Sys.unlink(from.path)
                try Self.syncFolders(from.path, to.path)
            } catch {
                guard let error = error as? SystemError else { throw error }
                throw ArchiveError(.system(error), path: from.path)
            }
        } else {
            try link(from, to)
        }
        OwnWrites.note(to.path)
        OwnWrites.noteRemoved(from.path)
        followResults(from, to)
    }

    private func link(_ from: URL, _ to: URL) throws {
        do {
            try Self.place(from.path, at: to.path)
        } catch {
            guard let error = error as? SystemError else { throw error }
            if error.code == .exists { throw OrganizeError.nameTaken(library.relativePath(of: to) ?? to.path) }
            throw ArchiveError(.system(error), path: to.path)
        }
    }

    /// The OCR results beside the library follow the document.
    private func followResults(_ from: URL, _ to: URL) {
        if let source = OCRResults.url(for: from, in: library), let target = OCRResults.url(for: to, in: library) {
            try? FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            for ext in ["json", "xml", "hocr"] {
                let (a, b) = (source.deletingPathExtension().appendingPathExtension(ext), target.deletingPathExtension().appendingPathExtension(ext))
                if FileKind.at(a.path) == .regular { try? Self.place(a.path, at: b.path) }
            }
        }
    }

    /// `from` renamed to `to` without replacing anything there, then both folders synced.
    static func place(_ from: String, at to: String) throws {
        do {
            try Sys.link(from, to)
        } catch {
            // No hard links here (some FUSE and network file systems): checked, then renamed.
            guard [.notPermitted, .notSupported, .operationNotSupported, .tooManyLinks].contains(error.code) else { throw error }
            guard FileKind.at(to) == .missing else { throw SystemError("rename", path: to, code: .exists) }
            try Sys.rename(from, to)
            return try syncFolders(from, to)
        }
        try Sys.unlink(from)
        try syncFolders(from, to)
    }

    private static func syncFolders(_ from: String, _ to: String) throws {
        let folders = Set([(from as NSString).deletingLastPathComponent, (to as NSString).deletingLastPathComponent])
        for folder in folders { try Sys.fsyncDirectory(folder) }
    }

    /// The app's address files of a document whose title changed follow the title, when
    /// none stands under the new one (the app keys them by title: left behind, a person's
    /// corrections would no longer be shown).
    func followTitle(from old: String, to new: String) {
        guard !old.isEmpty, !new.isEmpty, !old.contains("/"), !new.contains("/"), !new.hasPrefix(".") else { return }
        let folder = library.root.appendingPathComponent(CompanionFile.addressesFolder)
        for suffix in [".json", ".overrides.json"] {
            let (a, b) = (folder.appendingPathComponent(old + suffix), folder.appendingPathComponent(new + suffix))
            if FileKind.at(a.path) == .regular { try? Self.place(a.path, at: b.path) }
        }
    }
}

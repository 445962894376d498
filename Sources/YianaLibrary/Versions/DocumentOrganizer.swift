import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaSystem

/// What the app lets a person do to a document besides editing its pages: rename it (its
/// title, and its file as the app names it), move it to another folder, delete it. Each
/// under the document's lock, never over another file, what it removes kept first:
/// - a rename writes the title through ``DocumentEditor`` (the old version kept), then gives
///   the file the app's name for it;
/// - a move or a rename takes the new name only if it is free (a second name made with
///   `link`, then the old one removed: no moment without the document, never a replace);
///   the OCR results beside the library follow the file, the app's address files follow the
///   title;
/// - a delete keeps the document in the version store first (synced: any device can bring
///   it back), then removes it only if it is still the version kept.
public struct DocumentOrganizer: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// The app's file stem for a name a person typed (lh/Yiana `DocumentRepository.renameDocument`):
    /// `? # % / : \ * " < > |` dropped, spaces made `_`, each `_`-separated part capitalised
    /// (`O'brien` → `O'Brien`, `Mcdonald` → `McDonald`). Beyond the app, a leading `.` (which
    /// would hide the document) and control characters are dropped.
    public static func appStem(for name: String) -> String {
        var clean = name.filter { !"?#%/:\\*\"<>|".contains($0) && !($0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } ?? false) }
        clean = clean.trimmingCharacters(in: .whitespaces)
        while clean.hasPrefix(".") { clean.removeFirst() }
        return clean.replacingOccurrences(of: " ", with: "_").split(separator: "_").map { capitalised(String($0)) }.joined(separator: "_")
    }

    private static func capitalised(_ part: String) -> String {
        var result = part.prefix(1).uppercased() + part.dropFirst()
        for prefix in ["O'", "Mc"] where result.hasPrefix(prefix) && result.count > 2 && !result.hasPrefix("Mac") {
            let at = result.index(result.startIndex, offsetBy: 2)
            result = prefix + result[at].uppercased() + result[result.index(after: at)...]
        }
        return result
    }

    /// Gives the document at `url` the title `title` and the file name the app gives it.
    /// - Returns: where the document is now.
    /// - Throws: ``OrganizeError`` (the name is taken, the title is empty), ``ArchiveError``.
    @discardableResult
    public func rename(_ url: URL, to title: String, dryRun: Bool = false) throws -> URL {
        try place(url, title: title, folder: nil, dryRun: dryRun)
    }

    /// Moves the document at `url` into `folder` (relative to the library; "" for its top),
    /// made when missing, keeping its file name.
    /// - Returns: where the document is now.
    @discardableResult
    public func move(_ url: URL, toFolder folder: String, dryRun: Bool = false) throws -> URL {
        try place(url, title: nil, folder: folder, dryRun: dryRun)
    }

    /// A new title (and the app's file name for it) and a new folder at once: where it goes
    /// is checked free before anything is written, then the title is written and the file
    /// takes its one new place.
    /// - Returns: where the document is now.
    @discardableResult
    public func place(_ url: URL, title: String?, folder: String?, dryRun: Bool = false) throws -> URL {
        var name = url.lastPathComponent
        let title = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let title {
            let stem = Self.appStem(for: title)
            guard !title.isEmpty, !stem.isEmpty, !title.contains("\0"), stem.utf8.count <= 240 else { throw OrganizeError.invalidName(title) }
            name = stem + "." + Library.documentExtension
        }
        let destination = try folder.map { try self.folder($0, creating: false) } ?? url.deletingLastPathComponent()
        let target = destination.appendingPathComponent(name)
        let moves = target.standardizedFileURL != url.standardizedFileURL
        if moves, !Self.isOnlyOtherCase(url, target), !Self.isSameFile(url, target), DocumentNaming.isTaken(name, in: destination) {
            throw OrganizeError.nameTaken(library.relativePath(of: target) ?? target.path)
        }
        let oldTitle = try DocumentReader(path: url.path).metadata().title
        if dryRun { return target }
        if let title, title != oldTitle { try DocumentEditor(library: library).apply(MetadataEdit(title: title), to: url) }
        if moves {
            if let folder { _ = try self.folder(folder, creating: true) }
            try relocate(url, to: target)
        }
        if let title, oldTitle != title { followTitle(from: oldTitle, to: title) }
        return target
    }

    /// Deletes the document at `url`, kept first in the version store.
    /// - Returns: the version kept (`yiana versions restore` and the page's Undo bring it back).
    public func delete(_ url: URL, dryRun: Bool = false) throws -> VersionRecord? {
        let identity = FileIdentity.current(at: url.path)
        guard identity != .absent, FileKind.at(url.path) == .regular else { throw ArchiveError(.fileNotFound, path: url.path) }
        if dryRun { return nil }
        let kept = try VersionStore(library: library).keep(url, reason: "before it was deleted")
        // This machine's keeper too (by link: no bytes copied), and the deletion recorded at
        // once: listed as deleted here now, not after the next look at the library.
        let keeper = Keeper.isEnabled() ? Keeper(library: library) : nil
        let keptHere = (try? keeper?.keepAnyBytes(at: url, reason: "before it was deleted")) != nil
        try CoordinatedDocument.remove(at: url.path, expecting: identity)
        if keptHere, let path = library.relativePath(of: url) { try? keeper?.recordDeleted(path) }
        return kept
    }

    /// The folder `relative` of the library, checked to stay inside it: no `..`, no hidden
    /// or empty part, no part that is a link or a file.
    public func folder(_ relative: String, creating: Bool) throws -> URL {
        let parts = relative.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard !relative.hasPrefix("/"), !relative.contains("\0"), parts.count <= 32,
              parts.allSatisfy({ $0 != ".." && !$0.hasPrefix(".") && $0.utf8.count <= 255 && !$0.contains(where: \.isNewline) }) else {
            throw OrganizeError.invalidFolder(relative)
        }
        var url = library.root
        for part in parts {
            url = url.appendingPathComponent(part)
            switch FileKind.at(url.path) {
            case .folder: continue
            case .missing where creating:
                do { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false) } catch {
                    if FileKind.at(url.path) != .folder { throw OrganizeError.invalidFolder(relative) }
                }
            case .missing: continue
            default: throw OrganizeError.invalidFolder(relative)
            }
        }
        return url
    }

    /// True when both names are one file: a move that a crash stopped between giving the
    /// document its new name and taking the old one away (finished by the next).
    static func isSameFile(_ a: URL, _ b: URL) -> Bool {
        guard let x = try? Sys.lstat(a.path), let y = try? Sys.lstat(b.path) else { return false }
        return x.st_dev == y.st_dev && x.st_ino == y.st_ino
    }

    /// True when `a` and `b` differ only in case or Unicode form (one file on a Mac): a
    /// rename that only recapitalises is no clash with itself.
    private static func isOnlyOtherCase(_ a: URL, _ b: URL) -> Bool {
        a.deletingLastPathComponent() == b.deletingLastPathComponent()
            && a.lastPathComponent.precomposedStringWithCanonicalMapping.lowercased() == b.lastPathComponent.precomposedStringWithCanonicalMapping.lowercased()
    }
}

/// Why a document was not renamed, moved or deleted.
public enum OrganizeError: Error, Equatable, CustomStringConvertible {
    case nameTaken(String)
    case invalidName(String)
    case invalidFolder(String)

    public var description: String {
        switch self {
        case .nameTaken(let path): "\(path) is taken by another document; choose another name or folder (nothing was changed)."
        case .invalidName(let name): "\"\(name)\" cannot name a document: give a title with letters or digits."
        case .invalidFolder(let folder): "\"\(folder)\" is no folder of the library (no \"..\", no hidden folder, no file or link on the way)."
        }
    }

    /// A stable name for scripts.
    public var code: String {
        switch self {
        case .nameTaken: "name-taken"
        case .invalidName: "invalid-name"
        case .invalidFolder: "invalid-folder"
        }
    }
}

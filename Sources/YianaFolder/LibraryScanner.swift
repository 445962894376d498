import Foundation
import YianaArchive
import YianaSystem

/// What keeps files in a library that are not its documents: the toolkit, the app, and
/// each sync program. Nothing inside such a folder is ever taken for a document.
public enum ForeignKind: String, Codable, Sendable, CaseIterable {
    case toolkitState = "toolkit-state"
    case appOCRResults = "app-ocr-results"
    case appBackups = "app-backups"
    case syncthingVersions = "syncthing-versions"
    case syncthingMarker = "syncthing-marker"
    case syncthingTemp = "syncthing-temp"
    case unisonTemp = "unison-temp"
    case rclonePartial = "rclone-partial"
    case dropbox
    case resilio
    case resilioTemp = "resilio-temp"
    case nextcloud
    case megaDebris = "mega-debris"
    case trash
    case systemFile = "system-file"
    case hidden

    /// What it is, for people.
    public var label: String {
        switch self {
        case .toolkitState: "the toolkit's shared state (.yiana)"
        case .appOCRResults: "the app's OCR results (.ocr_results)"
        case .appBackups: "the app's backups"
        case .syncthingVersions: "Syncthing's old versions"
        case .syncthingMarker: "Syncthing's folder marker"
        case .syncthingTemp: "Syncthing's temporary files"
        case .unisonTemp: "unison's temporary files"
        case .rclonePartial: "rclone's partial files"
        case .dropbox: "Dropbox's cache"
        case .resilio: "Resilio Sync's folder (.sync)"
        case .resilioTemp: "Resilio Sync's temporary files (.!sync)"
        case .nextcloud: "the Nextcloud or ownCloud client's journal"
        case .megaDebris: "MEGA's deleted files"
        case .trash: "a trash folder"
        case .systemFile: "system files (.DS_Store, ._*)"
        case .hidden: "other hidden files"
        }
    }
}

/// An entry of a library that is not a document: skipped, not descended into, reported once.
public struct ForeignEntry: Codable, Sendable, Equatable {
    public let kind: ForeignKind
    /// Relative to the library.
    public let path: String
    /// For a folder that keeps old copies (`.stversions`, backups, trash): how many
    /// `.yianazip` files are in it.
    public var documents = 0
}

/// Something named like a document that cannot be read as one: not a regular file (a
/// symbolic link, a FIFO, a folder…), or a name whose bytes are not UTF-8. Never opened,
/// never skipped in silence: every command reports it and exits 1.
public struct IrregularEntry: Sendable, Equatable {
    /// Relative to the library (or as named); bytes that are not UTF-8 written `\xNN`.
    public let path: String
    /// ``ProblemCode/notARegularFile`` or ``ProblemCode/nameNotUTF8``.
    public let code: ProblemCode
    /// Why, and what to do.
    public let reason: String

    /// The sentence commands print: "path: reason."
    public var message: String { "\(path): \(reason)." }
}

/// The one walk of a library every command uses: documents and placeholders, and nothing
/// inside the toolkit's, the app's or a sync program's folders (`.yiana`, `.ocr_results`,
/// `.stversions`, …), which are reported by kind instead. Symlinks are not followed.
public enum LibraryScanner {
    /// Every document and placeholder below `folder` (a library's root), in a stable order.
    /// - Throws: when `folder` itself cannot be listed; unreadable sub-folders are skipped.
    public static func scan(_ folder: URL) throws -> [LibraryItem] {
        try scan(Library(root: folder)).items
    }

    /// Walks `library` (or only `below`, files and folders in it).
    /// - Throws: when the library's root cannot be listed; unreadable sub-folders are skipped.
    public static func scan(_ library: Library, below: [URL] = []) throws -> LibraryScan {
        var scan = LibraryScan()
        scan.listedAt = FileStamp.now()
        if below.isEmpty {
            try walk(library.root, library: library, into: &scan, isRoot: true)
        } else {
            for url in below {
                // A companion named on the command line (`.addresses/X.json`) is checked as one.
                if let relative = library.relativePath(of: url), FileKind.at(url.path) == .regular,
                   let companion = companion(at: relative, path: url.path) {
                    scan.companions.append(companion)
                    continue
                }
                let kind = FileKind.at(url.path)
                if kind == .folder, documentName(of: url.lastPathComponent) == nil {
                    try walk(url, library: library, into: &scan, isRoot: false)
                } else {
                    add(url.lastPathComponent, kind: kind, in: url.deletingLastPathComponent().path, library: library, into: &scan)
                }
            }
        }
        finish(&scan, library: library)
        return scan
    }


    /// The documents and placeholders in `folder` itself (not in its sub-folders), and in
    /// `folders` the folder's own time and the names of its sub-folders (times unknown: -1).
    /// - Throws: when `folder` cannot be listed.
    public static func scan(_ library: Library, only folder: URL) throws -> LibraryScan {
        var none: [String: FileStamp] = [:]
        return try scan(library, only: folder, leavingOut: &none)
    }

    /// ``scan(_:only:)`` less the files the caller holds as they are: `same`, by name in the
    /// folder, the stamps the caller holds; a regular file there with the same inode is not in
    /// the scan and is taken out of `same`, which is left with what changed or went
    /// (``DirectoryEntry/list(_:stamps:sorted:leavingOut:)``). What a regular file is follows
    /// from its name and its folder alone, so a file left out is whatever the caller took it
    /// for when it held it.
    /// - Throws: when `folder` cannot be listed.
    public static func scan(_ library: Library, only folder: URL, leavingOut same: inout [String: FileStamp]) throws -> LibraryScan {
        var scan = LibraryScan()
        scan.listedAt = FileStamp.now()
        let relativeFolder = library.relativePath(of: folder)
        if let relativeFolder, let stamp = FileStamp(path: folder.path) { scan.folders[relativeFolder] = stamp.modified }
        let folderPath = folder.path
        for entry in try DirectoryEntry.list(folderPath, leavingOut: &same) {
            if entry.kind == .folder, let name = entry.name, let relativeFolder {
                if foreign(name, isFolder: true) == nil, documentName(of: name) == nil {
                    scan.folders[relativeFolder.isEmpty ? name : relativeFolder + "/" + name] = -1
                }
                continue
            }
            visit(entry, in: folderPath, relativeFolder: relativeFolder, library: library, into: &scan)
        }
        return scan
    }

    /// The document file name a folder entry stands for, if it is one: `Name.yianazip` for
    /// itself, for a name a sync service mangled (`Name.yianazip..path1`, `.conflict1`,
    /// `.conflicted`: the marks are kept, `original` drops them) and for an iCloud stub.
    public static func documentName(of entry: String) -> String? {
        if let stub = PlaceholderName.documentName(forStub: entry) { return stub }
        guard !entry.hasPrefix(".") else { return nil }
        if (entry as NSString).pathExtension.lowercased() == Library.documentExtension { return entry }
        guard entry.lowercased().contains(".\(Library.documentExtension).") else { return nil }
        let name = ConflictName(fileName: entry)
        return (name.original as NSString).pathExtension.lowercased() == Library.documentExtension ? entry : nil
    }

    /// The toolkit's own (`.Name.yianazip.yiana-tmp-XXXXXXXX`), libzip's
    /// (`Name.yianazip.XXXXXX`) and the app's (`<UUID>.tmp`) temporary files.
    public static func isLeftoverTemp(_ name: String) -> Bool {
        if name.hasPrefix("."), name.contains(".yiana-tmp-") { return true }
        // libzip's are named after the archive (never hidden) plus six mkstemp characters.
        if !name.hasPrefix("."), let range = name.range(of: ".\(Library.documentExtension).", options: .backwards) {
            let suffix = name[range.upperBound...]
            if suffix.count == 6, suffix.allSatisfy({ $0.isLetter || $0.isNumber }) { return true }
        }
        if name.hasSuffix(".tmp"), UUID(uuidString: String(name.dropLast(4))) != nil { return true }
        return false
    }

    /// What a name that is not a document is, and the document a sync program's temporary
    /// file is for (it is still arriving).
    public static func foreign(_ name: String, isFolder: Bool) -> (kind: ForeignKind, shadows: String?)? {
        func between(_ prefix: String, _ suffix: String) -> String? {
            name.hasPrefix(prefix) && name.hasSuffix(suffix) && name.count > prefix.count + suffix.count
                ? String(name.dropFirst(prefix.count).dropLast(suffix.count)) : nil
        }
        if let doc = between(".syncthing.", ".tmp") ?? between("~syncthing~", ".tmp") { return (.syncthingTemp, doc) }
        if name.hasPrefix(".unison.") {
            // `.unison.NAME.<hash>.unison.tmp`
            let inner = between(".unison.", ".unison.tmp")
            return (.unisonTemp, inner.map { ($0 as NSString).deletingPathExtension })
        }
        if let doc = between("", ".!sync") { return (.resilioTemp, doc) }
        if name.hasSuffix(".partial"), !name.hasPrefix(".") {
            // rclone: `NAME.partial` or `NAME.<hash>.partial`
            let stem = String(name.dropLast(".partial".count))
            let doc = (stem as NSString).pathExtension.lowercased() == Library.documentExtension ? stem : (stem as NSString).deletingPathExtension
            return (.rclonePartial, doc)
        }
        guard name.hasPrefix(".") else { return nil }
        switch name {
        case Library.stateFolderName: return (.toolkitState, nil)
        case ".ocr_results": return (.appOCRResults, nil)
        case ".yiana-backups": return (.appBackups, nil)
        case ".stversions": return (.syncthingVersions, nil)
        case ".stfolder", ".stignore": return (.syncthingMarker, nil)
        case ".dropbox", ".dropbox.cache", ".dropbox.attr": return (.dropbox, nil)
        case ".sync": return (.resilio, nil)
        case ".debris": return (.megaDebris, nil)
        case ".DS_Store", ".Spotlight-V100", ".fseventsd", ".TemporaryItems", ".localized": return (.systemFile, nil)
        default: break
        }
        if name.hasPrefix(".Trash") { return (.trash, nil) }
        if name.hasPrefix("._") && !isFolder { return (.systemFile, nil) }
        if [".nextcloudsync.log", ".owncloudsync.log", ".sync-exclude.lst"].contains(name)
            || name.hasPrefix("._sync_") || name.hasPrefix(".sync_") || name.hasPrefix(".csync_journal") {
            return (.nextcloud, nil)
        }
        return (.hidden, nil)
    }

    private static func walk(_ folder: URL, library: Library, into scan: inout LibraryScan, isRoot: Bool) throws {
        let entries: [DirectoryEntry]
        let relativeFolder = library.relativePath(of: folder), folderPath = folder.path
        if let relativeFolder, let stamp = FileStamp(path: folderPath) { scan.folders[relativeFolder] = stamp.modified }
        do {
            entries = try DirectoryEntry.list(folderPath)
        } catch {
            if isRoot { throw error }
            return
        }
        guard isRoot, entries.count > 1 else {
            for entry in entries { visit(entry, in: folderPath, relativeFolder: relativeFolder, library: library, into: &scan) }
            return
        }
        // The root's folders are walked on every core, each on its own, and each run of
        // files between them as one piece; the findings join in the root's order, so the
        // scan reads as one walk in order would.
        var pieces: [Range<Int>] = []
        for index in entries.indices {
            if entries[index].kind != .folder, let last = pieces.last, last.upperBound == index, entries[last.lowerBound].kind != .folder {
                pieces[pieces.count - 1] = last.lowerBound..<(index + 1)
            } else {
                pieces.append(index..<(index + 1))
            }
        }
        var parts = [LibraryScan](repeating: LibraryScan(), count: pieces.count)
        parts.withUnsafeMutableBufferPointer { [pieces] buffer in
            nonisolated(unsafe) let parts = buffer
            DispatchQueue.concurrentPerform(iterations: pieces.count) { piece in
                for index in pieces[piece] {
                    visit(entries[index], in: folderPath, relativeFolder: relativeFolder, library: library, into: &parts[piece])
                }
            }
        }
        for part in parts { scan.append(part) }
    }

    /// One entry of the folder at `folderPath` (its path taken once per folder, not per entry:
    /// a URL's `path` is made anew each time it is asked for).
    static func visit(_ entry: DirectoryEntry, in folderPath: String, relativeFolder: String?, library: Library, into scan: inout LibraryScan) {
        guard let name = entry.name else {
            // No String path reaches it: reported by its escaped name, never skipped in silence.
            let lowered = entry.escapedName.lowercased()
            if entry.kind == .folder || lowered.hasSuffix(".\(Library.documentExtension)") || lowered.contains(".\(Library.documentExtension).") {
                let shown = relativeFolder ?? folderPath
                let display = shown.isEmpty ? entry.escapedName : shown + "/" + entry.escapedName
                scan.irregular.append(IrregularEntry(
                    path: display, code: .nameNotUTF8,
                    reason: "its name is not valid UTF-8 (the bytes shown as \\x), so it cannot be read\(entry.kind == .folder ? ", nor anything in it" : ""); rename it to UTF-8 (e.g. `convmv -f latin1 -t utf8 --notest`, or `mv` with the name typed as $'…\\xFF…'), then run the command again"))
            }
            return
        }
        add(name, kind: entry.kind, stamp: entry.stamp, in: folderPath, relativeFolder: relativeFolder, library: library, into: &scan, descend: true)
    }

    private static func add(_ name: String, kind type: FileKind, stamp: FileStamp? = nil, in folderPath: String, relativeFolder: String? = nil,
                            library: Library, into scan: inout LibraryScan, descend: Bool = false) {
        // Built from the path with the kind known: `appendingPathComponent` would `stat` the
        // file to learn whether it is a folder, once per entry of the walk.
        func childPath(_ name: String) -> String { (folderPath == "/" ? "" : folderPath) + "/" + name }
        let path = childPath(name)
        var url: URL { URL(fileURLWithPath: path, isDirectory: type == .folder) }
        func relative(_ name: String) -> String? { relativeFolder.map { $0.isEmpty ? name : $0 + "/" + name } }
        // Nearly every entry of a library: a plain document, which nothing below would take
        // for anything else (a stub, a temporary or foreign file all start with "." or end
        // otherwise). Tested first, by its bytes: walks of 100,000 documents stay fast.
        if type == .regular, name.utf8.first != UInt8(ascii: "."), Library.endsInDocumentExtension(name) {
            scan.items.append(LibraryItem(kind: .document, path: path, stamp: stamp, documentPath: relative(name)))
            return
        }
        if let original = PlaceholderName.documentName(forStub: name) {
            scan.items.append(LibraryItem(kind: .placeholder, path: path, documentFile: childPath(original), stamp: stamp, documentPath: relative(original)))
            return
        }
        if type == .missing {
            if !descend { scan.items.append(LibraryItem(kind: .document, path: path)) }  // named, reported as not found
            return
        }
        // The app's own files at the root: `.addresses/`, `.letters/`, the work lists, their
        // conflict copies and temporary files (never documents, never junk).
        if descend, relativeFolder == "" {
            if type == .folder, CompanionFile.folders.contains(name) {
                walkCompanions(path, relative: [name], into: &scan)
                return
            }
            if type == .regular, name.hasPrefix(".worklist") || name.hasPrefix(".yiana-worklist") || name.hasSuffix(".tmp"),
               let companion = companion(at: name, path: path) {
                scan.companions.append(companion)
                return
            }
        }
        if type == .regular, isLeftoverTemp(name) {
            scan.leftoverTemps.append(url)
            return
        }
        if let (kind, shadows) = foreign(name, isFolder: type == .folder), descend || kind != .hidden {
            var entry = ForeignEntry(kind: kind, path: library.relativePath(of: url) ?? url.path)
            if type == .folder, [.syncthingVersions, .appBackups, .megaDebris, .trash].contains(kind) {
                entry.documents = countDocuments(in: url)
            }
            scan.foreign.append(entry)
            if let shadows { scan.shadowed.insert(childPath(shadows)) }
            return
        }
        var display: String { library.relativePath(of: url) ?? url.path }
        let named = documentName(of: name) != nil || !descend  // a path named on the command line is checked whatever its name
        switch type {
        case .regular where named:
            scan.items.append(LibraryItem(kind: .document, path: path, stamp: stamp, documentPath: relative(name)))
        case .folder where descend:
            if named { scan.irregular.append(IrregularEntry(path: display, code: .notARegularFile, reason: FileKind.folder.refusal!)) }
            if scan.unwalked != nil {
                scan.unwalked!.append(url)
            } else {
                try? walk(url, library: library, into: &scan, isRoot: false)
            }
        case .regular:
            break
        case .symlink where !named:
            scan.unfollowedLinks.append(display)  // never followed: it could loop or leave the library
        default:
            if named, let refusal = FileKind.at(url.path).refusal {
                scan.irregular.append(IrregularEntry(path: display, code: .notARegularFile, reason: refusal))
            }
        }
    }

    private static func countDocuments(in folder: URL) -> Int {
        guard let walker = FileManager.default.enumerator(atPath: folder.path) else { return 0 }
        var count = 0
        while let path = walker.nextObject() as? String {
            if path.lowercased().contains(".\(Library.documentExtension)") { count += 1 }
        }
        return count
    }
}

/// The names iCloud gives evicted documents' stubs.
public enum PlaceholderName {
    /// `Name.yianazip` for `.Name.yianazip.icloud` or the older `.Name.yianazip-tef.icloud`.
    public static func documentName(forStub stub: String) -> String? {
        guard stub.hasPrefix("."), stub.hasSuffix(".icloud") else { return nil }
        var inner = String(stub.dropFirst().dropLast(".icloud".count))
        if inner.hasSuffix("-tef") { inner.removeLast(4) }
        guard inner.lowercased().hasSuffix(".\(Library.documentExtension)"), inner.count > Library.documentExtension.count + 1 else {
            return nil
        }
        return inner
    }

    /// The stub names that stand for `documentName` (current, then the older form).
    public static func stubNames(for documentName: String) -> [String] {
        [".\(documentName).icloud", ".\(documentName)-tef.icloud"]
    }
}

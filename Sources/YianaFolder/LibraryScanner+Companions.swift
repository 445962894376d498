import Foundation
import YianaSystem

extension LibraryScanner {
    /// Every file below a companion folder (`.addresses`, `.letters`), as companions, in no
    /// particular order. The folder may hold thousands of small files: their kinds come from
    /// the listing (no `stat` each, no sort) and their paths are built as strings, not URLs.
    static func walkCompanions(_ folder: String, relative: [String], into scan: inout LibraryScan) {
        guard let entries = try? DirectoryEntry.list(folder, stamps: false, sorted: false) else { return }
        let relativeFolder = relative.joined(separator: "/") + "/"
        for entry in entries {
            guard let name = entry.name else { continue }
            let path = relativeFolder + name
            switch entry.kind {
            case .regular:
                // A sync program's temporary file: the companion it is for is still arriving.
                if let (kind, shadows) = foreign(name, isFolder: false), ![.hidden, .systemFile].contains(kind) {
                    scan.foreign.append(ForeignEntry(kind: kind, path: path))
                    if let shadows { scan.shadowed.insert(folder + "/" + shadows) }
                } else if let companion = CompanionFile.classify(name, in: relative, path: path) {
                    scan.companions.append(companion)
                }
            case .folder:
                walkCompanions(folder + "/" + name, relative: relative + [name], into: &scan)
            default:
                break
            }
        }
    }

    /// The companion the file at `relative` (below the library's root) is, as the walk tells
    /// it: a `<UUID>.tmp` at the root is the work list's only when it holds JSON (the app's
    /// document writer leaves the same name).
    package static func companion(at relative: String, path: String) -> CompanionFile? {
        guard let file = CompanionFile.classify(relative) else { return nil }
        if file.isTemp, !relative.contains("/"), !relative.hasPrefix("."), !startsLikeJSON(path) { return nil }
        return file
    }

    /// True when the file's first byte other than white space is `{`.
    private static func startsLikeJSON(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        return head.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } == UInt8(ascii: "{")
    }
}

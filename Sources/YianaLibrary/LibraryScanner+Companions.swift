import Foundation
import YianaSystem

extension LibraryScanner {
    /// Every file below a companion folder (`.addresses`, `.letters`), as companions.
    static func walkCompanions(_ folder: URL, relative: String, into scan: inout LibraryScan) {
        guard let entries = try? DirectoryEntry.list(folder.path) else { return }
        for entry in entries {
            guard let name = entry.name else { continue }
            let path = relative + "/" + name
            // A sync program's temporary file: the companion it is for is still arriving.
            if entry.kind == .regular, let (kind, shadows) = foreign(name, isFolder: false), ![.hidden, .systemFile].contains(kind) {
                scan.foreign.append(ForeignEntry(kind: kind, path: path))
                if let shadows { scan.shadowed.insert(folder.appendingPathComponent(shadows).path) }
                continue
            }
            switch entry.kind {
            case .folder:
                walkCompanions(folder.appendingPathComponent(name, isDirectory: true), relative: path, into: &scan)
            case .regular:
                if let companion = CompanionFile.classify(path) {
                    scan.companions.append(ScannedCompanion(file: companion, stamp: entry.stamp))
                }
            default:
                break
            }
        }
    }

    /// True when the file's first byte other than white space is `{`.
    static func startsLikeJSON(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 64)) ?? Data()
        return head.first { ![0x20, 0x0A, 0x0D, 0x09].contains($0) } == UInt8(ascii: "{")
    }
}

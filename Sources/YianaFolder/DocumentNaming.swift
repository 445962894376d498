import Foundation
import YianaArchive
import YianaSystem

/// File names for new documents, as the app makes them.
public enum DocumentNaming {
    /// The file stem for a title: `/` and `:` become `-`, as in the app. Beyond the app, a
    /// leading `.` (which would hide the document from every scan) and control characters are
    /// replaced too, and the stem is cut so that `<stem> NNNN.yianazip` fits a file name.
    public static func stem(forTitle title: String) -> String {
        var stem = String(title.map { character -> Character in
            if character == "/" || character == ":" { return "-" }
            if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) { return " " }
            return character
        }).trimmingCharacters(in: .whitespacesAndNewlines)
        while stem.hasPrefix(".") { stem = "-" + stem.dropFirst() }
        if stem.isEmpty { stem = "Untitled" }
        // 255 bytes for a name, less " 9999" and ".yianazip".
        let limit = 255 - 5 - (Library.documentExtension.utf8.count + 1)
        while stem.utf8.count > limit { stem.removeLast() }
        return stem
    }

    /// `<stem>.yianazip`, then `<stem> 1.yianazip`, `<stem> 2.yianazip`, … as the app numbers.
    public static func fileName(stem: String, number: Int) -> String {
        number == 0 ? "\(stem).\(Library.documentExtension)" : "\(stem) \(number).\(Library.documentExtension)"
    }

    /// True when `fileName` is taken in `folder`: by a file of that name, by one that
    /// differs only in case or Unicode form (the same file on a Mac's file system, where the
    /// library is synced to), or by an evicted document's placeholder.
    public static func isTaken(_ fileName: String, in folder: URL) -> Bool {
        TakenNames().isTaken(fileName, in: folder)
    }

    /// The names taken in folders, each folder listed and folded once, and names added as
    /// documents are created: a batch import checks each name without re-listing a folder
    /// of thousands of documents for every PDF. Another process may still create a name
    /// meanwhile; the writer's no-replace `link` catches that for the exact name.
    public final class TakenNames: @unchecked Sendable {
        // @unchecked: `folded` is only touched while holding `lock`.
        private let lock = NSLock()
        private var folded: [String: Set<String>] = [:]

        public init() {}

        public func isTaken(_ fileName: String, in folder: URL) -> Bool {
            lock.lock()
            defer { lock.unlock() }
            if folded[folder.path] == nil {
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
                folded[folder.path] = Set(names.map { foldedKey(DocumentNaming.nameTaken(by: $0)) })
            }
            return folded[folder.path]!.contains(foldedKey(fileName))
        }

        /// Records a name just taken by this process.
        public func take(_ fileName: String, in folder: URL) {
            lock.lock()
            defer { lock.unlock() }
            folded[folder.path, default: []].insert(foldedKey(fileName))
        }
    }

    /// The document name a folder entry takes: an iCloud stub's document, the plain name
    /// of a document whose extension a sync service mangled (`X.yianazip..path1` takes
    /// `X.yianazip`, which resolving gives back to it), else the entry itself.
    static func nameTaken(by entry: String) -> String {
        if let stub = PlaceholderName.documentName(forStub: entry) { return stub }
        if LibraryScanner.documentName(of: entry) != nil, !entry.lowercased().hasSuffix(".\(Library.documentExtension)") {
            return ConflictName(fileName: entry).original
        }
        return entry
    }

    /// Creates a new empty file for `title` with extension `ext` in `folder` (`O_EXCL`: it
    /// never replaces anything): `<stem>.<ext>`, else `<stem> 2.<ext>`, `<stem> 3.<ext>`, …
    /// passing over a name taken in any case or Unicode form (one file on a Mac).
    /// - Returns: the name it really got, and the file open for writing.
    /// - Throws: ``SystemError`` when no file can be created there.
    public static func createSideFile(for title: String, extension ext: String, in folder: URL) throws -> (url: URL, fd: Int32) {
        let names = freeSideNames(for: title, extension: ext, in: folder)
        for name in names {
            let url = folder.appendingPathComponent(name)
            do {
                return (url, try Sys.open(url.path, [.writeOnly, .create, .exclusive]))
            } catch {
                guard error.code == .exists else { throw error }
            }
        }
        throw SystemError("create", path: folder.appendingPathComponent(names.first ?? "\(title).\(ext)").path, code: .exists)
    }

    /// The name ``createSideFile(for:extension:in:)`` would take now (for a dry run).
    public static func freeSideName(for title: String, extension ext: String, in folder: URL) -> String {
        freeSideNames(for: title, extension: ext, in: folder).first ?? "\(stem(forTitle: title)).\(ext)"
    }

    /// `<stem>.<ext>`, `<stem> 2.<ext>`, … less the names taken in `folder` (in any case or
    /// Unicode form), listing the folder once.
    private static func freeSideNames(for title: String, extension ext: String, in folder: URL) -> LazyFilterSequence<LazyMapSequence<ClosedRange<Int>, String>> {
        let stem = stem(forTitle: title)
        let existing = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).map(foldedKey))
        return (1...10_000).lazy.map { $0 == 1 ? "\(stem).\(ext)" : "\(stem) \($0).\(ext)" }.filter { !existing.contains(foldedKey($0)) }
    }

    static func foldedKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
    }
}

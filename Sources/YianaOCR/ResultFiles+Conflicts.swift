import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

extension ResultFiles {
    /// Conflict copies a sync program made of one document's results files: two devices
    /// recognised the document while apart, both wrote `Name.json`, and the program kept one
    /// as `Name.sync-conflict-….json` (Syncthing), `Name (… conflicted copy …).json`
    /// (Dropbox) and so on, by the names of ``ConflictName``.
    public struct Conflicts: Sendable {
        /// Suffix (`json`, `xml`, `hocr`) → the copies of that file.
        public var copies: [String: [URL]] = [:]
        public var isEmpty: Bool { copies.values.allSatisfy(\.isEmpty) }
        public var count: Int { copies.values.reduce(0) { $0 + $1.count } }
    }

    /// The conflict copies in the results folder that holds `document`'s results: each
    /// copy's name by the name it is a copy of. One listing; the caller keeps it per folder.
    public func conflictCopies(besideResultsOf document: URL) -> [String: [String]] {
        guard let folder = base(for: document)?.deletingLastPathComponent() else { return [:] }
        var copies: [String: [String]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where !name.hasPrefix(".") {
            let conflict = ConflictName(fileName: name)
            if conflict.isSyncConflict { copies[conflict.withoutSyncMarks, default: []].append(name) }
        }
        return copies
    }

    /// The conflict copies of `document`'s results files, from `copies` (``conflictCopies(besideResultsOf:)``).
    public func conflicts(for document: URL, in copies: [String: [String]]) -> Conflicts {
        guard let base = base(for: document) else { return Conflicts() }
        var conflicts = Conflicts()
        for suffix in Self.suffixes {
            let names = copies[base.lastPathComponent + "." + suffix] ?? []
            if !names.isEmpty { conflicts.copies[suffix] = names.sorted().map { base.deletingLastPathComponent().appendingPathComponent($0) } }
        }
        return conflicts
    }

    /// Settles the conflict copies of `document`'s results files: of each file, the one that
    /// belongs to the recognition the document holds now (its time is the document's
    /// `ocrProcessedAt`; else the file under its own name) keeps the name, and the other
    /// copies are removed. They are derived files: the document version each came with is
    /// kept (conflict resolution keeps every version), and the two devices recognised the
    /// same pages. Under the results' lock, each step a rename or a removal.
    /// - Returns: how many copies were removed.
    public func settle(_ conflicts: Conflicts, for document: URL, processedAt: Date?) throws -> Int {
        guard let base = base(for: document), !conflicts.isEmpty else { return 0 }
        let lock = try Self.lock(base)
        defer { lock.release() }
        var removed = 0
        for (suffix, copies) in conflicts.copies {
            let main = URL(fileURLWithPath: base.path + "." + suffix)
            let keeper = Self.records(main, suffix: suffix, processedAt) ? nil : copies.first { Self.records($0, suffix: suffix, processedAt) }
            for copy in copies {
                if copy == keeper {
                    try Sys.rename(copy.path, main.path)
                } else {
                    try FileManager.default.removeItem(at: copy)
                }
                removed += 1
            }
        }
        return removed
    }

    /// The recognition time a results file records: the JSON's `processedAt`, the XML's
    /// `<ProcessedAt>` (the hOCR records none).
    static func time(of file: URL, suffix: String) -> Date? {
        guard suffix != "hocr", let data = FileManager.default.contents(atPath: file.path) else { return nil }
        let value: String?
        if suffix == "json" {
            value = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["processedAt"] as? String
        } else {
            let text = String(decoding: data.prefix(4096), as: UTF8.self)
            value = text.range(of: "<ProcessedAt>").flatMap { open in
                text[open.upperBound...].range(of: "</ProcessedAt>").map { String(text[open.upperBound..<$0.lowerBound]) }
            }
        }
        return value.flatMap(InternetTime.date)
    }

    /// True when `file` records the recognition of `processedAt` (to the second: the files
    /// record whole seconds).
    static func records(_ file: URL, suffix: String, _ processedAt: Date?) -> Bool {
        guard let processedAt, let time = time(of: file, suffix: suffix) else { return false }
        return abs(processedAt.timeIntervalSince(time)) < 1
    }
}

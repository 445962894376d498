import Foundation

/// What a file name says about where the file came from: the name of the document it is
/// a copy of, and the marks each sync service (or the app) added, outermost first.
public struct ConflictName: Sendable, Equatable {
    /// One added part of a name.
    public enum Mark: Sendable, Equatable {
        /// Syncthing: `.sync-conflict-YYYYMMDD-HHMMSS[-DEVICE]`.
        case syncthing(stamp: String, device: String?)
        /// Dropbox: ` (someone's conflicted copy YYYY-MM-DD[ (N)])`, in any client language.
        case dropbox(owner: String?, date: String, counter: Int?)
        /// Nextcloud: ` (conflicted copy [user ]YYYY-MM-DD HHMMSS)`.
        case nextcloud(user: String?, stamp: String)
        /// Older Nextcloud and ownCloud clients: `_conflict-YYYYMMDD-HHMMSS`.
        case nextcloudLegacy(stamp: String)
        /// ` N`: iCloud Drive's conflict copy, or the app's own numbering of a new
        /// document with the same title; only the metadata id tells them apart.
        case numbered(Int)
        /// ` Copy` or ` Copy N`: the app's Duplicate command (same id, on purpose).
        case appCopy(Int?)

        /// True for marks only a sync service makes (not the app's own naming).
        public var isSyncConflict: Bool {
            switch self {
            case .syncthing, .dropbox, .nextcloud, .nextcloudLegacy: true
            case .numbered, .appCopy: false
            }
        }
    }

    /// The document's own file name, every mark removed (`Report.yianazip`).
    public let original: String
    /// The marks, outermost (added last) first.
    public let marks: [Mark]

    /// Reads `fileName` (`Report (Bob's conflicted copy 2026-03-01).yianazip`), removing
    /// marks from the outside in so that conflicts of conflicts unstack.
    public init(fileName: String) {
        let ext = (fileName as NSString).pathExtension
        var stem = ext.isEmpty ? fileName : String(fileName.dropLast(ext.count + 1))
        var marks: [Mark] = []
        while let (mark, rest) = Self.outermostMark(of: stem), !rest.isEmpty {
            marks.append(mark)
            stem = rest
        }
        original = ext.isEmpty ? stem : "\(stem).\(ext)"
        self.marks = marks
    }

    /// True when a sync service (not the app) made this name.
    public var isSyncConflict: Bool { marks.contains { $0.isSyncConflict } }

    // Each pattern matches a mark at the very end of the name.
    private static let syncthing = try! NSRegularExpression(pattern: #"\.sync-conflict-(\d{8}-\d{6})(?:-([A-Z2-7]{0,7}))?$"#)
    private static let nextcloud = try! NSRegularExpression(pattern: #" \(conflicted copy (?:(.+?) )?(\d{4}-\d{2}-\d{2} \d{6})\)$"#)
    private static let nextcloudLegacy = try! NSRegularExpression(pattern: #"_conflict-(\d{8}-\d{6})$"#)
    // Dropbox's wording is translated by its clients ("conflicted copy", "Konfliktkopie",
    // "copie en conflit", "copia en conflicto", …): the bracket must hold a conflict word
    // in some language and end in a date, optionally with a counter.
    private static let dropbox = try! NSRegularExpression(
        pattern: #" \(((?:[^()]|\([^()]*\))*?(?:conflict|konflikt|conflit|conflitt|conflito|konflik|競合|冲突|衝突|충돌|конфликт)(?:[^()]|\([^()]*\))*?) (\d{4}-\d{2}-\d{2})(?: \((\d+)\)| (\d+))?\)$"#,
        options: [.caseInsensitive])
    private static let appCopy = try! NSRegularExpression(pattern: #" Copy(?: (\d{1,4}))?$"#)
    private static let numbered = try! NSRegularExpression(pattern: #" (\d{1,3})$"#)

    private static func outermostMark(of stem: String) -> (Mark, String)? {
        let range = NSRange(stem.startIndex..., in: stem)
        func group(_ match: NSTextCheckingResult, _ index: Int) -> String? {
            let r = match.range(at: index)
            guard r.location != NSNotFound, let swiftRange = Range(r, in: stem) else { return nil }
            return String(stem[swiftRange])
        }
        func rest(_ match: NSTextCheckingResult) -> String {
            String(stem[..<Range(match.range, in: stem)!.lowerBound])
        }
        if let m = syncthing.firstMatch(in: stem, range: range) {
            let device = group(m, 2)
            return (.syncthing(stamp: group(m, 1)!, device: device?.isEmpty == true ? nil : device), rest(m))
        }
        if let m = nextcloud.firstMatch(in: stem, range: range) {
            return (.nextcloud(user: group(m, 1), stamp: group(m, 2)!), rest(m))
        }
        if let m = nextcloudLegacy.firstMatch(in: stem, range: range) {
            return (.nextcloudLegacy(stamp: group(m, 1)!), rest(m))
        }
        if let m = dropbox.firstMatch(in: stem, range: range) {
            let words = group(m, 1) ?? ""
            let owner = words.range(of: "'s ").map { String(words[..<$0.lowerBound]) }
            let counter = (group(m, 3) ?? group(m, 4)).flatMap { Int($0) }
            return (.dropbox(owner: owner, date: group(m, 2)!, counter: counter), rest(m))
        }
        if let m = appCopy.firstMatch(in: stem, range: range) {
            return (.appCopy(group(m, 1).flatMap { Int($0) }), rest(m))
        }
        if let m = numbered.firstMatch(in: stem, range: range), let n = group(m, 1).flatMap({ Int($0) }), n >= 1 {
            return (.numbered(n), rest(m))
        }
        return nil
    }
}

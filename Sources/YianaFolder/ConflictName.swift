import Foundation

/// What a file name says about where the file came from: the name of the document it is
/// a copy of, and the marks each sync service (or the app) added, outermost first.
///
/// `docs/CONFLICT-NAMES.md` lists every form with its source. It lives here, not beside the
/// conflict resolver (YianaSync), because the library scanner, the version store and import
/// read these names too.
public struct ConflictName: Sendable, Equatable {
    /// One added part of a name.
    public enum Mark: Sendable, Equatable {
        /// Syncthing: `.sync-conflict-YYYYMMDD-HHMMSS[-DEVICE]`.
        case syncthing(stamp: String, device: String?)
        /// Dropbox: ` (someone's conflicted copy YYYY-MM-DD[ (N)])`, in any client language.
        case dropbox(owner: String?, date: String, counter: Int?)
        /// Nextcloud and ownCloud 2.5+: ` (conflicted copy [user ]YYYY-MM-DD HHMMSS)`, and
        /// Nextcloud's ` (case clash from YYYY-MM-DD HHMMSS)`.
        case nextcloud(user: String?, stamp: String)
        /// Older Nextcloud and ownCloud clients: `_conflict-[user-]YYYYMMDD-HHMMSS`.
        case nextcloudLegacy(stamp: String)
        /// unison `-copyonconflict`: ` (conflict_on_YYYY-MM-DD)`.
        case unison(date: String)
        /// rclone bisync: `..path1`/`..path2` after the extension (before v1.66), `.conflictN`
        /// after it or, with `--suffix-keep-extension`, before it, `.path1`/`.path2` with
        /// `--conflict-loser pathname`.
        case rclone(side: String)
        /// Seafile: ` (SFConflict [user ]YYYY-MM-DD-HH-MM-SS)`.
        case seafile(user: String?, stamp: String)
        /// Resilio Sync: `.Conflict`, `.ConflictN`.
        case resilio(Int?)
        /// pCloud: `.conflicted`.
        case pcloud
        /// OneDrive: `-HOSTNAME` (Windows), `-hostname-safeBackup-NNNN` (the Linux client).
        /// The bare `-HOSTNAME` form cannot be told from a title, so only the metadata id
        /// makes such a file a copy.
        case oneDrive(host: String, backup: Int?)
        /// Google Drive for desktop: `_conf(N)`.
        case googleDrive(Int)
        /// ` (N)`: Google Drive, OneDrive, Box and MEGA give a second file of one name this
        /// suffix; only the metadata id tells a copy from a document of that title.
        case parenthesized(Int)
        /// ` N`: iCloud Drive's conflict copy, or the app's own numbering of a new
        /// document with the same title; only the metadata id tells them apart.
        case numbered(Int)
        /// ` Copy` or ` Copy N`: the app's Duplicate command (same id, on purpose).
        case appCopy(Int?)

        /// True for marks only a sync service makes (not the app's own naming, and not a
        /// form a title could have).
        public var isSyncConflict: Bool {
            switch self {
            case .syncthing, .dropbox, .nextcloud, .nextcloudLegacy, .unison, .rclone, .seafile, .resilio, .pcloud, .googleDrive: true
            case .oneDrive(_, let backup): backup != nil
            case .parenthesized, .numbered, .appCopy: false
            }
        }

        /// Which service made it, for people ("unison conflict 2026-11-23").
        public var description: String {
            switch self {
            case .syncthing(let stamp, let device): "Syncthing conflict \(stamp)\(device.map { " from \($0)" } ?? "")"
            case .dropbox(let owner, let date, let counter): "Dropbox conflicted copy\(owner.map { " by \($0)" } ?? "") \(date)\(counter.map { " (\($0))" } ?? "")"
            case .nextcloud(let user, let stamp): "Nextcloud conflicted copy\(user.map { " by \($0)" } ?? "") \(stamp)"
            case .nextcloudLegacy(let stamp): "Nextcloud conflict \(stamp)"
            case .unison(let date): "unison conflict \(date)"
            case .rclone(let side): "rclone bisync conflict (\(side))"
            case .seafile(let user, let stamp): "Seafile conflict\(user.map { " by \($0)" } ?? "") \(stamp)"
            case .resilio(let n): "Resilio conflict\(n.map { " \($0)" } ?? "")"
            case .pcloud: "pCloud conflicted copy"
            case .oneDrive(let host, let backup): "OneDrive copy from \(host)\(backup.map { " (safe backup \($0))" } ?? "")"
            case .googleDrive(let n): "Google Drive conflict \(n)"
            case .parenthesized(let n): "(\(n)): a second file of the same name (Google Drive, OneDrive, Box, MEGA)"
            case .numbered(let n): "numbered \(n) (iCloud conflict or the app's numbering)"
            case .appCopy(let n): "the app's Duplicate\(n.map { " \($0)" } ?? "")"
            }
        }

        /// A short label for a title ("2026-11-23", "path1").
        public var shortLabel: String {
            switch self {
            case .syncthing(let stamp, _): String(stamp.prefix(8))
            case .dropbox(let owner, let date, _): owner.map { "\($0) \(date)" } ?? date
            case .nextcloud(_, let stamp), .seafile(_, let stamp): String(stamp.prefix(10))
            case .nextcloudLegacy(let stamp): String(stamp.prefix(8))
            case .unison(let date): date
            case .rclone(let side): side
            case .resilio(let n): "Resilio\(n.map { " \($0)" } ?? "")"
            case .pcloud: "pCloud"
            case .oneDrive(let host, _): host
            case .googleDrive(let n), .parenthesized(let n), .numbered(let n): "\(n)"
            case .appCopy: "copy"
            }
        }
    }

    /// The document's own file name, every mark removed (`Report.yianazip`).
    public let original: String
    /// The marks, outermost (added last) first.
    public let marks: [Mark]
    /// The name with the sync services' marks taken off from the outside, up to the first
    /// mark that is not one (`Letter 2.sync-conflict-20260301-142233-ABCDEF7.json` is a copy
    /// of `Letter 2.json`, where ``original`` is `Letter.json`).
    public let withoutSyncMarks: String

    /// Reads `fileName` (`Report (Bob's conflicted copy 2026-03-01).yianazip`), removing
    /// marks from the outside in so that conflicts of conflicts unstack. Marks some services
    /// put after the extension (`Report.yianazip..path1`) come off first.
    public init(fileName: String) {
        self.init(fileName: fileName, screened: true)
    }

    /// `screened: false` runs every pattern on every name, for tests that check the screen
    /// (``Pattern/mightMatch(_:)``) never changes an answer.
    init(fileName: String, screened: Bool) {
        var name = fileName
        var marks: [Mark] = []
        var withoutSyncMarks = fileName
        while let (mark, rest) = Self.outermostMark(of: name, patterns: Self.afterExtension, screened: screened), !rest.isEmpty {
            marks.append(mark)
            name = rest
            if marks.allSatisfy(\.isSyncConflict) { withoutSyncMarks = name }
        }
        // Nearly every name ends in the document extension, after at least one character:
        // that extension, without bridging the name to NSString.
        let ext = Library.endsInDocumentExtension(name) ? Library.documentExtension : (name as NSString).pathExtension
        var stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
        while let (mark, rest) = Self.outermostMark(of: stem, patterns: Self.beforeExtension, screened: screened), !rest.isEmpty {
            marks.append(mark)
            stem = rest
            if marks.allSatisfy(\.isSyncConflict) { withoutSyncMarks = ext.isEmpty ? stem : "\(stem).\(ext)" }
        }
        original = ext.isEmpty ? stem : "\(stem).\(ext)"
        self.marks = marks
        self.withoutSyncMarks = withoutSyncMarks
    }

    /// False when no sync service's mark can end `fileName` (by the patterns' cheap screens
    /// alone, no regular expression run): its ``withoutSyncMarks`` is then the name itself,
    /// as for most names a walk meets. A true answer only means ``init(fileName:)`` must look.
    public static func mayCarrySyncMark(_ fileName: String) -> Bool {
        var name = fileName
        return name.withUTF8 { utf8 in
            if afterExtension.contains(where: { $0.mightMatch(utf8) }) { return true }
            // The stem: up to the last `.` that does not begin the name (as `pathExtension`).
            let dot = utf8.lastIndex(of: UInt8(ascii: ".")).flatMap { $0 > 0 ? $0 : nil } ?? utf8.count
            let stem = UnsafeBufferPointer(rebasing: utf8[..<dot])
            return beforeExtension.contains { $0.sync && $0.mightMatch(stem) }
        }
    }

    /// True when a sync service (not the app) made this name.
    public var isSyncConflict: Bool { marks.contains { $0.isSyncConflict } }

    /// The marks that tell a sync copy (not the app's numbering, not a possible title).
    public var syncMarkCount: Int { marks.filter(\.isSyncConflict).count }

    // @unchecked: an NSRegularExpression is immutable once made and safe to match from any thread.
    private struct Pattern: @unchecked Sendable {
        let regex: NSRegularExpression
        /// A cheap test every name the pattern matches passes: it holds `literal` and ends in
        /// one of `lastBytes`. Most names fail it for most patterns, and ICU's matching of
        /// a pattern anchored at the end costs microseconds a name.
        let literal: [UInt8]
        /// Indexed by byte: true for the bytes a match can end in.
        let lastBytes: [Bool]
        let make: @Sendable (_ group: (Int) -> String?) -> Mark?
        /// False for the marks a title may end in too (` 2`, ` (1)`, ` Copy`, `-HOST`).
        let sync: Bool

        init(_ regex: NSRegularExpression, needs literal: String, endsIn lastBytes: String, sync: Bool = true,
             _ make: @escaping @Sendable (_ group: (Int) -> String?) -> Mark?) {
            self.regex = regex
            self.sync = sync
            self.literal = Array(literal.utf8)
            var ends = [Bool](repeating: false, count: 256)
            for byte in lastBytes.utf8 { ends[Int(byte)] = true }
            self.lastBytes = ends
            self.make = make
        }

        func mightMatch(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let last = utf8.last, lastBytes[Int(last)], utf8.count >= literal.count else { return false }
            return (0...(utf8.count - literal.count)).contains { start in
                literal.indices.allSatisfy { utf8[start + $0] == literal[$0] }
            }
        }
    }

    private static let digits = "0123456789"
    private static let capitals = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"

    private static func regex(_ pattern: String, _ options: NSRegularExpression.Options = []) -> NSRegularExpression {
        try! NSRegularExpression(pattern: pattern, options: options)
    }

    // Each pattern matches a mark at the very end of what is left of the name.
    private static let afterExtension: [Pattern] = [
        Pattern(regex(#"\.(\.?path[12])$"#), needs: "path", endsIn: "12", { .rclone(side: $0(1)!.replacingOccurrences(of: ".", with: "")) }),
        Pattern(regex(#"\.(conflict\d+)$"#), needs: ".conflict", endsIn: digits, { .rclone(side: $0(1)!) }),
        Pattern(regex(#"\.conflicted$"#), needs: ".conflicted", endsIn: "d", { _ in .pcloud }),
        Pattern(regex(#"\.Conflict(\d*)$"#), needs: ".Conflict", endsIn: "t" + digits, { .resilio(Int($0(1)!)) }),
    ]

    private static let beforeExtension: [Pattern] = [
        Pattern(regex(#"\.sync-conflict-(\d{8}-\d{6})(?:-([A-Z2-7]{0,7}))?$"#), needs: ".sync-conflict-", endsIn: digits + capitals + "-",
         { g in .syncthing(stamp: g(1)!, device: g(2).flatMap { $0.isEmpty ? nil : $0 }) }),
        Pattern(regex(#" \(conflicted copy (?:(.+?) )?(\d{4}-\d{2}-\d{2} \d{6})\)$"#), needs: " (conflicted copy ", endsIn: ")", { .nextcloud(user: $0(1), stamp: $0(2)!) }),
        Pattern(regex(#" \(case clash from (\d{4}-\d{2}-\d{2} \d{6})\)$"#), needs: " (case clash from ", endsIn: ")", { .nextcloud(user: nil, stamp: $0(1)!) }),
        Pattern(regex(#"_conflict-(?:[^.]*?-)?(\d{8}-\d{6})$"#), needs: "_conflict-", endsIn: digits, { .nextcloudLegacy(stamp: $0(1)!) }),
        Pattern(regex(#" \(conflict_on_(\d{4}-\d{2}-\d{2}[^()]*)\)$"#), needs: " (conflict_on_", endsIn: ")", { .unison(date: $0(1)!) }),
        Pattern(regex(#" \(SFConflict (?:(.+?) )?(\d{4}-\d{2}-\d{2}-\d{2}-\d{2}-\d{2})\)$"#), needs: " (SFConflict ", endsIn: ")", { .seafile(user: $0(1), stamp: $0(2)!) }),
        // Dropbox's wording is translated by its clients ("conflicted copy", "Konfliktkopie",
        // "copie en conflit", "copia en conflicto", …): the bracket must hold a conflict word
        // in some language and end in a date, optionally with a counter.
        Pattern(regex(#" \(((?:[^()]|\([^()]*\))*?(?:conflict|konflikt|conflit|conflitt|conflito|konflik|競合|冲突|衝突|충돌|конфликт)(?:[^()]|\([^()]*\))*?) (\d{4}-\d{2}-\d{2})(?: \((\d+)\)| (\d+))?\)$"#, [.caseInsensitive]), needs: " (", endsIn: ")",
         { g in
             let words = g(1) ?? ""
             let owner = words.range(of: "'s ").map { String(words[..<$0.lowerBound]) }
             return .dropbox(owner: owner, date: g(2)!, counter: (g(3) ?? g(4)).flatMap { Int($0) })
         }),
        Pattern(regex(#"\.(\.?path[12])$"#), needs: "path", endsIn: "12", { .rclone(side: $0(1)!.replacingOccurrences(of: ".", with: "")) }),
        Pattern(regex(#"\.(conflict\d+)$"#), needs: ".conflict", endsIn: digits, { .rclone(side: $0(1)!) }),
        Pattern(regex(#"\.conflicted$"#), needs: ".conflicted", endsIn: "d", { _ in .pcloud }),
        Pattern(regex(#"\.Conflict(\d*)$"#), needs: ".Conflict", endsIn: "t" + digits, { .resilio(Int($0(1)!)) }),
        Pattern(regex(#"-([^-./ ]+)-safeBackup-(\d{4})$"#), needs: "-safeBackup-", endsIn: digits, { .oneDrive(host: $0(1)!, backup: Int($0(2)!)) }),
        Pattern(regex(#"_conf\((\d{1,4})\)$"#), needs: "_conf(", endsIn: ")", { g in Int(g(1)!).map { .googleDrive($0) } }),
        Pattern(regex(#" Copy(?: (\d{1,4}))?$"#), needs: " Copy", endsIn: "y" + digits, sync: false, { .appCopy($0(1).flatMap { Int($0) }) }),
        Pattern(regex(#" \((\d{1,4})\)$"#), needs: " (", endsIn: ")", sync: false, { g in Int(g(1)!).flatMap { $0 >= 1 ? .parenthesized($0) : nil } }),
        Pattern(regex(#" (\d{1,3})$"#), needs: " ", endsIn: digits, sync: false, { g in Int(g(1)!).flatMap { $0 >= 1 ? .numbered($0) : nil } }),
        // Windows computer names: upper case, letters and digits, up to 15, with a letter.
        Pattern(regex(#"-((?=[A-Z0-9-]*[A-Z])[A-Z0-9][A-Z0-9-]{1,14})$"#), needs: "-", endsIn: digits + capitals + "-", sync: false, { .oneDrive(host: $0(1)!, backup: nil) }),
    ]

    private static func outermostMark(of text: String, patterns: [Pattern], screened: Bool) -> (Mark, String)? {
        var text = text
        let candidates = text.withUTF8 { utf8 in patterns.filter { !screened || $0.mightMatch(utf8) } }
        guard !candidates.isEmpty else { return nil }
        let range = NSRange(text.startIndex..., in: text)
        for pattern in candidates {
            guard let match = pattern.regex.firstMatch(in: text, range: range) else { continue }
            func group(_ index: Int) -> String? {
                let r = match.range(at: index)
                guard r.location != NSNotFound, let swiftRange = Range(r, in: text) else { return nil }
                return String(text[swiftRange])
            }
            guard let mark = pattern.make(group), let whole = Range(match.range, in: text) else { continue }
            return (mark, String(text[..<whole.lowerBound]))
        }
        return nil
    }
}

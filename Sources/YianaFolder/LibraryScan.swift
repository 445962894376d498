import Foundation

/// Everything a walk of a library found.
public struct LibraryScan: Sendable {
    /// Documents and placeholders, in a stable order.
    public var items: [LibraryItem] = []
    /// Temporary files of interrupted writes (the toolkit's, libzip's, the app's).
    public var leftoverTemps: [URL] = []
    /// What is not the library's: the toolkit's, the app's and sync programs' files.
    public var foreign: [ForeignEntry] = []
    /// Documents a sync program is still writing: its temporary file for them is there.
    public var shadowed: Set<String> = []
    /// What is named like a document but cannot be read as one (``IrregularEntry``).
    public var irregular: [IrregularEntry] = []
    /// Symbolic links not named like documents (to folders, say): not followed.
    public var unfollowedLinks: [String] = []
    /// The app's companion files (`.addresses/`, `.letters/`, the work list), in no particular order.
    public var companions: [CompanionFile] = []
    /// Every folder walked (relative to the library, `""` for its root) with its modification
    /// time in nanoseconds, taken before it was listed: a folder whose time differs later has
    /// had a file added, removed or renamed since (the search index's ``freshness``).
    public var folders: [String: Int64] = [:]
    /// When (the clock, nanoseconds since 1970) the scan began taking its folders' times:
    /// what it found of them holds as of then (``Keeper``'s record of the folders). Set by
    /// whoever made the whole scan, not by ``append(_:items:)``; nil when not known.
    public var listedAt: Int64?
    /// What changed since the previous scan of the same ``LibraryScanCache`` (a watcher's
    /// pass); nil when that is not known, and every item is to be compared.
    public var changes: ScanChanges?
    /// Set (to `[]`) for a listing of one folder (``LibraryScanner/shallow(_:library:)``): the
    /// sub-folders found are collected here, not walked.
    var unwalked: [URL]?

    public init() {}

    /// Adds what `other` found after what this scan found.
    /// `items`: false to leave `other`'s items out (the caller puts them in).
    public mutating func append(_ other: LibraryScan, items withItems: Bool = true) {
        if withItems { items += other.items }
        leftoverTemps += other.leftoverTemps
        foreign += other.foreign
        shadowed.formUnion(other.shadowed)
        irregular += other.irregular
        unfollowedLinks += other.unfollowedLinks
        companions += other.companions
        folders.merge(other.folders) { first, _ in first }
    }

    /// One sentence per kind of foreign entry that matters to a person ("Syncthing keeps 3
    /// old versions of documents in .stversions").
    public var notes: [String] {
        linkNotes + Dictionary(grouping: foreign, by: \.kind).sorted { $0.key.rawValue < $1.key.rawValue }.compactMap { kind, entries in
            let documents = entries.reduce(0) { $0 + $1.documents }
            let places = entries.map(\.path).sorted().prefix(3).joined(separator: ", ") + (entries.count > 3 ? ", …" : "")
            switch kind {
            case .syncthingVersions, .appBackups, .megaDebris, .trash:
                return documents == 0 ? nil : "\(places): \(kind.label) hold \(documents) old cop\(documents == 1 ? "y" : "ies") of documents; not part of the library, not checked."
            case .syncthingTemp, .unisonTemp, .rclonePartial, .resilioTemp:
                return "\(kind.label): \(entries.count) (\(places)); a sync is under way."
            default:
                return nil
            }
        }
    }
}

/// What changed between two scans of a library.
public struct ScanChanges: Sendable {
    /// The documents (relative paths) whose items were added, removed or changed, and those
    /// the caller asked to have looked at again.
    public var paths: Set<String> = []
    /// The items, as they are now, of those still here.
    public var items: [LibraryItem] = []

    public init() {}
}

extension LibraryScan {
    private var linkNotes: [String] {
        guard !unfollowedLinks.isEmpty else { return [] }
        let places = unfollowedLinks.sorted().prefix(3).joined(separator: ", ") + (unfollowedLinks.count > 3 ? ", …" : "")
        return ["\(unfollowedLinks.count) symbolic link\(unfollowedLinks.count == 1 ? "" : "s") not followed (\(places)): yiana never follows links; what they point to is not checked."]
    }
}

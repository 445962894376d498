import Foundation
import YianaSystem

/// How the keeper holds a state's bytes.
public enum KeeperMode: String, Codable, Sendable {
    /// A second name of the document's own file (a hard link): no bytes copied. Every writer
    /// the toolkit knows replaces a document by renaming a new file over it, so the linked
    /// file keeps the old bytes.
    case link
    /// A copy sharing the document's data blocks (`FICLONE`, Btrfs and XFS): no bytes copied,
    /// and a write in place to the document leaves it as it was.
    case reflink
    /// A copy of the bytes.
    case copy
}

/// A state of a document this machine saw: its bytes (by SHA-256), where and when.
public struct KeptState: Sendable, Equatable {
    public let sha256: String
    public let size: UInt64
    /// The document's file when it was seen (inode, size, modification time).
    public let stamp: FileStamp
    /// Where it was, relative to the library.
    public let path: String
    public let seenAt: Date
    public let documentID: String?
    public let title: String?
    /// "seen here", or why else it was kept ("replaced by restoring version …").
    public let reason: String
    /// How this state's bytes were put in the store, when it was this state that put them
    /// there (a later state of the same bytes reuses them): and the modification time they
    /// took there (a link's is the document's).
    var placed: Placement? = nil

    struct Placement: Sendable, Equatable {
        let how: KeeperMode
        let modified: Int64
    }

    /// False for bytes kept that are not a document (they have no metadata id).
    public var isDocument: Bool { documentID != nil }
}

/// What a path of the library was when the keeper last looked.
enum KeeperPathState: Sendable, Equatable {
    /// A document, whose bytes are the state at this index of ``KeeperCatalog/states``.
    case document(Int)
    /// Bytes that are not a document (garbage, zero length, truncated), since `at`.
    case notDocument(FileStamp, at: Date)
    /// Nothing, since `at`; last seen at `lastSeen`.
    case gone(at: Date, lastSeen: Date)
}

/// The keeper's journal replayed: every object, every state seen, and what each path was
/// at the last look.
struct KeeperCatalog: Sendable {
    struct Object: Sendable, Equatable {
        let modified: Int64
        let how: KeeperMode
    }

    var objects: [String: Object] = [:]
    var states: [KeptState] = []
    /// Each path's latest state, bad bytes or absence.
    var paths: [String: KeeperPathState] = [:]
    /// The newest document state seen at each path (an index into ``states``).
    var lastDocument: [String: Int] = [:]
    /// The last time each path was seen holding something (a document or not).
    var lastSeen: [String: Date] = [:]
    /// The journal as read.
    var events: [KeeperEvent] = []
    /// Kept up as events are applied, so that what a look, a count or the alarm asks costs
    /// what changed, not the history (``KeeperCatalog+Derived.swift``).
    var derived = Derived()

    init(_ events: [KeeperEvent]) {
        self.events = events
        for event in events { apply(event) }
        settle()
    }

    /// Applies `event`; what ``settle()`` recounts may then be stale until it is called.
    mutating func apply(_ event: KeeperEvent) {
        switch event {
        case .state(let state):
            if let placed = state.placed {
                if derived.dropped.contains(state.sha256) { derived.recount = true }  // bytes dropped once are back
                objects[state.sha256] = Object(modified: placed.modified, how: placed.how)
            }
            states.append(state)
            // Bytes kept that are not a document (what a restore replaced) are listed, never current.
            guard state.isDocument else { return }
            counted(state)
            set(state.path, .document(states.count - 1))
            lastDocument[state.path] = states.count - 1
            lastSeen[state.path] = max(lastSeen[state.path] ?? .distantPast, state.seenAt)
        case .notDocument(let at, let stamp, let path):
            if case .notDocument(let old, let since) = paths[path], old == stamp {
                set(path, .notDocument(stamp, at: since))
            } else {
                set(path, .notDocument(stamp, at: at))
            }
            lastSeen[path] = max(lastSeen[path] ?? .distantPast, at)
        case .gone(let at, let lastSeen, let path):
            if case .gone = paths[path] { return }
            set(path, .gone(at: at, lastSeen: lastSeen))
        case .dropped(_, let sha256, _):
            objects[sha256] = nil
            derived.dropped.insert(sha256)
            derived.recount = true
        }
    }

    static let changedInPlace = "changed in place"

    /// The file each present path was last seen as (a document or not), to tell what changed.
    func stamp(of path: String) -> FileStamp? {
        switch paths[path] {
        case .document(let index): states[index].stamp
        case .notDocument(let stamp, _): stamp
        default: nil
        }
    }

    /// The newest document state seen at `path`.
    func lastDocumentState(of path: String) -> KeptState? {
        lastDocument[path].map { states[$0] }
    }

    /// True when a state's bytes are still in the store (not dropped, not found damaged).
    func isKept(_ state: KeptState) -> Bool {
        objects[state.sha256] != nil
    }

    /// The states kept of `path` (and, with `documentID`, of that document wherever it
    /// was), oldest first.
    func states(path: String?, documentID: String?) -> [KeptState] {
        states.filter { state in
            isKept(state) && ((path != nil && state.path == path) || (documentID != nil && state.documentID == documentID))
        }
    }
}

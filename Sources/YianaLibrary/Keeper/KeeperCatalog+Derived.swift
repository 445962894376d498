import Foundation

/// What the keeper's looks, counts and alarm ask of the catalog, kept up event by event:
/// which bytes and ids the library holds now, which paths are gone, where each id was first
/// seen, and how many states are kept. Asking costs what is asked about (a path, the paths
/// gone), never a walk of the history. The tests compare it with counting from the events.
extension KeeperCatalog {
    /// Where a document id was first seen: at one path (nearly every id), or at several.
    enum Sightings: Sendable, Equatable {
        case one(String, Date)
        case many([String: Date])
    }

    struct Derived: Sendable, Equatable {
        /// The paths holding a document now, counted by its bytes and by its id.
        var presentContent: [String: Int] = [:]
        var presentIDs: [String: Int] = [:]
        /// The paths gone, or holding bytes that are not a document.
        var absent: Set<String> = []
        /// Where each id was first seen, path by path.
        var firstSeen: [String: Sightings] = [:]
        /// The document states whose bytes are kept, and the documents (by id, else path) they are of.
        var keptStates = 0
        var keptDocuments: Set<String> = []
        /// Objects dropped (a later state may bring their bytes back), and whether the kept
        /// states must be counted again (``KeeperCatalog/settle()``).
        var dropped: Set<String> = []
        var recount = false
    }

    /// Sets a path's state, and what is derived from it.
    mutating func set(_ path: String, _ new: KeeperPathState) {
        switch paths.updateValue(new, forKey: path) {
        case .document(let index)?:
            let old = states[index]
            Self.decrement(&derived.presentContent, old.sha256)
            if let id = old.documentID { Self.decrement(&derived.presentIDs, id) }
        case nil:
            break
        default:
            derived.absent.remove(path)
        }
        if case .document(let index) = new {
            let state = states[index]
            derived.presentContent[state.sha256, default: 0] += 1
            if let id = state.documentID { derived.presentIDs[id, default: 0] += 1 }
        } else {
            derived.absent.insert(path)
        }
    }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        if let count = counts[key], count > 1 { counts[key] = count - 1 } else { counts[key] = nil }
    }

    /// A document state applied: where its id was first seen, and whether its bytes are kept.
    mutating func counted(_ state: KeptState) {
        if let id = state.documentID {
            switch derived.firstSeen.removeValue(forKey: id) {
            case nil:
                derived.firstSeen[id] = .one(state.path, state.seenAt)
            case .one(let path, let at)?:
                derived.firstSeen[id] = path == state.path ? .one(path, min(at, state.seenAt)) : .many([path: at, state.path: state.seenAt])
            case .many(var sightings)?:
                sightings[state.path] = min(sightings[state.path] ?? .distantFuture, state.seenAt)
                derived.firstSeen[id] = .many(sightings)
            }
        }
        if objects[state.sha256] != nil {
            derived.keptStates += 1
            derived.keptDocuments.insert(state.documentID ?? state.path)
        }
    }

    /// Counts the kept states again once bytes were dropped (or came back).
    mutating func settle() {
        guard derived.recount else { return }
        derived.recount = false
        derived.keptStates = 0
        derived.keptDocuments = []
        for state in states where state.isDocument && objects[state.sha256] != nil {
            derived.keptStates += 1
            derived.keptDocuments.insert(state.documentID ?? state.path)
        }
    }

    /// How many paths hold a document now (every other path is ``Derived/absent``).
    var holding: Int { paths.count - derived.absent.count }

    /// True when `path` held something (a document or other bytes) at the last look.
    func holdsSomething(at path: String) -> Bool {
        switch paths[path] {
        case .document?, .notDocument?: true
        case .gone?, nil: false
        }
    }

    /// True when the last document state seen at `path` is held by a path now, by its bytes
    /// or its id (it was moved or renamed).
    func heldElsewhere(lastStateOf path: String) -> Bool {
        guard let state = lastDocumentState(of: path) else { return false }
        return derived.presentContent[state.sha256] != nil || state.documentID.map { derived.presentIDs[$0] != nil } == true
    }

    /// True when `path` is gone because its document left it for another (a move or a
    /// rename, by a command of this machine's or by sync): its id was first seen at another
    /// path no earlier than it was last seen at this one. A document moved, then deleted, is
    /// lost once, at its last path; a copy made while the original was still there does not
    /// hide the original.
    func movedAway(_ path: String) -> Bool {
        guard case .gone(_, let lastSeen) = paths[path], let id = lastDocumentState(of: path)?.documentID else { return false }
        switch derived.firstSeen[id] {
        case .one(let other, let at)?: return other != path && at >= lastSeen
        case .many(let sightings)?: return sightings.contains { $0.key != path && $0.value >= lastSeen }
        case nil: return false
        }
    }

    /// The paths ``movedAway(_:)``.
    func movedAway() -> Set<String> {
        derived.absent.filter(movedAway)
    }
}

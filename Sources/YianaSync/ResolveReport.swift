import Foundation
import YianaArchive
import YianaLibrary

/// How conflict copies are resolved.
public enum ResolveStrategy: String, Codable, Sendable, CaseIterable {
    /// The causally newest copy wins (then the newest `modified`, then the path); the others
    /// go to the version store.
    case newest
    /// Every conflict copy becomes a document of its own, with a new id and a readable name.
    case keepBoth = "keep-both"
    /// A three-way merge of the metadata; a PDF changed on both sides is never dropped: the
    /// other one becomes a document of its own.
    case merge
}

public struct ResolveOptions: Sendable {
    public var strategy: ResolveStrategy
    /// Say what would happen; change nothing.
    public var dryRun = false
    /// Give copies made by the app's Duplicate command an id of their own.
    public var reassignIDs = false
    /// Collapse only the copies identical to their document (`yiana watch --resolve
    /// identical`); diverged copies and duplicates are left as they are.
    public var identicalOnly = false
    /// Download evicted copies (from the library's cloud store) so their groups can be resolved.
    public var downloadEvicted = false
    /// Only the groups these documents (paths relative to the library) belong to; empty: all.
    public var documents: [String] = []
    /// Seconds a file must have been left alone before its group is resolved (``Arrival``);
    /// 0 resolves groups with files still arriving too (`--now`).
    public var settle = Arrival.defaultWindow

    public init(strategy: ResolveStrategy) {
        self.strategy = strategy
    }
}

/// What resolving did (or, with `dryRun`, would do).
public struct ResolveReport: Codable, Sendable {
    public struct Step: Codable, Sendable {
        /// `collapse-identical`, `remove-older`, `replace-original`, `remove-copy`,
        /// `new-document`, `reassign-id`, `merge-metadata`.
        public let action: String
        public let path: String
        public let detail: String
        /// The version-store id the replaced or removed bytes were kept as.
        public var keptAs: String?
    }

    public struct Resolution: Codable, Sendable {
        public let documentID: String
        public let original: String
        public let strategy: String
        public var winner: String?
        public var steps: [Step] = []
        /// Metadata fields both sides changed, and which value was kept.
        public var overruled: [String] = []
    }

    public struct Skipped: Codable, Sendable {
        public let path: String
        public let reason: String
    }

    public var resolutions: [Resolution] = []
    public var skipped: [Skipped] = []
    /// Groups whose resolution stopped on an error (another process changed a file, a
    /// disk error): what was done before it is kept; running resolve again goes on.
    public var failed: [Skipped] = []
    public var dryRun = false

    public init(dryRun: Bool = false) {
        self.dryRun = dryRun
    }
}

/// One line of the resolutions log (each device's `.yiana/devices/<id>/resolutions.jsonl`):
/// every decision, for the record.
public struct ResolutionLogEntry: Codable, Sendable {
    public let time: Date
    public let documentID: String
    public let copies: [String]
    public let strategy: String
    public let winner: String?
    /// Each removed or replaced file and the version it is kept as.
    public let kept: [String: String]
    /// Metadata fields both sides changed: the value kept and the other one.
    public var overruled: [String] = []

    /// Every device's decisions (and those earlier versions kept in `.yiana/resolutions.jsonl`).
    public static func log(_ library: Library) -> SharedLog<ResolutionLogEntry> {
        SharedState.log(.resolutions, of: library)
    }
}

import Foundation
import YianaLibrary
import YianaSystem

/// What the box tells its person about: each kind an incident of its own, told once, joined
/// while it grows, and told resolved once its last problem is gone.
public enum IncidentKind: String, CaseIterable, Codable, Sendable {
    /// The keeper's mass-loss alarm: told at once, as a failure.
    case massLoss = "mass-loss"
    /// Documents that arrived damaged (or turned to bytes that are not a document).
    case damaged
    /// Conflict copies waiting for a person for more than an hour.
    case conflicts
    /// Documents whose OCR or extraction keeps failing.
    case failing
    /// The keeper past 90% of its disk budget.
    case keeperFull = "keeper-full"
    /// The search index cannot be used.
    case index

    /// Seconds a problem must have stood before it is told.
    var after: TimeInterval { self == .conflicts ? 3600 : 0 }

    /// More of the same within this many seconds of the last message wait, to be told together.
    static let join: TimeInterval = 3600

    var level: NotifyMessage.Level {
        switch self {
        case .massLoss, .index: .failure
        case .damaged, .failing, .keeperFull: .warning
        case .conflicts: .info
        }
    }

    /// A heading for `count` problems.
    func heading(_ count: Int) -> String {
        let documents = count == 1 ? "1 document" : "\(count) documents"
        switch self {
        case .massLoss: return "documents deleted or overwritten on another device (mass-loss alarm)"
        case .damaged: return "\(documents) damaged on arrival"
        case .conflicts: return count == 1 ? "a conflict copy waiting for over an hour" : "\(count) conflict copies waiting for over an hour"
        case .failing: return "\(documents) that OCR or text extraction keeps failing on"
        case .keeperFull: return "the keeper is nearly full"
        case .index: return "the search index cannot be used"
        }
    }

    /// What it is, in a "resolved" message's title.
    var name: String {
        switch self {
        case .massLoss: "the mass-loss alarm"
        case .damaged: "damaged documents"
        case .conflicts: "conflict copies waiting"
        case .failing: "documents failing OCR or extraction"
        case .keeperFull: "the keeper nearly full"
        case .index: "the search index unusable"
        }
    }

    /// What a person does about it, for the library at `root`.
    func whatToDo(root: String) -> String {
        let library = "--library " + root.shellQuoted
        switch self {
        case .massLoss: return "Every state was kept on this machine. `yiana versions list --deleted \(library)` lists them; the restore command above, without --dry-run, brings them back."
        case .damaged: return "`yiana repair \(library) --dry-run` shows what can be saved; the last good state of each is kept: `yiana versions list --deleted \(library)`."
        case .conflicts: return "`yiana conflicts list \(library)` shows them; `yiana conflicts resolve \(library)` merges them (every byte is kept)."
        case .failing: return "`yiana status \(library)` says why; `yiana ocr \(library) --force PATH` tries one again."
        case .keeperFull: return "`yiana versions prune \(library) --dry-run` shows what pruning would free; or give the keeper more room."
        case .index: return "`yiana index \(library) --full` builds it again."
        }
    }

    /// The serve page that shows it.
    var page: String {
        switch self {
        case .massLoss: "deleted"
        case .conflicts: "conflicts"
        default: "health"
        }
    }
}

/// A problem the watcher sees now: of which kind, where (a document's path, `.` for the
/// library) and what it is.
public struct Observation: Codable, Sendable, Equatable {
    public let kind: IncidentKind
    public let path: String
    public let detail: String

    public init(kind: IncidentKind, path: String, detail: String) {
        self.kind = kind
        self.path = path
        self.detail = detail
    }
}

/// Turns what the watcher sees into messages, once per incident (pure: the state in, the
/// state and the messages out; ``Notifier`` keeps the state).
struct IncidentRules {
    let libraryName: String
    let root: String
    let publicURL: String?

    /// The documents named in one message; the rest are counted.
    static let named = 5

    init(library: Library, publicURL: String?) {
        self.init(libraryName: library.root.lastPathComponent, root: library.root.path, publicURL: publicURL)
    }

    init(libraryName: String, root: String, publicURL: String?) {
        self.libraryName = libraryName
        self.root = root
        self.publicURL = publicURL
    }

    /// `--library ROOT`, quoted for a shell.
    var libraryOption: String { "--library " + root.shellQuoted }

    func messages(for observations: [Observation], state: inout [String: Incident], now: Date) -> [NotifyMessage] {
        var messages: [NotifyMessage] = []
        for kind in IncidentKind.allCases {
            let present = observations.filter { $0.kind == kind }
            var incident = state[kind.rawValue] ?? Incident()
            let paths = Set(present.map(\.path))
            incident.firstSeen = incident.firstSeen.filter { paths.contains($0.key) }
            for path in paths where incident.firstSeen[path] == nil { incident.firstSeen[path] = now }
            incident.toldPaths.formIntersection(paths)
            let due = present.filter { now.timeIntervalSince(incident.firstSeen[$0.path] ?? now) >= kind.after }
            let new = due.filter { !incident.toldPaths.contains($0.path) }
            let joinEnded = incident.told.map { now.timeIntervalSince($0) >= IncidentKind.join } ?? true
            if !new.isEmpty, joinEnded || (kind == .massLoss && !incident.open) {
                messages.append(told(kind, new: new, standing: due.count, now: now))
                incident.told = now
                incident.open = true
                incident.toldPaths.formUnion(new.map(\.path))
            } else if paths.isEmpty, incident.open {
                messages.append(resolved(kind, now: now))
                incident = Incident()
            }
            state[kind.rawValue] = incident.open || !incident.firstSeen.isEmpty ? incident : nil
        }
        return messages
    }

    private func told(_ kind: IncidentKind, new: [Observation], standing: Int, now: Date) -> NotifyMessage {
        var lines: [String] = []
        if kind == .massLoss || kind == .index || kind == .keeperFull {
            lines += new.map(\.detail)
        } else {
            lines += new.prefix(Self.named).map { "- \($0.path): \($0.detail)" }
            if new.count > Self.named { lines.append("- and \(new.count - Self.named) more") }
            if standing > new.count { lines.append("(\(standing) in all, \(standing - new.count) told before)") }
        }
        lines += ["", kind.whatToDo(root: root)]
        if let publicURL { lines.append("Open: \(Self.join(publicURL, kind.page))") }
        lines.append("Library: \(root)")
        let count = kind == .massLoss ? standing : new.count
        return NotifyMessage(incident: kind.rawValue, level: kind.level, title: "\(libraryName): \(kind.heading(count))",
                             body: lines.joined(separator: "\n"), created: now)
    }

    private func resolved(_ kind: IncidentKind, now: Date) -> NotifyMessage {
        let what = kind == .massLoss ? "The mass-loss alarm is lowered (the documents are back, or a person dismissed it)."
                                     : "Nothing of this kind stands any more."
        var lines = [what]
        if let publicURL { lines.append("Open: \(Self.join(publicURL, "health"))") }
        lines.append("Library: \(root)")
        return NotifyMessage(incident: kind.rawValue, level: .success, title: "\(libraryName): resolved: \(kind.name)",
                             body: lines.joined(separator: "\n"), created: now)
    }

    static func join(_ base: String, _ page: String) -> String {
        (base.hasSuffix("/") ? base : base + "/") + page
    }
}

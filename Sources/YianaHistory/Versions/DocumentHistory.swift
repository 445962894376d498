import Foundation
import YianaFolder

/// One step in a document's history: content the toolkit wrote, and what it came from.
public struct HistoryEntry: Codable, Sendable, Equatable {
    public let documentID: String
    /// The content key of what was written (`DocumentReader.contentKey`).
    public let key: String
    /// The content keys it descends from (two or more for a merge).
    public let parents: [String]
    public let at: Date
    /// What wrote it ("import", "merge", "newest", "restore", "append", …).
    public let what: String
    /// For an append: the SHA-256 of the PDF whose pages were added.
    public var source: String? = nil
    /// For an append: the pages they became (`4-6`).
    public var pages: String? = nil
    /// For an append of a rendered letter (`.letters/inject/`): the letter's id.
    public var letter: String? = nil
}

/// The causal history of documents, as the toolkit wrote them on every device: each device
/// appends to its own `.yiana/devices/<id>/history.jsonl` and the history is their union
/// (``SharedLog``), so a merge on one device knows what the other device's edits came from.
///
/// It lets conflict resolution tell a copy that is simply older (an ancestor of the other,
/// an update) from a real conflict (neither descends from the other), without trusting
/// wall clocks. It lives beside the library, not in the archive, because the app reads
/// only the three known entries, and a file the app rewrites simply has no new entries.
public struct DocumentHistory: Sendable {
    package let log: SharedLog<HistoryEntry>

    public init(library: Library) {
        log = SharedState.log(.history, of: library)
    }

    /// Records that `key` was written for `documentID`, descending from `parents`; for an
    /// append, the SHA-256 of the PDF added (`source`) and the pages it became.
    public func record(documentID: String, key: String, parents: [String], what: String, at: Date = Date(),
                       source: String? = nil, pages: String? = nil, letter: String? = nil) throws {
        let parents = parents.filter { $0 != key }
        var entry = HistoryEntry(documentID: documentID, key: key, parents: Array(Set(parents)).sorted(), at: at, what: what)
        entry.source = source
        entry.pages = pages
        entry.letter = letter
        try log.append(entry)
    }

    /// Every step recorded for `documentID` on any device, oldest first.
    public func entries(of documentID: String) -> [HistoryEntry] {
        log.read().filter { $0.documentID == documentID }.sorted { $0.at < $1.at }
    }

    /// The appends of the letter `letter` (its id, any case) to any document, on any device.
    public func appends(ofLetter letter: String) -> [HistoryEntry] {
        log.read().filter { $0.letter?.lowercased() == letter.lowercased() }
    }

    /// The appends to `documentID` of the PDF whose SHA-256 is `source`, on any device.
    public func appends(of source: String, to documentID: String) -> [HistoryEntry] {
        log.read().filter { $0.documentID == documentID && $0.source == source }
    }

    /// True when the history already says that `key` descends from each of `parents`.
    public func knows(_ key: String, descendsFrom parents: [String], documentID: String) -> Bool {
        let known = graph(documentID)[key] ?? []
        return parents.allSatisfy { known.contains($0) || $0 == key }
    }

    /// True when `ancestor` is `key` itself or reachable from it through parents.
    public func isAncestor(_ ancestor: String, of key: String, documentID: String) -> Bool {
        ancestors(of: key, graph: graph(documentID))[ancestor] != nil
    }

    /// The nearest content both `a` and `b` descend from, if the history knows one.
    public func commonAncestor(_ a: String, _ b: String, documentID: String) -> String? {
        let graph = graph(documentID)
        let fromA = ancestors(of: a, graph: graph), fromB = ancestors(of: b, graph: graph)
        return fromA.keys.filter { fromB[$0] != nil }.min { (fromA[$0]! + fromB[$0]!, $0) < (fromA[$1]! + fromB[$1]!, $1) }
    }

    /// What the history says changed from `ancestor` to `key` (one of its descendants): the
    /// appends made on the way (each PDF added and the pages it became, in the order made), and
    /// whether they are all that changed the PDF: a single line of steps, each an append or a
    /// change of the metadata alone (its content key ends as its parent's).
    public func changes(since ancestor: String, to key: String, documentID: String) -> (appends: [HistoryEntry], appendsOnly: Bool) {
        let entries = log.read().filter { $0.documentID == documentID }
        var graph: [String: Set<String>] = [:]
        for entry in entries { graph[entry.key, default: []].formUnion(entry.parents) }
        let since = Set(ancestors(of: key, graph: graph).keys).subtracting(ancestors(of: ancestor, graph: graph).keys)
        var appends: [HistoryEntry] = []
        var seen: Set<String> = []
        let firstPage = { (entry: HistoryEntry) in Int(entry.pages?.split(separator: "-").first ?? "") ?? 0 }
        for entry in entries.sorted(by: { ($0.at, firstPage($0)) < ($1.at, firstPage($1)) }) where entry.what == "append" && since.contains(entry.key) {
            // One record per PDF added: a device's record and its synced copy count once.
            guard seen.insert("\(entry.key) \(entry.source ?? "") \(entry.pages ?? "")").inserted else { continue }
            appends.append(entry)
        }
        var appendsOnly = true
        var node = key
        var walked: Set<String> = []
        while node != ancestor, appendsOnly {
            guard walked.insert(node).inserted else { appendsOnly = false; break }
            let parents = graph[node] ?? []
            let steps = entries.filter { $0.key == node }
            guard parents.count == 1, let parent = parents.first else { appendsOnly = false; break }
            let pdfUnchanged = node.split(separator: "-").dropFirst() == parent.split(separator: "-").dropFirst()
            appendsOnly = pdfUnchanged || steps.allSatisfy { $0.what == "append" }
            node = parent
        }
        return (appends, appendsOnly)
    }

    private func graph(_ documentID: String) -> [String: Set<String>] {
        var parents: [String: Set<String>] = [:]
        for entry in log.read() where entry.documentID == documentID {
            parents[entry.key, default: []].formUnion(entry.parents)
        }
        return parents
    }

    /// Every ancestor of `key` (itself included) with its distance.
    private func ancestors(of key: String, graph: [String: Set<String>]) -> [String: Int] {
        var distance = [key: 0]
        var queue = [key]
        while !queue.isEmpty {
            let current = queue.removeFirst()
            for parent in graph[current] ?? [] where distance[parent] == nil {
                distance[parent] = distance[current]! + 1
                queue.append(parent)
            }
        }
        return distance
    }
}

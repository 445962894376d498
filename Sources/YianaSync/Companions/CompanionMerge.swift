import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// One version of a companion file in a conflict: its JSON and when its file was last written.
public struct CompanionVersion: Sendable {
    public let path: String
    public let value: JSONValue
    public let modified: Date

    public init(path: String, value: JSONValue, modified: Date) {
        self.path = path
        self.value = value
        self.modified = modified
    }
}

/// What merging a companion's versions gives: the JSON for the plain name, which version it
/// mostly is, and what a person should know (a removal that may come back, a value overruled).
public struct CompanionMergeResult: Sendable {
    public var value: JSONValue
    /// How it was decided (`merge-corrections`, `union-by-id`, `newest-extraction`, …).
    public var rule: String
    /// The version chosen where one had to be (nil for a union).
    public var winner: String?
    public var notes: [String] = []
}

/// The merge rule of each kind of companion file, on JSON values (unknown keys travel with
/// the objects that hold them). Every version merged is kept in the version store by the
/// caller first; these functions only decide.
public enum CompanionMerge {
    /// Merges `versions` (the plain file's first, when there is one) of a file of `kind`,
    /// three-way against `base` where it is known; nil for a kind with no merge (PDFs).
    public static func merge(_ kind: CompanionKind, _ versions: [CompanionVersion], base: JSONValue?, now: Date) -> CompanionMergeResult? {
        guard !versions.isEmpty else { return nil }
        switch kind {
        case .addressCorrections: return corrections(versions, base: base)
        case .workList: return workList(versions, listKey: "items", now: now)
        case .legacyWorkList: return workList(versions, listKey: "entries", now: now)
        case .addressExtraction: return extraction(versions)
        case .letterDraft, .senderConfig: return byKey(versions, base: base, kind: kind)
        case .renderedLetter, .injectLetter, .unmatchedLetter: return nil
        }
    }

    /// Corrections (`OverridesFile.overrides`): every correction made on any device is kept,
    /// once; one deleted on a device since `base` (the last merge both came from) stays
    /// deleted. Ordered by `override_date`, so the app's "newest correction of a page and
    /// address type" and its in-place edits (`lastIndex`) both land on the newest one.
    static func corrections(_ versions: [CompanionVersion], base: JSONValue?) -> CompanionMergeResult {
        let lists = versions.map { entries($0.value, "overrides") }
        let baseList = base.map { entries($0, "overrides") }
        var merged: [JSONValue] = []
        var notes: [String] = []
        for list in lists {
            for entry in list where !merged.contains(entry) {
                // Deleted since the base on some device: gone from a version that had the base.
                if let baseList, baseList.contains(entry), lists.contains(where: { !$0.contains(entry) }) {
                    notes.append("a correction of page \(describe(entry)) deleted on one device stays deleted")
                    continue
                }
                merged.append(entry)
            }
        }
        let ordered = merged.enumerated().sorted { (date($0.element), $0.offset) < (date($1.element), $1.offset) }.map(\.element)
        if base == nil, lists.contains(where: { $0 != lists[0] }) {
            notes.append("no common version is known: every correction of every copy is kept (a correction deleted on one device comes back; delete it again in the app)")
        }
        var value = newestObject(versions)
        value["overrides"] = .array(ordered)
        return CompanionMergeResult(value: .object(value), rule: base == nil ? "union-of-corrections" : "three-way-corrections", winner: nil, notes: notes)
    }

    /// The work list as the app's own save merges it (WorkListRepository.mergeAndSave):
    /// items by `id`, a later version's item replacing an earlier one's unless only the
    /// earlier has `resolvedFilename`; sorted by `added`, newest first. The union cannot
    /// express a removal: a removed item comes back.
    static func workList(_ versions: [CompanionVersion], listKey: String, now: Date) -> CompanionMergeResult {
        var merged: [String: JSONValue] = [:]
        var order: [String] = []
        for version in versions.sorted(by: { ($0.modified, $0.path) < ($1.modified, $1.path) }) {
            for item in entries(version.value, listKey) {
                guard case .object(let fields) = item, case .string(let id)? = fields["id"] else { continue }
                if let current = merged[id], case .object(let old) = current {
                    let oldHas = old["resolvedFilename"].map { $0 != .null } ?? false
                    let newHas = fields["resolvedFilename"].map { $0 != .null } ?? false
                    if oldHas && !newHas { continue }
                } else {
                    order.append(id)
                }
                merged[id] = item
            }
        }
        let items = order.compactMap { merged[$0] }.enumerated().sorted { a, b in
            let (x, y) = (string(a.element, "added") ?? "", string(b.element, "added") ?? "")
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element)
        var value = newestObject(versions)
        value[listKey] = .array(items)
        value["modified"] = .string(InternetTime.string(now))
        return CompanionMergeResult(value: .object(value), rule: "union-by-id", winner: nil,
                                    notes: ["merged by id as the app merges it; an item removed on one device comes back (remove it again in the app)"])
    }

    /// Extraction results are rebuilt by the app: the newest `extracted_at` stays. Corrections
    /// still kept inside older files (before the app moved them to `.overrides.json`) are
    /// carried over into the winner, so none is lost.
    static func extraction(_ versions: [CompanionVersion]) -> CompanionMergeResult {
        let newest = versions.enumerated().max { a, b in
            (string(a.element.value, "extracted_at") ?? "", a.element.modified, -a.offset)
                < (string(b.element.value, "extracted_at") ?? "", b.element.modified, -b.offset)
        }!.element
        guard case .object(var value) = newest.value else {
            return CompanionMergeResult(value: newest.value, rule: "newest-extraction", winner: newest.path)
        }
        var carried = entries(newest.value, "overrides")
        let before = carried.count
        for version in versions where version.path != newest.path {
            for entry in entries(version.value, "overrides") where !carried.contains(entry) { carried.append(entry) }
        }
        var notes = versions.filter { $0.path != newest.path }.map {
            "\($0.path) is an older extraction: kept in the version store (`yiana versions list`), the app makes it again"
        }
        if carried.count > before {
            value["overrides"] = .array(carried)
            notes.append("\(carried.count - before) correction(s) kept inside an older extraction file carried over")
        }
        return CompanionMergeResult(value: .object(value), rule: "newest-extraction", winner: newest.path, notes: notes)
    }

    /// Drafts and the sender's letterhead: three-way by top-level key where the base is
    /// known (a key changed on one side takes that side's value; on both, the newer file's);
    /// else the newer file stays whole (drafts by their `modified`, else the file's time).
    static func byKey(_ versions: [CompanionVersion], base: JSONValue?, kind: CompanionKind) -> CompanionMergeResult {
        let ordered = versions.sorted { a, b in
            (string(a.value, "modified") ?? "", a.modified, a.path) < (string(b.value, "modified") ?? "", b.modified, b.path)
        }
        let newest = ordered.last!
        guard case .object(let baseFields)? = base, case .object(var merged) = ordered[0].value else {
            let others = ordered.dropLast().map(\.path)
            return CompanionMergeResult(value: newest.value, rule: "newer-stays", winner: newest.path,
                                        notes: others.map { "\($0) is older: kept in the version store (`yiana versions list`), not merged" })
        }
        var notes: [String] = []
        for version in ordered.dropFirst() {
            guard case .object(let fields) = version.value else { continue }
            for key in Set(fields.keys).union(merged.keys).sorted() where fields[key] != merged[key] {
                if fields[key] == baseFields[key] { continue }  // unchanged on this side
                if merged[key] != baseFields[key] { notes.append("\(key): changed on both sides; \(version.path)'s value (the newer) kept") }
                merged[key] = fields[key]
            }
        }
        return CompanionMergeResult(value: .object(merged), rule: "three-way-by-key", winner: nil, notes: notes)
    }

    // MARK: - Helpers

    static func entries(_ value: JSONValue, _ key: String) -> [JSONValue] {
        guard case .object(let object) = value, case .array(let items)? = object[key] else { return [] }
        return items
    }

    static func string(_ value: JSONValue, _ key: String) -> String? {
        guard case .object(let object) = value, case .string(let text)? = object[key] else { return nil }
        return text
    }

    private static func date(_ entry: JSONValue) -> String { string(entry, "override_date") ?? "" }

    private static func describe(_ entry: JSONValue) -> String {
        guard case .object(let object) = entry else { return "?" }
        let page = object["page_number"].map { if case .integer(let n) = $0 { "\(n)" } else { "?" } } ?? "?"
        return "\(page) (\(string(entry, "match_address_type") ?? "?"))"
    }

    /// The top-level keys of the most recently written version (unknown keys included).
    private static func newestObject(_ versions: [CompanionVersion]) -> [String: JSONValue] {
        let newest = versions.max { ($0.modified, $0.path) < ($1.modified, $1.path) }!
        if case .object(let object) = newest.value { return object }
        return [:]
    }

    /// JSON as the app writes its companions: `JSONEncoder` with `.prettyPrinted, .sortedKeys`.
    public static func encode(_ value: JSONValue) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(value)
    }
}

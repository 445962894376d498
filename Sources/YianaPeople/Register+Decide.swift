import Foundation
import YianaLibrary

/// What stops a question to the register or a decision about it.
public enum PeopleError: Error, Equatable, CustomStringConvertible {
    /// No person matches what was asked.
    case notFound(String)
    /// Several people match: a register id or an NHS number tells them apart.
    case ambiguous(String, [String])
    /// Both sides name one person.
    case samePerson(String)
    /// The decision cannot hold (two NHS numbers, say).
    case refused(String)

    public var description: String {
        switch self {
        case .notFound(let query):
            "no person in the register matches \"\(query)\"; `yiana people list` shows who is there (run `yiana index` after new documents)."
        case .ambiguous(let query, let ids):
            "\"\(query)\" matches \(ids.count) people (\(ids.prefix(8).joined(separator: ", "))\(ids.count > 8 ? ", …" : "")); name one by its register id or NHS number."
        case .samePerson(let id):
            "both name the same person (\(id))."
        case .refused(let reason):
            reason
        }
    }
}

extension Register {
    /// The register of `documents` with every decision the library's devices recorded.
    public init(documents: [RegisterDocument], library: Library, ods: ODSDirectory? = nil) {
        self.init(documents: documents, decisions: PeopleDecisions(library: library).read(), ods: ods)
    }

    /// The one person `query` names (``Person/matches(_:)``).
    /// - Throws: ``PeopleError`` when none or several match.
    public func person(_ query: String) throws -> Person {
        let found = people(matching: query)
        guard let first = found.first else { throw PeopleError.notFound(query) }
        guard found.count == 1 else { throw PeopleError.ambiguous(query, found.map(\.id)) }
        return first
    }

    /// Records that the people `a` and `b` name are one (`merge`) or two (`apart`), once the
    /// register made with the decision shows it holds; nothing is recorded otherwise. For
    /// `apart`, `a` and `b` are found as the rules alone make the people (so that the two a
    /// merge joined can be named, by the ids `duplicates` listed).
    /// - Returns: the register with the decision.
    /// - Throws: ``PeopleError``, or an error naming the file the decision could not be written to.
    public static func decide(_ action: PeopleDecision.Action, _ a: String, _ b: String, documents: [RegisterDocument],
                              library: Library, by: String, at: Date = Date()) throws -> Register {
        let decisions = PeopleDecisions(library: library)
        // Two people a merge made one are named apart as they were before it (the ids
        // `duplicates` listed): without the merges.
        let recorded = decisions.read()
        let before = Register(documents: documents, decisions: action == .apart ? recorded.filter { $0.action == .apart } : recorded)
        let (first, second) = (try before.person(a), try before.person(b))
        guard first.id != second.id else { throw PeopleError.samePerson(first.id) }
        let decision = PeopleDecision(action: action, a: first.keys, b: second.keys, at: Self.timestamp(at), by: by)
        let after = Register(documents: documents, decisions: recorded + [decision])
        if let refusal = after.unapplied.first(where: { $0.decision == decision }) {
            throw PeopleError.refused("\(first.id) and \(second.id) cannot be merged: \(refusal.reason).")
        }
        try decisions.record(decision)
        return after
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}

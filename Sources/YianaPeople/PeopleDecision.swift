import Foundation
import YianaLibrary

/// A person's decision about two people of the register: they are one (`merge`) or they are
/// two (`apart`). Kept in the library's shared state (`.yiana/devices/<device>/people.jsonl`),
/// so that every device sees it and a sync program never has two devices write one file; it
/// survives every rebuild of the register, which is made from the documents alone.
///
/// Each side is recorded by its keys (``Person/keys``: the NHS number, name and date of
/// birth, hospital number, or a first mention), not by the register's id, so the decision
/// still finds its people after their documents change. For one pair the newest decision
/// holds: `apart` after `merge` undoes the merge.
public struct PeopleDecision: Sendable, Codable, Equatable {
    public enum Action: String, Sendable, Codable {
        case merge, apart
    }

    public var action: Action
    public var a: [String]
    public var b: [String]
    /// ISO 8601, UTC.
    public var at: String
    /// Who decided: the account, or the user and machine.
    public var by: String

    public init(action: Action, a: [String], b: [String], at: String, by: String) {
        (self.action, self.a, self.b, self.at, self.by) = (action, a, b, at, by)
    }

    /// The pair, the same whichever side is `a`.
    var pair: String {
        let sides = [a.sorted().joined(separator: ","), b.sorted().joined(separator: ",")].sorted()
        return sides.joined(separator: " ")
    }

    /// The newest decision for each pair, oldest first.
    static func current(_ decisions: [PeopleDecision]) -> [PeopleDecision] {
        var newest: [String: PeopleDecision] = [:]
        for decision in decisions where newest[decision.pair].map({ $0.at <= decision.at }) ?? true {
            newest[decision.pair] = decision
        }
        return newest.values.sorted { ($0.at, $0.pair) < ($1.at, $1.pair) }
    }
}

/// The decisions of every device of a library.
public struct PeopleDecisions: Sendable {
    private let log: SharedLog<PeopleDecision>

    public init(library: Library) {
        log = SharedLog(library: library, name: "people.jsonl")
    }

    /// Every device's decisions (the conflict copies sync programs made of them included).
    public func read() -> [PeopleDecision] {
        log.read()
    }

    /// Records `decision` in this device's file.
    /// - Throws: when the library's `.yiana` folder cannot be written, naming the file.
    public func record(_ decision: PeopleDecision) throws {
        try log.append(decision)
    }
}

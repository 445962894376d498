import Foundation
import Testing
@testable import YianaPeople

/// The decisions people record, applied to the register the rules make.
@Suite struct DecisionTests {
    static let documents = [
        document("a.yianazip", patient("Ali Moss", born: "15/05/1995", nhs: IdentityRuleTests.nhs1)),
        document("b.yianazip", patient("Ali M0ss", born: "15/05/1995")),
        document("c.yianazip", patient("Ali Mos", born: "15/05/1995")),
        document("d.yianazip", patient("John Smith", born: "01/06/1950", nhs: IdentityRuleTests.nhs2)),
    ]

    func keys(_ register: Register, _ document: String) -> [String] {
        register.people.first { $0.documents.contains(document) }!.keys
    }

    @Test func mergesJoinInTurnTheNewestForAPairHoldsAndWhatCannotHoldIsSaid() {
        let ruled = Register(documents: Self.documents)
        #expect(ruled.people.count == 4)
        let (a, b, c, d) = (keys(ruled, "a.yianazip"), keys(ruled, "b.yianazip"), keys(ruled, "c.yianazip"), keys(ruled, "d.yianazip"))
        var decisions = [
            PeopleDecision(action: .merge, a: a, b: b, at: "2026-12-01T10:00:00.000Z", by: "ann"),
            PeopleDecision(action: .merge, a: b, b: c, at: "2026-12-01T11:00:00.000Z", by: "ann"),
            PeopleDecision(action: .merge, a: c, b: d, at: "2026-12-01T12:00:00.000Z", by: "bob"),  // two NHS numbers
            PeopleDecision(action: .merge, a: ["nhs:0000000000"], b: d, at: "2026-12-01T13:00:00.000Z", by: "bob"),
        ]
        var register = Register(documents: Self.documents, decisions: decisions)
        #expect(register.people.count == 2)
        #expect(register.people.first { $0.nhsNumber == IdentityRuleTests.nhs1 }?.documents.sorted() == ["a.yianazip", "b.yianazip", "c.yianazip"])
        #expect(register.unapplied.map(\.reason) == ["they hold different NHS numbers, or different numbers of one hospital",
                                                     "one of the two is no longer in the register"])
        #expect(register.duplicates.isEmpty)
        // Apart, later, for the first pair: that merge no longer holds. Without it, b and c no
        // longer hold a's NHS number, and bob's merge of c with d (refused before) now holds.
        decisions.append(PeopleDecision(action: .apart, a: b, b: a, at: "2026-12-02T10:00:00.000Z", by: "ann"))
        register = Register(documents: Self.documents, decisions: decisions.shuffled())
        #expect(register.people.count == 2, "\(register.people.map(\.documents))")
        #expect(register.people.contains { $0.documents.sorted() == ["b.yianazip", "c.yianazip", "d.yianazip"] })
        #expect(register.unapplied.map(\.reason) == ["one of the two is no longer in the register"])
        #expect(register.duplicates.allSatisfy { pair in !Set([pair.a, pair.b]).isSuperset(of: Set(register.people.filter { $0.documents.contains("a.yianazip") || $0.documents.contains("b.yianazip") }.map(\.id))) })
    }
}

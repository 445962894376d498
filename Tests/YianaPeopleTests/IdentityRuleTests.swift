import Foundation
import Testing
import YianaExtract
import YianaFolder
import YianaTestSupport
@testable import YianaPeople

/// A page's patient, for the cases below.
func patient(_ name: String?, born: String? = nil, nhs: String? = nil, mrn: String? = nil, postcode: String? = nil,
             page: Int = 1, source: Mention.Source = .page) -> Mention {
    Mention(page: page, source: source, name: name, dateOfBirth: born.flatMap(PageIdentifiers.date), nhsNumber: nhs,
            hospitalNumbers: mrn.map { [HospitalNumber(value: $0)] } ?? [], postcode: postcode.flatMap(DocumentPeople.postcode))
}

/// A document at `path` whose address files name `patients`.
func document(_ path: String, _ patients: Mention..., modified: Double? = nil) -> RegisterDocument {
    RegisterDocument(path: path, title: String(path.split(separator: "/").last!.dropLast(9)), documentID: "id-\(path)",
                     modified: modified, people: DocumentPeople(patients: patients))
}

/// Each identity rule of docs/PEOPLE.md, case by case.
@Suite struct IdentityRuleTests {
    // Valid NHS numbers (modulus 11).
    static let nhs1 = "9434765919", nhs2 = "9434765870"

    @Test func theSameNHSNumberIsOnePersonWhateverElseDiffers() {
        let register = Register(documents: [
            document("a.yianazip", patient("Eleanor Whitfield", born: "14/03/1952", nhs: Self.nhs1)),
            document("b.yianazip", patient("Eleanor Marsh", born: "14/03/1952", nhs: Self.nhs1)),  // married
        ])
        #expect(register.people.count == 1)
        #expect(register.people[0].documents.sorted() == ["a.yianazip", "b.yianazip"])
        #expect(register.duplicates.isEmpty)
    }

    @Test func twoNHSNumbersAreTwoPeopleWhateverElseMatchesAndAreNotListed() {
        let register = Register(documents: [
            document("a.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs1, postcode: "AB1 2CD")),
            document("b.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs2, postcode: "AB1 2CD")),
        ])
        #expect(register.people.count == 2)
        #expect(register.duplicates.isEmpty)
    }

    @Test func theSameHospitalNumberAndBirthDateIsOnePersonAndADifferentBirthDateTwo() {
        let one = Register(documents: [
            document("a.yianazip", patient("Jo Bloggs", born: "02/02/1980", mrn: "H123456")),
            document("b.yianazip", patient("Joanne Carter", born: "02/02/1980", mrn: "h-123456")),
        ])
        #expect(one.people.count == 1)
        let two = Register(documents: [
            document("a.yianazip", patient("Jo Bloggs", born: "02/02/1980", mrn: "H123456")),
            document("b.yianazip", patient("Joanne Carter", born: "03/02/1981", mrn: "H123456")),
        ])
        #expect(two.people.count == 2)
    }

    @Test func nameAndBirthDateAgreeingIsOnePersonAfterNormalising() {
        let register = Register(documents: [
            document("Whitfield_Eleanor_140352.yianazip"),
            document("scan 1.yianazip", patient("WHITFIELD, Eleanor (Mrs)", born: "14/03/1952")),
            document("scan 2.yianazip", patient("Mrs Éleanor Mary Whitfield", born: "14.03.1952")),
        ])
        #expect(register.people.count == 1, "\(register.people.map(\.name))")
        #expect(register.people.first?.name == "Eleanor Whitfield")
        #expect(register.people.first?.documents.count == 3)
    }

    @Test func lessThanNameAndBirthDateIsNeverMergedButListedWithEvidence() {
        let cases: [(String, Mention, Mention, String)] = [
            ("day and month swapped", patient("Kate Nash", born: "05/12/1990"), patient("Kate Nash", born: "12/05/1990"), "swapped"),
            ("a digit apart", patient("Kate Nash", born: "12/05/1990"), patient("Kate Nash", born: "12/05/1991"), "a digit apart"),
            ("name alone", patient("Kate Nash", born: "12/05/1990"), patient("Kate Nash"), "the same name"),
            ("name and postcode", patient("Kate Nash", born: "12/05/1990", postcode: "AB1 2CD"),
             patient("Kate Nash", born: "01/01/1960", postcode: "ab12cd"), "the same postcode"),
            ("mother and daughter", patient("Eleanor Whitfield", born: "14/03/1952"), patient("Eleanor Whitfield", born: "22/07/1979"), "the same name"),
            ("twins", patient("Amy Jones", born: "01/01/1990"), patient("Beth Jones", born: "01/01/1990"), "the same surname"),
            ("a misread surname", patient("Ali Moss", born: "15/05/1995"), patient("Ali M0ss", born: "15/05/1995"), "a letter or two apart"),
        ]
        for (name, a, b, evidence) in cases {
            let register = Register(documents: [document("a.yianazip", a), document("b.yianazip", b)])
            #expect(register.people.count == 2, "\(name)")
            #expect(register.duplicates.count == 1, "\(name)")
            #expect(register.duplicates.first?.evidence.for.contains { $0.contains(evidence) } == true, "\(name): \(register.duplicates)")
        }
    }

    @Test func aMentionThatLinksTwoPeopleWhoDisagreeJoinsNeither() {
        let register = Register(documents: [
            document("a.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs1)),
            document("b.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs2)),
            document("c.yianazip", patient("John Smith", born: "01/06/1950")),
        ])
        #expect(register.people.count == 3)
        let loose = register.people.first { $0.nhsNumber == nil }!
        #expect(register.duplicates.count == 2)
        #expect(register.duplicates.allSatisfy { $0.a == loose.id || $0.b == loose.id })
        // With one of them only, it joins that one.
        let joined = Register(documents: [
            document("a.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs1)),
            document("c.yianazip", patient("John Smith", born: "01/06/1950")),
        ])
        #expect(joined.people.count == 1)
    }

    /// Two people of one name and birth date, one with an NHS number in Manchester, one without
    /// in Bristol: two, and shown; a letter of hers from Bristol joins the Bristol one, and one
    /// without an address joins neither.
    @Test func theSameNameAndBirthDateInTwoPostcodeAreasAreTwoPeople() {
        let register = Register(documents: [
            document("a.yianazip", patient("Fatima Barraclough", born: "25/10/1945", nhs: Self.nhs1, postcode: "M14 3PR")),
            document("b.yianazip", patient("Fatima Barraclough", born: "25/10/1945", postcode: "BS7 5BH")),
            document("c.yianazip", patient("Fatima Barraclough", born: "25/10/1945", postcode: "BS7 5BH")),
            document("d.yianazip", patient("Fatima Barraclough", born: "25/10/1945")),
        ])
        #expect(register.people.count == 3, "\(register.people.map(\.documents))")
        #expect(register.people.contains { $0.documents.sorted() == ["b.yianazip", "c.yianazip"] })
        #expect(register.people.contains { $0.documents == ["a.yianazip"] })
        #expect(register.duplicates.count >= 2)
        // Moved: her NHS number on letters from both areas makes them one, and a letter with
        // only her name and birth date from either joins her.
        let moved = Register(documents: [
            document("a.yianazip", patient("Fatima Barraclough", born: "25/10/1945", nhs: Self.nhs1, postcode: "M14 3PR")),
            document("b.yianazip", patient("Fatima Barraclough", born: "25/10/1945", nhs: Self.nhs1, postcode: "BS7 5BH")),
            document("c.yianazip", patient("Fatima Barraclough", born: "25/10/1945", postcode: "BS7 5BH")),
        ])
        #expect(moved.people.count == 1)
    }

    @Test func theResultIsTheSameInAnyOrder() {
        var documents = [
            document("a.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs1)),
            document("b.yianazip", patient("John Smith", born: "01/06/1950", nhs: Self.nhs2)),
            document("c.yianazip", patient("John Smith", born: "01/06/1950")),
            document("d.yianazip", patient("John Smith", born: "01/06/1950", mrn: "X1234")),
            document("e.yianazip", patient("Jon Smith", born: "01/06/1950", mrn: "X1234")),
            document("Smith_John_010650.yianazip", patient("J Smith", born: "01/06/1950")),
        ]
        let first = Register(documents: documents)
        var generator = SeededGenerator(seed: 7)
        for _ in 0..<20 {
            documents.shuffle(using: &generator)
            let again = Register(documents: documents)
            #expect(Set(again.people.map { "\($0.id) \($0.documents.sorted())" }) == Set(first.people.map { "\($0.id) \($0.documents.sorted())" }))
        }
        #expect(Set(first.people.map(\.id)).count == first.people.count)
    }

    @Test func aPageOfADocumentNamedForAPatientIsThatPatientUnlessItSaysOtherwise() {
        let register = Register(documents: [
            document("Evans_Mark_180267_copy.yianazip", patient("M Evans", born: "18/02/1967"), patient("Mary Evans", born: "01/01/1940", page: 2)),
        ])
        #expect(register.people.count == 2)
        #expect(register.people.first { $0.name == "Mark Evans" }?.identifiers.first { $0.kind == "name" && $0.value == "M Evans" } != nil)
    }

    @Test func everyIdentifierSaysWhereItCameFrom() {
        let register = Register(documents: [
            document("Whitfield_Eleanor_140352.yianazip", patient("Eleanor Whitfield", born: "14/03/1952", nhs: Self.nhs1, page: 2)),
        ])
        let person = register.people[0]
        #expect(person.identifiers.allSatisfy { !$0.from.isEmpty })
        #expect(person.identifiers.first { $0.kind == "nhs_number" }?.from == [Place(document: "Whitfield_Eleanor_140352.yianazip", page: 2, source: .page)])
        #expect(person.identifiers.first { $0.kind == "name" }?.from.count == 2)
    }
}

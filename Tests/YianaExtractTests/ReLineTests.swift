import Testing
import YianaExtract

/// A `Re:` line as letters write it: its fields after commas with no colons, and its numbers
/// wrapped onto the next line with their labels (issue 76).
@Suite("re lines")
struct ReLineTests {
    let cascade = AddressCascade()

    func patient(_ rows: [[(x: Double, text: String)]]) -> AddressPage? {
        cascade.document("Letter", laidOutPages: [(number: 1, text: LayoutTests.text(rows), words: LayoutTests.page(rows))])
            .first { $0.addressType == "patient" }
    }

    @Test func aReLinesFieldsAfterCommasAndOnItsNextLine() throws {
        let rows = LayoutTests.letterhead + [
            [(50, "Dear Mr Arblaster,")],
            [(50, "Re: O'NEILL, Ruth (Ms), Date of birth 21/05/1956, NHS Number : 943 476")],
            [(50, "5919, K number : K9523845")],
            [(50, "174 Foxglove Drive, Reigate RH2 7AA")],
            [(50, "I saw her in clinic today and we discussed the plan at length with the family.")],
        ]
        let found = try #require(patient(rows))
        #expect(found.patient?.fullName == "Ruth O'Neill" && found.patient?.dateOfBirth == "21/05/1956")
        #expect(found.patient?.mrn == "K9523845" && found.address?.line1 == "174 Foxglove Drive")
    }
}

import Testing
import YianaExtract

/// A `Re:` line as letters write it: its fields after commas with no colons, and its numbers
/// wrapped onto the next line with their labels; an address run on from its label and wrapped
/// under it (issue 76).
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

    /// An address run on from its label whose street's last word wrapped under the label
    /// (`Patient address: 146 Foxglove` / `Drive`): one line again; a first line followed by a
    /// lone street word that cannot be joined is never written.
    @Test func aStreetsLastWordUnderItsLabelJoinsTheFirstLine() throws {
        let rows = LayoutTests.letterhead + [
            [(50, "Patient: Dr Rhys ELLIS-MORGAN"), (300, "Consultant: Professor David")],
            [(50, "Date of birth: 28 December 1995"), (300, "Marsh")],
            [(50, "Patient address: 146 Foxglove"), (300, "Typed by: TR/ak")],
            [(50, "Drive"), (300, "Dictated: 03/04/2026")], [(50, "Reigate")], [(50, "RH2 7AA")],
        ]
        let found = try #require(patient(rows))
        #expect(found.patient?.fullName == "Rhys Ellis-Morgan" && found.address?.line1 == "146 Foxglove Drive" && found.address?.city == "Reigate")
    }
}

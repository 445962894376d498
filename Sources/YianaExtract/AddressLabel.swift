import Foundation

/// An address block: a name on its own line, street lines, a town and a postcode within
/// six lines (an envelope window, a label, a letter's heading), as the app's
/// `LabelExtractor`: the third extractor of the cascade.
struct AddressLabel: Sendable {
    let sectors: PostcodeSectors

    /// First lines that head a letter, not a person.
    private static let headings: [StaticString] = ["dear ", "ref:", "confidential"]
    private static let headingWords: [StaticString] = ["department", "registration", "clearwater", "clinical", "patient", "confidential", "private"]

    /// A line of an address: short, no label, no sentence.
    static func isAddressLine(_ line: String) -> Bool {
        line.count <= 60 && !line.hasBytes(":") && !line.hasSuffix(".") && line.wordCount <= 8
    }

    func extract(_ page: PageLines, number: Int) -> AddressPage? {
        let lines = page.filled
        guard lines.count >= 2 else { return nil }
        let postcodes = lines.map { $0.count <= PageLines.longLine ? TextPatterns.firstPostcode(in: $0) : nil }
        for start in lines.indices {
            let end = min(start + 6, lines.count)
            guard let at = (start..<end).first(where: { postcodes[$0] != nil }), at > start, let postcode = postcodes[at] else { continue }
            let first = lines[start]
            if first.first?.isNumber == true || Self.headings.contains(where: { first.startsWithBytes($0, ignoringCase: true) })
                || Self.headingWords.contains(where: { first.hasBytes($0, ignoringCase: true) }) { continue }
            // Inside another address block (just after its street or its firm's name), a line is its town, no one's name.
            if lines[max(0, start - 2)..<start].contains(where: { ($0.first?.isNumber == true && PeopleText.date(in: $0) == nil) || PeopleText.names(organisationIn: $0) }) {
                continue
            }
            // The first line is a name (or says there is none), never a sentence or a label.
            let placeholder = PeopleText.isPlaceholder(first)
            guard placeholder || PeopleText.looksLikeNameLine(first), let name = placeholder ? "" : PeopleText.personName(first),
                  lines[(start + 1)..<at].allSatisfy(Self.isAddressLine) else { continue }
            // A date of birth just after the postcode, or on a "DOB" line of the block.
            var dateOfBirth = lines[(at + 1)..<min(at + 3, lines.count)].lazy.compactMap(PeopleText.date(in:)).first
            for line in lines[start..<end] where line.hasBytes("dob", ignoringCase: true) || line.hasBytes("date of birth", ignoringCase: true) {
                if let date = PeopleText.date(in: line) { dateOfBirth = date; break }
            }
            var address = AddressPage.Address(lines: Array(lines[(start + 1)..<at]), postcodeLine: lines[at], postcode: postcode, sectors: sectors)
            address.fill(from: sectors)
            return AddressPage(page: number, method: "label", confidence: 0.7, name: name.isEmpty ? nil : name, dateOfBirth: dateOfBirth, address: address)
        }
        return nil
    }
}

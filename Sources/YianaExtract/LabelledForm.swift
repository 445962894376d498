import Foundation

/// A letter or form with labelled fields ("Patient name:", "Date of birth:", "Address:"),
/// as the app's `FormExtractor`: the second extractor of the cascade.
struct LabelledForm: Sendable {
    let sectors: PostcodeSectors

    private static func isNameLabel(_ line: String) -> Bool {
        line.hasBytes("patient name", ignoringCase: true) || line.hasBytes("full name", ignoringCase: true) || line.hasBytes("client name", ignoringCase: true)
            || (line.startsWithBytes("name", ignoringCase: true) && line.hasBytes(":"))
    }

    /// What follows the line's first colon, trimmed.
    private static func afterColon(_ line: String) -> String? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }

    func extract(_ page: PageLines, number: Int) -> AddressPage? {
        let lines = page.lines
        guard let nameAt = lines.firstIndex(where: Self.isNameLabel) else { return nil }
        // The name: after the colon, else on the next line without one.
        var rawName = Self.afterColon(lines[nameAt])
        if rawName == nil {
            rawName = lines[(nameAt + 1)..<min(nameAt + 3, lines.count)].first { !$0.isEmpty && !$0.hasBytes(":") }
        }
        guard let rawName, !rawName.isEmpty else { return nil }
        let name = PeopleText.personName(rawName)
        if name == nil && !PeopleText.isPlaceholder(rawName) { return nil }

        var dateOfBirth: String?
        if let at = lines.firstIndex(where: { $0.hasBytes("date of birth", ignoringCase: true) || $0.hasBytes("dob", ignoringCase: true) }) {
            dateOfBirth = PeopleText.date(in: lines[at]) ?? (at + 1 < lines.count ? PeopleText.date(in: lines[at + 1]) : nil)
        }

        // The address block: after "Address:" up to a line with a colon, a greeting or 6 lines.
        var block: [String] = []
        if let at = lines.firstIndex(where: { $0.hasBytes("address", ignoringCase: true) && $0.hasBytes(":") }) {
            if let value = Self.afterColon(lines[at]) { block.append(value) }
            for line in lines[(at + 1)..<min(at + 7, lines.count)] where !line.isEmpty {
                if line.hasBytes(":") || line.startsWithBytes("dear ", ignoringCase: true) { break }
                block.append(line)
            }
        }
        let postcodeAt = block.firstIndex { TextPatterns.firstPostcode(in: $0) != nil }
        guard let postcode = postcodeAt.flatMap({ TextPatterns.firstPostcode(in: block[$0]) }) ?? TextPatterns.firstPostcode(in: page.text) else { return nil }
        var address = AddressPage.Address(lines: postcodeAt.map { Array(block[..<$0]) } ?? [], postcodeLine: postcodeAt.map { block[$0] },
                                          postcode: postcode, sectors: sectors)
        address.fill(from: sectors)
        return AddressPage(page: number, method: "form", confidence: 0.8, name: name, dateOfBirth: dateOfBirth, address: address)
    }
}

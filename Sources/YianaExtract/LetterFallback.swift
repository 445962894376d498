import Foundation

/// Prose with a postcode somewhere (a clinic letter's "Current address on file:"): a titled
/// name (Mr, Mrs, Ms, Miss, Dr, Prof) and the postcode as anchor, as the app's
/// `FallbackExtractor`: the last extractor of the cascade.
struct LetterFallback: Sendable {
    private static let titledName = Pattern(#"\b(?:Mr|Mrs|Ms|Miss|Dr|Prof)\.?[ \t]+([A-Z][a-z]+(?:[ \t]+[A-Z][a-z]+)+)"#)

    let sectors: PostcodeSectors

    func extract(_ page: PageLines, number: Int) -> AddressPage? {
        guard let postcode = TextPatterns.firstPostcode(in: page.text),
              let match = Self.titledName.first(in: page.text), let name = PeopleText.personName(match[1]) else { return nil }
        // The street lines just above the postcode's line, up to a blank line or a label.
        var lines: [String] = []
        var postcodeLine: String?
        if let at = page.lines.firstIndex(where: { TextPatterns.firstPostcode(in: $0) == postcode }) {
            postcodeLine = page.lines[at]
            var index = at - 1
            while index >= 0, lines.count < 4 {
                let line = page.lines[index]
                if line.isEmpty || line.hasBytes(":") || line.hasSuffix(".") || line.count > 60 { break }
                lines.insert(line, at: 0)
                index -= 1
            }
        }
        var address = AddressPage.Address(lines: lines, postcodeLine: postcodeLine, postcode: postcode, sectors: sectors)
        address.fill(from: sectors)
        return AddressPage(page: number, method: "unstructured", confidence: 0.5, name: name, dateOfBirth: PeopleText.date(in: page.text), address: address)
    }
}

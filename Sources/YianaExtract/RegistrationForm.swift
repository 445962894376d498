import Foundation

/// A hospital's registration form (Spire Healthcare's, and the app's test forms'
/// "Clearwater Medical"): the first extractor of the cascade, as the app's
/// `RegistrationFormExtractor`. OCR reads such a form column by column, so a value is
/// rarely beside its label: the patient's street lines and town come after "Patient name"
/// and before the first "Town"/"County"/"Postcode" label, the county and postcode later.
struct RegistrationForm: Sendable {
    private static let triggers: [(StaticString, StaticString)] = [("Spire Healthcare", "Registration Form"), ("Clearwater Medical", "Registration Form")]
    private static let mrn = [Pattern(#"Patient_?\s*(\d{6,10})"#), Pattern(#"Patient\s*No\.?\s*(\d{6,10})"#)]
    private static let nameBeforeBirth = Pattern(#"([A-Z][a-z]+,\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\s*\n\s*Date of birth"#, [.caseInsensitive])
    private static let nameBeforeDate = Pattern(#"([A-Z][a-z]+,\s*[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)\s*\n\s*(\d{1,2}[./]\d{1,2}[./]\d{4})"#, [.caseInsensitive])
    private static let birth = [Pattern(#"Date of birth\s*\n?\s*(\d{1,2}[./]\d{1,2}[./]\d{4})"#, [.caseInsensitive]),
                                Pattern(#"\b(\d{1,2}[./]\d{1,2}[./]19\d{2})\b"#)]
    private static let phone = Pattern(#"(\d{5}\s*\d{6}|\d{11})"#)
    private static let doctor = Pattern(#"(?:Doctor|Dr|Dostor)\s+([A-Z][\w]*(?:[^\S\n]+[A-Z][\w]*)*)"#)
    private static let gpSection = Pattern(#"GP[ \t]*\n[^\n]*?Address[^\n]*\n((?:(?!Account|Reason)[\s\S]){0,2000})(?:Account|Reason)"#, [.caseInsensitive])
    private static let labels: Set<String> = ["town", "county", "postcode", "post code", "address"]

    let sectors: PostcodeSectors

    func extract(_ page: PageLines, number: Int) -> AddressPage? {
        let text = page.text
        guard Self.triggers.contains(where: { text.hasBytes($0.0) && text.hasBytes($0.1) }),
              let postcode = TextPatterns.firstPostcode(in: text) else { return nil }
        var dateOfBirth: String?
        var name: String?
        if let match = Self.nameBeforeBirth.first(in: text) {
            name = Self.flip(match[1])
        } else if let match = Self.nameBeforeDate.first(in: text) {
            name = Self.flip(match[1])
            dateOfBirth = PeopleText.date(in: match[2])
        }
        guard let name else { return nil }
        if dateOfBirth == nil {
            dateOfBirth = Self.birth.lazy.compactMap { $0.first(in: text).flatMap { PeopleText.date(in: $0[1]) } }.first
        }
        var address = patientAddress(page, postcode: postcode)
        address.fill(from: sectors)
        return AddressPage(page: number, method: "clearwater_form", confidence: 0.9, name: PeopleText.personName(name), dateOfBirth: dateOfBirth,
                           address: address, phones: Self.phones(text), mrn: Self.mrn.lazy.compactMap { $0.first(in: text)?[1] }.first,
                           gp: Self.gp(text))
    }

    /// "Surname, Firstname" → "Firstname Surname".
    private static func flip(_ raw: String) -> String {
        let parts = raw.split(separator: ",", maxSplits: 1)
        guard parts.count == 2 else { return raw.trimmingCharacters(in: .whitespaces) }
        return "\(parts[1].trimmingCharacters(in: .whitespaces)) \(parts[0].trimmingCharacters(in: .whitespaces))"
    }

    /// The street lines and town written under "Patient name" (before the first label),
    /// and the county on the line before the patient's postcode.
    private func patientAddress(_ page: PageLines, postcode: String) -> AddressPage.Address {
        var values: [String] = []
        if let start = page.lines.firstIndex(where: { $0.startsWithBytes("patient name", ignoringCase: true) }) {
            for line in page.lines[(start + 1)...].prefix(12) {
                if Self.labels.contains(line.lowercased()) { break }
                if !line.isEmpty { values.append(line) }
            }
        }
        var address = AddressPage.Address(lines: values, postcodeLine: nil, postcode: postcode, sectors: sectors)
        if let at = page.lines.firstIndex(where: { TextPatterns.firstPostcode(in: $0) == postcode }), at > 0 {
            let before = page.lines[at - 1]
            if !before.isEmpty, !Self.labels.contains(before.lowercased()), !before.contains(where: \.isNumber), before.count <= 40 {
                address.county = before
            }
        }
        return address
    }

    /// The patient's phones: eleven digits before the next of kin and emergency contact,
    /// `07…` a mobile, any other the home number.
    private static func phones(_ text: String) -> AddressPage.Phones? {
        var patientText = Substring(text)
        for marker in ["Next of kin", "Emergency contact", "Telephone no. day"] {
            if let range = text.range(of: marker) { patientText = text[..<range.lowerBound]; break }
        }
        var phones = AddressPage.Phones()
        for match in phone.all(in: String(patientText)) {
            let digits = match[1].replacingOccurrences(of: " ", with: "")
            guard digits.count == 11 else { continue }
            if digits.hasPrefix("07"), phones.mobile == nil { phones.mobile = digits } else if phones.home == nil { phones.home = digits }
            if phones.mobile != nil, phones.home != nil { break }
        }
        return phones == AddressPage.Phones() ? nil : phones
    }

    /// The GP: "Dr" and the name after "Doctor", the practice on the first line after it,
    /// then its address lines and a postcode on a line of its own.
    private static func gp(_ text: String) -> AddressPage.GP? {
        var gp = AddressPage.GP()
        if let match = doctor.first(in: text) { gp.name = "Dr \(match[1].trimmingCharacters(in: .whitespaces))" }
        guard let section = gpSection.first(in: text)?[1] else { return gp }
        var afterDoctor = false
        var lines: [String] = []
        for line in section.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) where !line.isEmpty {
            let lower = line.lowercased()
            if lower.hasPrefix("doctor") || lower.hasPrefix("dr ") || lower.hasPrefix("dostor") { afterDoctor = true; continue }
            guard afterDoctor || gp.name == nil else { continue }
            let skip = ["specialist", "date", "symptoms", "consulted", "reason", "age", "tel"]
            if !skip.contains(where: { lower.contains($0) }) { lines.append(line) }
            if lines.count >= 4 { break }
        }
        guard let practice = lines.first else { return gp }
        gp.practice = practice
        var addressLines: [String] = []
        for line in lines.dropFirst() {
            if let postcode = TextPatterns.firstPostcode(in: line), line.filter({ !$0.isWhitespace }).count <= postcode.count + 1 {
                gp.postcode = postcode
            } else {
                addressLines.append(line)
            }
        }
        gp.address = addressLines.isEmpty ? nil : addressLines.joined(separator: ", ")
        return gp
    }
}

import Foundation

/// The patient a letter is about, as its `Re:` line or its labelled block names them: the
/// app's own (`Re: Mrs Jane Smith. DOB: 12/03/1945. MRN: H123456. Add: 14 Oak Lane Reigate
/// Surrey RH2 7AA. Tel: 01737 123456.`), other hospitals' (`RE: JANE SMITH  D.O.B. 12.03.1945
/// Hospital No: K123456  NHS No: 943 476 5919` with the address on the next line) and
/// labelled ones (`Patient: …`, `Date of birth: …`, `Address: …`). The block's text is its
/// lines joined by line breaks (a justified `Re:` line reads as a word per line).
struct LetterPatientBlock: Sendable, Equatable {
    var name: String?
    var title: String?
    var dateOfBirth: String?
    var mrn: String?
    var nhsNumber: String?
    var phones: AddressPage.Phones?
    var address: AddressPage.Address?
    /// Named by labels (`Patient:`, `Name:`) rather than a `Re:` line: the app's `form` reading.
    var isLabelled = false
    /// The digits after an NHS label that are not yet a whole number.
    private var partialNHS: String?

    enum Label {
        case dateOfBirth, mrn, nhs, address, phone, name, gp
    }

    private static let labels: [(Label, Pattern)] = [
        (.dateOfBirth, Pattern(#"(?<![A-Za-z])(?:D\.?\s?O\.?\s?B|Date\s+of\s+birth|Birth\s+date|Born)\b\.?\s*[:.\-]?\s*"#, [.caseInsensitive])),
        (.nhs, Pattern(#"(?<![A-Za-z])NHS\s*(?:No|Number|Num|#)?\b\.?\s*[:.\-]?\s*"#, [.caseInsensitive])),
        (.mrn, Pattern(#"(?<![A-Za-z])(?:MRN|Hosp(?:ital)?\.?\s*(?:No|Number|Num|ID|Ref)|Unit\s+(?:No|Number)|Patient\s+(?:No|Number|ID)|Case\s+(?:No|Number)|Record\s+(?:No|Number)|Reg(?:istration)?\s+(?:No|Number)|(?!(?:Tel|Fax|Mob|Ref|GOC|NHS|Ph)\s)[A-Z]{2,4}\s+(?:No|Number)(?=\s*:))\b\.?\s*[:.\-]?\s*"#, [.caseInsensitive])),
        (.address, Pattern(#"(?<![A-Za-z])(?:Add|Addr|Address|Home\s+address)\b\.?\s*[:\-]\s*"#, [.caseInsensitive])),
        (.phone, Pattern(#"(?<![A-Za-z])(?:Tel(?:ephone)?(?:\s+No)?|Phone|Mob(?:ile)?|Home\s+(?:tel|phone))\b\.?\s*[:.\-]?\s*(?=[+\d(])"#, [.caseInsensitive])),
        (.name, Pattern(#"(?<![A-Za-z])(?:Patient(?:'s)?\s+name|Name|Patient)\s*:\s*"#, [.caseInsensitive])),
        (.gp, Pattern(#"(?<![A-Za-z])(?:GP|General\s+Practitioner)\s*:\s*"#, [.caseInsensitive])),
    ]

    /// False when `text` has none of the words `label`'s pattern needs: that pattern is not run.
    private static func mayHold(_ label: Label, _ text: String) -> Bool {
        switch label {
        case .dateOfBirth: text.hasBytes("d", ignoringCase: true) && (text.hasBytes("o", ignoringCase: true) || text.hasBytes("birth", ignoringCase: true))
        case .nhs: text.hasBytes("nhs", ignoringCase: true)
        case .mrn: text.hasBytes("mrn", ignoringCase: true) || text.hasBytes("no", ignoringCase: true) || text.hasBytes("number", ignoringCase: true)
            || text.hasBytes("id", ignoringCase: true) || text.hasBytes("ref", ignoringCase: true)
        case .address: text.hasBytes("add", ignoringCase: true)
        case .phone: text.hasBytes("tel", ignoringCase: true) || text.hasBytes("phone", ignoringCase: true) || text.hasBytes("mob", ignoringCase: true)
        case .name: text.hasBytes("name", ignoringCase: true) || text.hasBytes("patient", ignoringCase: true)
        case .gp: text.hasBytes("gp", ignoringCase: true) || text.hasBytes("general", ignoringCase: true)
        }
    }

    /// The block's patient, from `text` that starts after its anchor (`Re:` or a label); nil
    /// when it names no one.
    init?(_ text: String, anchorIsLabel: Bool, sectors: PostcodeSectors, requireName: Bool = true) {
        // Every label, in order, each value running to the next.
        var found: [(label: Label, range: Range<String.Index>)] = []
        for (label, pattern) in Self.labels where Self.mayHold(label, text) {
            for range in pattern.ranges(in: text) where !found.contains(where: { $0.range.overlaps(range) }) {
                found.append((label, range))
            }
        }
        found.sort { $0.range.lowerBound < $1.range.lowerBound }
        var leftovers: [Substring] = []
        let head = text[..<(found.first?.range.lowerBound ?? text.endIndex)]
        if !anchorIsLabel { leftovers.append(contentsOf: assignName(head)) } else { leftovers.append(head) }
        for (index, item) in found.enumerated() {
            let end = index + 1 < found.count ? found[index + 1].range.lowerBound : text.endIndex
            let value = text[item.range.upperBound..<end]
            leftovers.append(assign(item.label, value, sectors: sectors))
        }
        // What no label claimed: an address (a postcode ends it), a date of birth, an NHS number.
        var pending: [Substring] = []
        var orphanDigits: [String] = []
        for piece in leftovers.flatMap({ $0.split(separator: "\n") }) {
            let piece = piece.trimming(" ,.;")
            guard !piece.isEmpty else { continue }
            if address == nil, TextPatterns.firstPostcode(in: piece) != nil {
                pending.append(Substring(piece))
                if let (postcode, before) = TextPatterns.lastPostcode(in: pending.joined(separator: ", ")) {
                    address = OneLineAddress.split(before, postcode: postcode, sectors: sectors)
                }
                pending = []
                continue
            }
            if dateOfBirth == nil, let date = LetterIdentifiers.date(atStartOf: Substring(piece)) { dateOfBirth = date; continue }
            if nhsNumber == nil, let nhs = LetterIdentifiers.nhsNumbers(in: piece).first { nhsNumber = nhs; continue }
            if !piece.contains(where: \.isLetter) {
                orphanDigits.append(piece.filter(\.isNumber))  // a number's part that text extraction put apart
            } else if piece.first?.isNumber == true || AddressLabel.isAddressLine(piece) && !piece.contains(where: \.isNumber) {
                pending.append(Substring(piece))
            }
        }
        // An NHS number whose groups text extraction put on two lines apart (`NHS NO: 492` … `349 7467`):
        // whole again only when the check digit agrees.
        if nhsNumber == nil, let partial = partialNHS, partial.count < 10 {
            for orphan in orphanDigits where partial.count + orphan.count == 10 {
                if let whole = LetterIdentifiers.nhsNumber(atStartOf: Substring(partial + orphan)) { nhsNumber = whole; break }
            }
        }
        guard name != nil || !requireName else { return nil }
        isLabelled = anchorIsLabel
    }

    /// The name at the block's start (`Mrs Jane Smith,` or a word per line); what follows it.
    private mutating func assignName(_ head: Substring) -> [Substring] {
        let lines = head.split(separator: "\n", omittingEmptySubsequences: true)
        var taken: [Substring] = []
        var index = 0
        while index < lines.count {
            let line = lines[index]
            // A name ends at a comma, a dash between words, a bracket or a digit.
            if let stop = line.firstIndex(where: { $0 == "," || $0 == "(" || $0.isNumber }) ?? line.range(of: " - ")?.lowerBound
                ?? line.range(of: " – ")?.lowerBound {
                taken.append(line[..<stop])
                setName(taken)
                return [line[stop...]] + lines[(index + 1)...]
            }
            taken.append(line)
            index += 1
            let words = taken.joined(separator: " ").split(separator: " ").count
            // A justified line reads a word per line: a name goes on while the next line is one word.
            if words >= 2, index < lines.count, lines[index].split(separator: " ").count > 1 || lines[index].contains(where: \.isNumber) { break }
        }
        setName(taken)
        return Array(lines[index...])
    }

    private mutating func setName(_ parts: [Substring]) {
        if let person = LetterNames.person(Substring(parts.joined(separator: " "))) {
            name = person.name
            title = person.title
        }
    }

    /// Takes what `label` gives from `value`; returns the rest.
    private mutating func assign(_ label: Label, _ value: Substring, sectors: PostcodeSectors) -> Substring {
        switch label {
        case .dateOfBirth:
            if dateOfBirth == nil, let date = LetterIdentifiers.date(atStartOf: value) {
                dateOfBirth = date
                let words = value.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(2).map { $0.lowercased() }
                let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
                let wordMonth = words.count == 2 && months.contains(String(words[1].prefix(3))) && words[1].allSatisfy(\.isLetter)
                return Self.afterFirstToken(value, tokens: wordMonth ? 3 : 1)
            }
        case .mrn:
            if mrn == nil, let number = LetterIdentifiers.hospitalNumber(atStartOf: value) {
                mrn = number
                return Self.afterFirstToken(value, tokens: 1)
            }
        case .nhs:
            let digits = value.drop { $0 == " " || $0 == "\n" }.prefix { $0.isNumber || $0 == " " }.filter(\.isNumber)
            if !digits.isEmpty, digits.count < 10 { partialNHS = String(digits) }
            if let number = LetterIdentifiers.nhsNumber(atStartOf: value) {
                nhsNumber = nhsNumber ?? number
                var digits = 0
                let rest = value.drop { character in
                    if digits >= 10 { return false }
                    if character.isNumber { digits += 1 }
                    return character.isNumber || character == " " || character == "-" || character == "\n"
                }
                return rest
            }
        case .address:
            let flat = value.replacingOccurrences(of: "\n", with: " ")
            if address == nil, let span = TextPatterns.postcodeSpans(in: flat, first: true).first {
                let utf8 = flat.utf8
                address = OneLineAddress.split(flat[..<utf8.index(utf8.startIndex, offsetBy: span.bytes.lowerBound)], postcode: span.postcode, sectors: sectors)
                return Substring(flat[utf8.index(utf8.startIndex, offsetBy: span.bytes.upperBound)...])
            }
        case .phone:
            // One number, on its line or broken over two (`Tel: 07266` / `304170.`).
            let line = value.prefix { $0 != "\n" }
            if let (number, rest) = LetterIdentifiers.phone(in: line) {
                addPhone(number)
                return value[rest.startIndex...]
            }
            let joined = String(value.prefix(30)).replacingOccurrences(of: "\n", with: " ")
            if let (number, rest) = LetterIdentifiers.phone(in: Substring(joined)) {
                addPhone(number)
                return value.dropFirst(joined.distance(from: joined.startIndex, to: rest.startIndex))
            }
        case .name:
            if name == nil { return Substring(assignName(value).joined(separator: "\n")) }
        case .gp:
            return ""  // a GP named in the block is read by the letter's cc and addressee, not as the patient
        }
        return value
    }

    private mutating func addPhone(_ number: String) {
        var found = phones ?? AddressPage.Phones()
        if number.hasPrefix("07") {
            found.mobile = found.mobile ?? number
        } else if found.home == nil {
            found.home = number
        } else {
            found.work = found.work ?? number
        }
        phones = found
    }

    /// `value` after its first `tokens` words.
    private static func afterFirstToken(_ value: Substring, tokens: Int) -> Substring {
        var rest = value.drop { $0 == " " || $0 == "\n" }
        for _ in 0..<tokens {
            rest = rest.drop { $0 != " " && $0 != "\n" && $0 != "," }.drop { $0 == " " || $0 == "," }
        }
        return rest
    }
}

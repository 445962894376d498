import Foundation

/// The check every value passes before it is written as a fact about a person (a
/// recogniser is a pattern, a check and its context, as Presidio's NHS number and postcode
/// recognisers are): a name has name words and no label, role, number or date in it; a date
/// of birth is a real date before the letter's; an NHS number passes modulus 11; a postcode
/// is a real one whose sector exists; an address line is no label, date, phone or number.
/// A value that fails is left out, never written; a patient whose name fails is no patient.
struct FactCheck: Sendable {
    let sectors: PostcodeSectors
    private let pageText: String
    private let cache = Cache()
    /// Today, as `DD/MM/YYYY`'s parts.
    let today: (year: Int, month: Int, day: Int)

    /// The page's dates, found when a date of birth is first checked (most pages' text is read for none).
    // @unchecked: a check is made for one page and used on the thread that reads it.
    private final class Cache: @unchecked Sendable {
        var dates: [String]?
    }

    init(sectors: PostcodeSectors, pageText: String, now: Date = Date()) {
        self.sectors = sectors
        self.pageText = pageText
        today = Self.civil(daysSince1970: Int((now.timeIntervalSince1970 / 86_400).rounded(.down)))
    }

    /// The UTC calendar date `days` after 1 January 1970 (Howard Hinnant's `civil_from_days`):
    /// a page's check needs no `Calendar`.
    static func civil(daysSince1970 days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The dates the page gives (its letter's date among them).
    var pageDates: [String] {
        if let dates = cache.dates { return dates }
        let dates = Self.dates(in: pageText)
        cache.dates = dates
        return dates
    }

    private static let datePattern = Pattern(#"(?<![\d/.\-])(?:\d{1,2}[/.\-]\d{1,2}[/.\-]\d{2,4}|\d{4}-\d{2}-\d{2}|\d{1,2}(?:st|nd|rd|th)?[ \-](?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?[ \-,]+\d{4})(?![\d])"#)

    /// Every date written in `text`, as `DD/MM/YYYY`.
    static func dates(in text: String) -> [String] {
        guard text.utf8.contains(where: TextPatterns.isDigit) else { return [] }
        // The pattern is run over the lines with four digits or more alone (a date has as many; a letter's prose, none).
        var dated: [Substring] = []
        var start = text.utf8.startIndex, digits = 0
        for index in text.utf8.indices {
            let byte = text.utf8[index]
            if byte == 0x0A {
                if digits >= 4 { dated.append(text[start..<index]) }
                start = text.utf8.index(after: index)
                digits = 0
            } else if TextPatterns.isDigit(byte) {
                digits += 1
            }
        }
        if digits >= 4 { dated.append(text[start...]) }
        return datePattern.all(in: dated.joined(separator: "\n")).compactMap { match in
            // `12th March 2026` is `12 March 2026`; most dates have no such ending, and are not searched for one.
            let date = match[0].utf8.count > 10 && match[0].utf8.first.map(TextPatterns.isDigit) == true && match[0].utf8.dropFirst().prefix(2).contains(where: TextPatterns.isLetter)
                ? match[0].replacingOccurrences(of: #"(\d)(st|nd|rd|th)"#, with: "$1", options: .regularExpression) : match[0]
            return LetterIdentifiers.date(atStartOf: Substring(date))
        }
    }

    /// `DD/MM/YYYY` as a number that orders dates.
    static func ordinal(_ date: String) -> Int? {
        let parts = date.split(separator: "/").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return parts[2] * 10_000 + parts[1] * 100 + parts[0]
    }

    /// A real date, not before 1890 nor after today, and before the letter's: when the page
    /// gives other dates, one of them is later (a "date of birth" that is the page's latest
    /// date is the letter's or the clinic's).
    func isDateOfBirth(_ date: String) -> Bool {
        guard let value = Self.ordinal(date), value >= 1890_01_01, value <= today.year * 10_000 + today.month * 100 + today.day else { return false }
        let others = pageDates.compactMap(Self.ordinal).filter { $0 != value }
        return others.isEmpty || others.contains { $0 > value }
    }

    /// Ten digits whose modulus-11 check digit holds.
    static func isNHSNumber(_ number: String) -> Bool {
        let digits = number.utf8.filter(TextPatterns.isDigit).map { $0 - 0x30 }
        return number.utf8.allSatisfy { TextPatterns.isDigit($0) || $0 == 0x20 } && LetterIdentifiers.isValidNHS(digits)
    }

    /// A hospital number: 4 to 16 letters and digits with a digit among them, and no date, phone or NHS number.
    static func isHospitalNumber(_ number: String, nhs: String?) -> Bool {
        let digits = number.filter(\.isNumber)
        guard (4...16).contains(number.count), !digits.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return false }
        if let nhs, nhs.filter(\.isNumber) == digits { return false }
        if digits.count == 11, digits.hasPrefix("0"), digits.count == number.count { return false }  // a phone
        return PeopleText.date(in: number) == nil
    }

    /// A UK postcode in its written form whose sector the table knows; one of an area beyond
    /// the table (Scotland, Northern Ireland, the islands) passes on its form alone, and so
    /// does any with `formOnly` (the app's own rules, which keep what has a postcode's form).
    func isPostcode(_ postcode: String, formOnly: Bool = false) -> Bool {
        guard TextPatterns.firstPostcode(in: postcode) == postcode else { return false }
        guard !formOnly else { return true }
        guard sectors.count > 0, let sector = PostcodeSectors.sector(of: postcode) else { return true }
        if sectors.place(of: postcode) != nil { return true }
        let area = String(sector.prefix { $0.isLetter })
        return !sectors.holdsArea(area) && Self.areasBeyondTheTable.contains(area)
    }

    /// The postcode areas of Scotland, Northern Ireland, the Channel Islands and the Isle of
    /// Man, which the table (England and Wales) does not hold: a postcode of any other area
    /// the table does not know (`C03 4LD`, a `CO3` OCR read with a zero) is none.
    private static let areasBeyondTheTable: Set<String> = [
        "AB", "DD", "DG", "EH", "FK", "G", "HS", "IV", "KA", "KW", "KY", "ML", "PA", "PH", "TD", "ZE", "BT", "GY", "JE", "IM",
    ]

    /// Words that make a line a label, a role or a document's own, never a person's name.
    private static let notNameWords: Set<String> = [
        "name", "surname", "forename", "forenames", "title", "address", "postcode", "dob", "nhs", "mrn", "number", "no", "date", "birth",
        "tel", "telephone", "phone", "mobile", "gp", "consultant", "patient", "details", "hospital", "clinic", "practice", "surgery",
        "referral", "referred", "optometrist", "signed", "secretary", "typed", "dictated", "ref", "re", "dear", "yours", "sincerely",
        "regards", "department", "trust", "summary", "letter", "copy", "cc", "page", "unit", "ward", "centre", "medical", "health",
        "registered", "practitioner", "general", "the", "and", "of", "for", "to", "from", "with", "by", "on", "at", "in",
    ]

    /// True when `name` (as it would be written, without its title) reads as a person's:
    /// one to six words of letters, hyphens and apostrophes, each capitalised, none a label's,
    /// a role's or a firm's.
    static func isPersonName(_ name: String) -> Bool {
        let words = name.split(separator: " ")
        guard (1...6).contains(words.count), !PeopleText.names(organisationIn: name) else { return false }
        return words.allSatisfy { word in
            guard let first = word.first, first.isLetter, first.isUppercase || word.count <= 3 else { return false }
            let bare = word.lowercased().trimming(".'-")
            return word.allSatisfy { $0.isLetter || $0 == "-" || $0 == "'" || $0 == "." } && !notNameWords.contains(bare)
                && word.last != "-" && word.last != "'"
                && !PeopleText.titles.contains(bare)
        }
    }

    /// `line` without what OCR made of specks inside it: a mark standing alone (`Oak . Lane`) and
    /// a full stop glued to a word of three letters or more before a capital (`Rose. Cottage`;
    /// `St. Mary's` keeps its own).
    static func withoutSpecks(_ line: String) -> String {
        let words = line.split(separator: " ")
        guard words.contains(where: { $0.contains(".") || !$0.contains(where: { $0.isLetter || $0.isNumber }) }) else { return line }
        var kept: [String] = []
        for (index, word) in words.enumerated() {
            guard word.contains(where: { $0.isLetter || $0.isNumber }) else { continue }
            let next = index + 1 < words.count ? words[index + 1] : nil
            if word.hasSuffix("."), word.dropLast().count >= 3, word.dropLast().allSatisfy(\.isLetter), next?.first?.isUppercase == true {
                kept.append(String(word.dropLast()))
            } else {
                kept.append(String(word))
            }
        }
        return kept.joined(separator: " ")
    }

    /// A word as values and OCR's words are compared: its letters and digits, lowercased.
    static func token(_ word: Substring) -> String {
        String(word.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }.map(Character.init)).lowercased()
    }

    /// True when `read` is `name` but for its accents and case, or but for a letter in four (no
    /// more than three) of a name of six letters or more, in as many words: OCR's misreading.
    static func isMisreading(_ read: String, of name: String) -> Bool {
        let (a, b) = (Array(read.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).unicodeScalars),
                      Array(name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).unicodeScalars))
        if a == b { return true }
        guard b.count >= 6, read.split(separator: " ").count == name.split(separator: " ").count, abs(a.count - b.count) <= 3 else { return false }
        // Levenshtein's distance, a row at a time.
        var row = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var next = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() { next[j + 1] = min(row[j + 1] + 1, next[j] + 1, row[j] + (x == y ? 0 : 1)) }
            row = next
        }
        return row[b.count] <= min(3, b.count / 4)
    }

    /// True when two words of `name` side by side make a word the page writes whole (`Stan Ley`
    /// where the letter says `Stanley`): OCR parted a word, and the name is not the person's.
    func isSplitByOCR(_ name: String) -> Bool {
        let words = name.split(separator: " ").map { $0.lowercased() }
        guard words.count >= 3 else { return false }
        let pageWords = Set(pageText.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "-" }).map(String.init))
        return zip(words, words.dropFirst()).contains { pageWords.contains($0 + $1) }
    }

    /// Small words of place names (`City and County of the City of London`, `Stratford-upon-Avon`,
    /// `Weston super Mare`), never a sentence's by themselves.
    private static let placeWords: Set<String> = ["and", "of", "the", "upon", "on", "in", "under", "by", "le", "next", "with", "cum",
                                                   "super", "en", "de", "la", "y", "sur", "at"]

    /// True for a line of a sentence: six words or more, two of them lowercase and no place
    /// name's small words (a letter's body, not a town's long name).
    static func isSentence(_ line: String) -> Bool {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard words.count >= 6 else { return false }
        return words.filter { word in word.first?.isLowercase == true && !placeWords.contains(word.lowercased()) }.count >= 2
    }

    /// True when `line` may be a line of an address: not a label, a date, a phone or an
    /// identifier, and not a sentence.
    static func isAddressLine(_ line: String) -> Bool {
        let words = line.split(separator: " ").map(String.init)
        guard let first = words.first, line.utf8.count <= 80, !line.contains(":"), !isSentence(line),
              LabelLexicon.matches(words).isEmpty, !LabelLexicon.isLabelStart(words),
              !PeopleText.titles.contains(LabelLexicon.key(first)) else { return false }
        // Half of a line broken where a column wrapped it (`217 The` / `Crescent`, `Willerby, Anlaby and` / `Kirk Ella`).
        if let last = words.last, ["the", "and", "of", "upon", "on"].contains(LabelLexicon.key(last)) || words.count == 1 && AddressPage.Address.isStreetWord(first) {
            return false
        }
        if LetterIdentifiers.date(atStartOf: Substring(line)) != nil, line.split(separator: " ").count <= 3 { return false }
        if LetterIdentifiers.phone(in: Substring(line)) != nil { return false }
        if LetterIdentifiers.nhsNumber(atStartOf: Substring(line)) != nil { return false }
        let digits = line.filter(\.isNumber).count
        return digits <= 6
    }
}

extension PostcodeSectors {
    /// True when the table holds sectors of the postcode area `area` (`RH`, `SW`).
    func holdsArea(_ area: String) -> Bool { areas.contains(area) }
}

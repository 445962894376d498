import Foundation

/// A regular expression compiled once and shared by every thread (matching does not change it).
final class Pattern: @unchecked Sendable {
    private let regex: NSRegularExpression

    init(_ pattern: String, _ options: NSRegularExpression.Options = []) {
        regex = try! NSRegularExpression(pattern: pattern, options: options)
    }

    /// The groups of the first match (0: the whole match; "" for a group that took no part).
    func first(in text: String) -> [String]? {
        regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)).map { groups($0, in: text) }
    }

    /// The groups of every match.
    func all(in text: String) -> [[String]] {
        regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { groups($0, in: text) }
    }

    /// The range of every match.
    func ranges(in text: String) -> [Range<String.Index>] {
        regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { Range($0.range, in: text) }
    }

    private func groups(_ match: NSTextCheckingResult, in text: String) -> [String] {
        (0..<match.numberOfRanges).map { Range(match.range(at: $0), in: text).map { String(text[$0]) } ?? "" }
    }
}

/// Names and dates of birth as the app reads them out of OCR text.
enum PeopleText {
    // MARK: Dates

    private static let months = ["january", "february", "march", "april", "may", "june", "july", "august",
                                 "september", "october", "november", "december"]
    private static let wordDate = Pattern(#"\b(\d{1,2})\s+(January|February|March|April|May|June|July|August|September|October|November|December)\s+(\d{4})\b"#,
                                          [.caseInsensitive])

    /// The first date in `text`, as `DD/MM/YYYY`, in the app's order: a day, month and
    /// four-digit year (`27/12/1947`, `27.12.1947`, `27-12-1947`) anywhere first, then one
    /// with a two-digit year (`18/09/65`: 1930–2029), then one with the month's name
    /// (`3 March 1950`). Days and months that cannot be (`41/13/2000`) are no date.
    static func date(in text: String) -> String? {
        let bytes = Array(text.utf8)
        if let date = numericDate(bytes, yearDigits: 4) ?? numericDate(bytes, yearDigits: 2) { return date }
        guard let match = wordDate.first(in: text), let day = Int(match[1]),
              let month = months.firstIndex(of: match[2].lowercased()).map({ $0 + 1 }), let year = Int(match[3]) else { return nil }
        return formatted(day: day, month: month, year: year)
    }

    private static func numericDate(_ bytes: [UInt8], yearDigits: Int) -> String? {
        func number(at start: Int, maxDigits: Int) -> (Int, Int)? {
            var end = start
            while end < bytes.count, end - start < maxDigits, TextPatterns.isDigit(bytes[end]) { end += 1 }
            guard end > start else { return nil }
            return (Int(String(decoding: bytes[start..<end], as: UTF8.self))!, end)
        }
        func isSeparator(_ index: Int) -> Bool { index < bytes.count && (bytes[index] == 0x2F || bytes[index] == 0x2E || bytes[index] == 0x2D) }
        for start in bytes.indices where TextPatterns.isDigit(bytes[start]) && (start == 0 || !TextPatterns.isDigit(bytes[start - 1])) {
            guard let (day, afterDay) = number(at: start, maxDigits: 2), isSeparator(afterDay),
                  let (month, afterMonth) = number(at: afterDay + 1, maxDigits: 2), isSeparator(afterMonth),
                  let (year, afterYear) = number(at: afterMonth + 1, maxDigits: yearDigits),
                  afterYear - afterMonth - 1 == yearDigits else { continue }
            if afterYear < bytes.count, yearDigits == 4 ? TextPatterns.isDigit(bytes[afterYear]) : TextPatterns.isWordByte(bytes[afterYear]) { continue }
            let fullYear = yearDigits == 4 ? year : (year >= 30 ? 1900 + year : 2000 + year)
            if let date = formatted(day: day, month: month, year: fullYear) { return date }
        }
        return nil
    }

    static func formatted(day: Int, month: Int, year: Int) -> String? {
        guard (1...31).contains(day), (1...12).contains(month), (1000...9999).contains(year) else { return nil }
        func padded(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(padded(day))/\(padded(month))/\(year)"
    }

    // MARK: Names

    /// Words before a name that are no part of it.
    static let titles: Set<String> = ["mr", "mrs", "ms", "miss", "mx", "dr", "prof", "professor", "sir", "dame", "lord", "lady", "rev", "reverend"]
    /// What a form says where it has no name.
    private static let placeholders: Set<String> = ["unknown", "not known", "n/a", "na", "none", "tbc", "not stated", "patient", "name", "anon", "anonymous"]
    /// Lowercase words that are part of names (`Ludwig van Beethoven`).
    private static let particles: Set<String> = ["de", "van", "von", "der", "den", "le", "la", "du", "da", "di", "del", "al", "bin", "ap", "of"]

    /// The app's cleaning: letters, spaces, hyphens and apostrophes only, each word capitalised.
    static func cleanName(_ raw: String) -> String {
        let kept = raw.unicodeScalars.filter { CharacterSet.letters.contains($0) || $0 == " " || $0 == "-" || $0 == "'" }
        return String(String.UnicodeScalarView(kept)).split(separator: " ")
            .map { $0.prefix(1).uppercased() + $0.dropFirst().lowercased() }.joined(separator: " ")
    }

    /// A person's name from `raw`: cleaned, without a title before it; nil for a
    /// placeholder (`Unknown`) or nothing.
    static func personName(_ raw: String) -> String? {
        var words = cleanName(raw).split(separator: " ").map(String.init)
        while words.count > 1, titles.contains(words[0].lowercased()) { words.removeFirst() }
        let name = words.joined(separator: " ")
        guard !name.isEmpty, !placeholders.contains(name.lowercased()), !(words.count == 1 && titles.contains(name.lowercased())) else { return nil }
        return name
    }

    /// True when `raw` is a placeholder where a name would be (`Unknown`, `N/A`).
    static func isPlaceholder(_ raw: String) -> Bool {
        // Letters and digits are never trimmed: more than the longest placeholder holds and it is none.
        guard raw.utf8.lazy.filter(TextPatterns.isWordByte).count <= 10 else { return false }
        return placeholders.contains(raw.trimmingCharacters(in: .whitespacesAndNewlines.union(.punctuationCharacters)).lowercased())
    }

    /// Words that name a firm or a service, never a person (`Harbour Hardware Ltd`, `Riverside Surgery`).
    private static let organisationWords: Set<String> = [
        "ltd", "limited", "plc", "llp", "llc", "inc", "co", "company", "&", "group", "trust", "nhs", "council", "bank",
        "surgery", "practice", "hospital", "clinic", "centre", "center", "medical", "health", "healthcare", "pharmacy", "opticians",
        "services", "service", "school", "university", "college", "hotel", "shop", "store", "stores", "hardware", "department",
    ]

    /// True when a word of `line` names a firm or a service: its words, lowercased and without
    /// the punctuation around them, looked up by their bytes (most lines of most pages ask).
    static func names(organisationIn line: String) -> Bool {
        var word: [UInt8] = []
        word.reserveCapacity(16)
        func isOrganisation() -> Bool {
            // Punctuation around the word (`Ltd.`, `(NHS)`) is no part of it; `&` is a word of its own.
            var start = 0, end = word.count
            while start < end, !TextPatterns.isWordByte(word[start]), word[start] != 0x26, word[start] < 0x80 { start += 1 }
            while end > start, !TextPatterns.isWordByte(word[end - 1]), word[end - 1] != 0x26, word[end - 1] < 0x80 { end -= 1 }
            guard end - start >= 1, end - start <= 12 else { return false }
            return organisationWords.contains(String(decoding: word[start..<end], as: UTF8.self))
        }
        for byte in line.utf8 {
            if byte == 0x20 || byte == 0x09 || byte == 0x2C {
                if !word.isEmpty, isOrganisation() { return true }
                word.removeAll(keepingCapacity: true)
            } else {
                word.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            }
        }
        return !word.isEmpty && isOrganisation()
    }

    /// True when `line` can be a name on its own line (an address label's first line): a few
    /// capitalised words, no digits, no label and no sentence. `Mr James Reed attended
    /// clinic on Monday…` is not one.
    static func looksLikeNameLine(_ line: String) -> Bool {
        let ascii = line.utf8.allSatisfy { $0 < 0x80 }  // nearly every line: its bytes looked at, the cheap tests first
        guard ascii ? line.utf8.count <= 60 : line.count <= 60,
              ascii ? !line.utf8.contains(where: { TextPatterns.isDigit($0) || $0 == 0x3A || $0 == 0x40 || $0 == 0x2F || $0 == 0x3B })
                    : !line.contains(where: { $0.isNumber || ":@/;".contains($0) }),
              !names(organisationIn: line),
              !(line.hasSuffix(".") && !line.hasSuffix(" Jr.") && line.split(separator: " ").count > 2), !line.hasSuffix(",") else { return false }
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard (1...6).contains(words.count) else { return false }
        return words.allSatisfy { word in
            var bare = word
            while let edge = bare.first, edge == "." || edge == "," || edge == "'" { bare = bare.dropFirst() }
            while let edge = bare.last, edge == "." || edge == "," || edge == "'" { bare = bare.dropLast() }
            guard let first = bare.first else { return true }
            return first.isUppercase || particles.contains(bare.lowercased())
        }
    }
}

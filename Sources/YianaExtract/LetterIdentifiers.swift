import Foundation

/// The numbers a letter gives its patient: an NHS number, a hospital number (the app's
/// `mrn`), phones, and the date of birth in the ways letters write it.
enum LetterIdentifiers {
    /// The NHS number at the start of `text`: ten digits, written 3-3-4 (spaces or hyphens) or
    /// run together, whose modulus-11 check digit holds; as `943 476 5919`. A number whose
    /// check fails (a misread digit) is no NHS number.
    static func nhsNumber(atStartOf text: Substring) -> String? {
        var digits: [UInt8] = []
        var separators = 0
        var next: UInt8?
        for byte in text.utf8 {
            if digits.count == 10 { next = byte; break }
            if TextPatterns.isDigit(byte) {
                digits.append(byte - 0x30)
            } else if (byte == 0x20 || byte == 0x2D || byte == 0x0A) && !digits.isEmpty && separators < 4 {
                separators += 1  // 3-3-4, the groups sometimes broken over two lines
            } else if digits.isEmpty && (byte == 0x20 || byte == 0x0A) {
                continue
            } else {
                break
            }
        }
        // Ten digits and not an eleventh straight after: that is another number (a phone).
        guard digits.count == 10, next.map({ !TextPatterns.isDigit($0) }) ?? true, isValidNHS(digits) else { return nil }
        let text = digits.map(String.init).joined()
        return "\(text.prefix(3)) \(text.dropFirst(3).prefix(3)) \(text.suffix(4))"
    }

    /// Every NHS number written 3-3-4 in `text` (a letter's reference block), valid ones only.
    static func nhsNumbers(in text: String) -> [String] {
        nhsPattern.all(in: text).compactMap { nhsNumber(atStartOf: Substring($0[1])) }
    }

    private static let nhsPattern = Pattern(#"(?<![\d])(\d{3}[ -]\d{3}[ -]\d{4})(?![\d])"#)

    /// The modulus-11 check of an NHS number's ten digits.
    static func isValidNHS(_ digits: [UInt8]) -> Bool {
        guard digits.count == 10 else { return false }
        let sum = (0..<9).reduce(0) { $0 + Int(digits[$1]) * (10 - $1) }
        let check = 11 - sum % 11
        switch check {
        case 11: return digits[9] == 0
        case 10: return false
        default: return Int(digits[9]) == check
        }
    }

    /// A hospital number at the start of `text`: one token of letters and digits with at least
    /// one digit (`H123456`, `0012386780`, `RH12345678`, `K/123456` as `K123456`).
    static func hospitalNumber(atStartOf text: Substring) -> String? {
        let token = text.drop { $0 == " " || $0 == "\n" }.prefix { $0.isLetter || $0.isNumber || $0 == "/" || $0 == "-" }
        let value = token.filter { $0 != "/" && $0 != "-" }
        guard (4...16).contains(value.count), value.contains(where: \.isNumber), value.allSatisfy({ $0.isASCII }) else { return nil }
        return String(value).uppercased()
    }

    /// The first phone number in `text` (its groups as written, single-spaced) and what follows it.
    static func phone(in text: Substring) -> (String, Substring)? {
        var index = text.startIndex
        while index < text.endIndex {
            guard text[index].isNumber || text[index] == "+", index == text.startIndex || !text[text.index(before: index)].isNumber else {
                index = text.index(after: index)
                continue
            }
            // Groups of digits (a `+44`, a `(0)` and hyphens allowed), single spaces between, until eleven digits.
            var digits = ""
            var groups: [String] = []
            var end = index
            var scan = index
            while scan < text.endIndex, digits.count < 11 {
                let group = text[scan...].prefix { $0.isNumber || $0 == "+" || $0 == "(" || $0 == ")" || $0 == "-" }
                guard !group.isEmpty, group.contains(where: \.isNumber) else { break }
                var groupDigits = group.filter(\.isNumber)
                if group.hasPrefix("+44") { groupDigits = "0" + groupDigits.dropFirst(2) }
                if group.contains("(0)") { groupDigits = groupDigits.replacingOccurrences(of: "00", with: "0") }
                digits += groupDigits
                groups.append(String(group))
                end = group.endIndex
                scan = end
                if scan < text.endIndex, text[scan] == " " { scan = text.index(after: scan) } else { break }
            }
            if digits.count == 11, digits.hasPrefix("0"), end == text.endIndex || !text[end].isNumber {
                return (groups.joined(separator: " "), text[end...])
            }
            index = text.index(after: index)
        }
        return nil
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let isoDate = Pattern(#"\b(\d{4})-(\d{2})-(\d{2})\b"#)
    private static let shortMonthDate = Pattern(#"\b(\d{1,2})[ \-]([A-Za-z]{3,9})[ \-,]+(\d{4})\b"#)

    /// The date of birth at the start of `text`, as `DD/MM/YYYY`: `12/03/1945`, `12.03.1945`,
    /// `12-03-45`, `1945-03-12`, `12 March 1945`, `12-Mar-1945`.
    static func date(atStartOf text: Substring) -> String? {
        let head = String(text.drop { $0 == " " || $0 == "\n" }.prefix(20))
        guard head.first?.isNumber == true else { return nil }
        // Each pattern tried only where the head's first bytes can start it (`2026-`, `12 M`, `1-M`): most dates are `12/03/1945`.
        let bytes = Array(head.utf8.prefix(6))
        let leading = bytes.prefix(while: TextPatterns.isDigit).count
        if leading == 4, bytes.count > 4, bytes[4] == 0x2D, let match = isoDate.first(in: head), head.hasPrefix(match[0]),
           let year = Int(match[1]), let month = Int(match[2]), let day = Int(match[3]) {
            return PeopleText.formatted(day: day, month: month, year: year)
        }
        if leading <= 2, bytes.count > leading + 1, bytes[leading] == 0x20 || bytes[leading] == 0x2D, TextPatterns.isLetter(bytes[leading + 1]),
           let match = shortMonthDate.first(in: head), head.hasPrefix(match[0]), let day = Int(match[1]), let year = Int(match[3]),
           let month = months.firstIndex(of: String(match[2].lowercased().prefix(3))) {
            return PeopleText.formatted(day: day, month: month + 1, year: year)
        }
        let firstToken = head.prefix { !$0.isWhitespace && $0 != "," && $0 != ";" }
        return PeopleText.date(in: String(firstToken.last == "." ? firstToken.dropLast() : firstToken))
    }
}

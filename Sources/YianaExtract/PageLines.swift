import Foundation

/// One page's text as the extractors read it: bounded, with line breaks made plain and
/// control characters made spaces, and its lines, trimmed.
struct PageLines: Sendable {
    /// The most of a page that is read (a page of a letter is a few kilobytes; OCR of a
    /// damaged scan can be a megabyte of one line): what lies beyond is left out, so that
    /// every page takes a bounded time.
    static let limit = 64 << 10
    /// A line longer than this is prose or noise, never a name or an address line.
    static let longLine = 200

    let text: String
    /// Every line, trimmed, blank ones kept (the forms' layout is read from them).
    let lines: [String]
    /// The lines that are not blank.
    let filled: [String]

    init(_ raw: String) {
        var text = raw
        if text.utf8.count > Self.limit {
            let cut = text.utf8.index(text.utf8.startIndex, offsetBy: Self.limit)
            var prefix = String(decoding: text.utf8[..<cut], as: UTF8.self)
            if let lastBreak = prefix.lastIndex(of: "\n") { prefix = String(prefix[..<lastBreak]) }
            text = prefix
        }
        let needsCleaning = text.utf8.contains { $0 < 0x20 && $0 != 0x0A && $0 != 0x09 || $0 == 0x7F }
        if needsCleaning {
            text = text.replacingOccurrences(of: "\r\n", with: "\n")
            text = String(String.UnicodeScalarView(text.unicodeScalars.map { scalar -> Unicode.Scalar in
                switch scalar.value {
                case 0x0A, 0x09: scalar
                case 0x0D, 0x0B, 0x0C: "\n"
                case 0x00..<0x20, 0x7F: " "
                default: scalar
                }
            }))
        }
        self.text = text
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(Self.trimmed)
        filled = lines.filter { !$0.isEmpty }
    }
}

extension PageLines {
    /// `line` without the spaces around it: by its bytes when it starts and ends in ASCII
    /// (nearly every line of OCR text), else by Foundation.
    static func trimmed(_ line: Substring) -> String {
        let utf8 = line.utf8
        guard let first = utf8.first, let last = utf8.last else { return "" }
        if first < 0x80, last < 0x80, first != 0x20, first != 0x09, last != 0x20, last != 0x09 { return String(line) }
        return line.trimmingCharacters(in: .whitespaces)
    }
}

/// Reading UK postcodes, dates and names out of OCR text.
enum TextPatterns {
    /// Every UK-format postcode in `text` (`A9 9AA`, `A99 9AA`, `A9A 9AA`, `AA9 9AA`,
    /// `AA99 9AA`, `AA9A 9AA`; any case; up to two spaces or none between its halves, or a
    /// full stop, as OCR reads a speck there), each a whole word, as `OUTWARD INWARD` in
    /// capitals, first to last.
    static func postcodes(in text: String, first: Bool = false) -> [String] {
        let bytes = Array(text.utf8)
        var found: [String] = []
        var i = 0
        while i < bytes.count {
            if isLetter(bytes[i]), i == 0 || !isWordByte(bytes[i - 1]), let (postcode, end) = postcode(in: bytes, at: i) {
                found.append(postcode)
                if first { return found }
                i = end
            } else {
                i += 1
            }
        }
        return found
    }

    static func firstPostcode(in text: String) -> String? { postcodes(in: text, first: true).first }

    /// The postcode that starts at `start`, and where it ends.
    private static func postcode(in bytes: [UInt8], at start: Int) -> (String, Int)? {
        var letters = 0
        while start + letters < bytes.count, isLetter(bytes[start + letters]) { letters += 1 }
        guard (1...2).contains(letters) else { return nil }
        let afterLetters = start + letters
        for digits in [2, 1] {
            let afterDigits = afterLetters + digits
            guard afterDigits <= bytes.count, (afterLetters..<afterDigits).allSatisfy({ isDigit(bytes[$0]) }) else { continue }
            for letter in [1, 0] {
                let outwardEnd = afterDigits + letter
                guard outwardEnd <= bytes.count, letter == 0 || isLetter(bytes[afterDigits]) else { continue }
                for spaces in [2, 1, 0] {
                    let inward = outwardEnd + spaces
                    guard inward + 3 <= bytes.count,
                          (outwardEnd..<inward).allSatisfy({ bytes[$0] == 0x20 || bytes[$0] == 0x09 || bytes[$0] == 0x2E }),
                          (outwardEnd..<inward).filter({ bytes[$0] == 0x2E }).count <= 1,
                          isDigit(bytes[inward]), isLetter(bytes[inward + 1]), isLetter(bytes[inward + 2]),
                          inward + 3 == bytes.count || !isWordByte(bytes[inward + 3]) else { continue }
                    let outward = String(decoding: bytes[start..<outwardEnd], as: UTF8.self).uppercased()
                    let inwardCode = String(decoding: bytes[inward..<(inward + 3)], as: UTF8.self).uppercased()
                    return ("\(outward) \(inwardCode)", inward + 3)
                }
            }
        }
        return nil
    }

    static func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
    static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
    /// An ASCII letter or digit: what may not touch a postcode or a date (a `£`, a bullet or a
    /// curly quote before one is punctuation).
    static func isWordByte(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) }

    /// `line` without its postcode, when what is left reads as a town (`London SW1A 1AA` → `London`).
    static func townBeside(postcode: String, in line: String) -> String? {
        // Most often the line is the postcode alone.
        if line.utf8.count <= postcode.utf8.count + 2, line.utf8.filter({ $0 != 0x20 && $0 != 0x2E }).count <= postcode.utf8.count - 1 { return nil }
        var remainder = line
        for form in [postcode, postcode.replacingOccurrences(of: " ", with: ""), postcode.replacingOccurrences(of: " ", with: "  ")] {
            if let range = line.range(of: form, options: .caseInsensitive) {
                remainder.removeSubrange(range)
                break
            }
        }
        let town = remainder.trimmingCharacters(in: .whitespacesAndNewlines)
            .trimmingCharacters(in: CharacterSet(charactersIn: ",.-"))
            .trimmingCharacters(in: .whitespaces)
        guard town.count >= 3, town != line, town.first?.isNumber != true, !town.contains(":") else { return nil }
        return town
    }
}

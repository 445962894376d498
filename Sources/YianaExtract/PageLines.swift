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
        // Typed apart: as one closure of literals the type checker gave up on it on a slow machine.
        let needsCleaning = text.utf8.contains { (byte: UInt8) -> Bool in
            let control: Bool = byte < 0x20 && byte != 0x0A && byte != 0x09
            return control || byte == 0x7F
        }
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
        if text.hasBytes("\u{AD}") {
            // A soft hyphen where a word was broken over two lines (poppler keeps it): one word again.
            text = text.replacingOccurrences(of: "\u{AD}\n", with: "").replacingOccurrences(of: "\u{AD}", with: "")
        }
        if text.hasBytes("-\n") {
            // A word OCR read broken over two lines (`Amer-` / `sham`): one word again.
            text = text.replacingOccurrences(of: #"(?<=[a-z])-\n(?=[a-z])"#, with: "", options: .regularExpression)
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(Self.trimmed)
        if lines.contains(where: { Self.isSpeck($0) || Self.hasEdgeSpeck($0) }) {
            // What OCR makes of a scan's specks and rules: a line of a mark or two (`_`, `:`, `|`), a mark at a line's end (`~~ Woodhatch`).
            lines = lines.filter { !Self.isSpeck($0) }.map(Self.withoutEdgeSpecks)
            text = lines.joined(separator: "\n")
        }
        self.text = text
        self.lines = lines
        filled = lines.filter { !$0.isEmpty }
    }

    /// True for a line of one to three marks and nothing else (`_`, `. .`, `=`, `©`).
    static func isSpeck(_ line: String) -> Bool {
        !line.isEmpty && line.count <= 3 && !line.contains { $0.isLetter || $0.isNumber }
    }

    /// True when `line` starts or ends with a mark or two standing apart (`~~ Woodhatch`, `186 Kingsway |`).
    private static func hasEdgeSpeck(_ line: String) -> Bool {
        // Its first and last words found without splitting it: a page has hundreds of lines and few specks.
        guard line.utf8.count > 3, let firstSpace = line.firstIndex(of: " "), let lastSpace = line.lastIndex(of: " ") else { return false }
        let first = line[..<firstSpace], last = line[line.index(after: lastSpace)...]
        return first.count <= 2 && isSpeck(String(first)) || last.count <= 2 && last != "." && last != ":" && isSpeck(String(last))
    }

    /// `line` without the marks standing apart at its start and end (`~~ Woodhatch`, `186 Kingsway |`).
    private static func withoutEdgeSpecks(_ line: String) -> String {
        var words = line.split(separator: " ", omittingEmptySubsequences: true)
        while words.count > 1, let first = words.first, first.count <= 2, isSpeck(String(first)) { words.removeFirst() }
        while words.count > 1, let last = words.last, last.count <= 2, isSpeck(String(last)), last != ".", last != ":" { words.removeLast() }
        return words.count == line.split(separator: " ").count ? line : words.joined(separator: " ")
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
        postcodeSpans(in: text, first: first).map(\.postcode)
    }

    /// Every postcode in `text` with where it is written (its byte range).
    static func postcodeSpans(in text: String, first: Bool = false) -> [(postcode: String, bytes: Range<Int>)] {
        let bytes = Array(text.utf8)
        var found: [(String, Range<Int>)] = []
        var i = 0
        while i < bytes.count {
            if isLetter(bytes[i]), i == 0 || !isWordByte(bytes[i - 1]), let (postcode, end) = postcode(in: bytes, at: i) {
                found.append((postcode, i..<end))
                if first { return found }
                i = end
            } else {
                i += 1
            }
        }
        return found
    }

    /// The last postcode in `text` and the text before it.
    static func lastPostcode(in text: String) -> (postcode: String, before: Substring)? {
        guard let span = postcodeSpans(in: text).last else { return nil }
        let utf8 = text.utf8
        return (span.postcode, text[..<utf8.index(utf8.startIndex, offsetBy: span.bytes.lowerBound)])
    }

    static func firstPostcode(in text: String) -> String? { postcodes(in: text, first: true).first }

    /// The postcode that starts at `start`, and where it ends.
    private static func postcode(in bytes: [UInt8], at start: Int) -> (String, Int)? {
        var letters = 0
        while start + letters < bytes.count, isLetter(bytes[start + letters]) { letters += 1 }
        // OCR reads the outward code's 0 as an O (`HAO 3UT`): read it as the digit it stands for.
        if letters == 3, bytes[start + 2] == 0x4F, start + 3 < bytes.count, isDigit(bytes[start + 3]) || bytes[start + 3] == 0x20 {
            var copy = Array(bytes[start..<min(bytes.count, start + 10)])
            copy[2] = 0x30
            return postcode(in: copy, at: 0).map { ($0.0, start + $0.1) }
        }
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
                          isDigit(bytes[inward]) || bytes[inward] == 0x4F, isLetter(bytes[inward + 1]), isLetter(bytes[inward + 2]),
                          inward + 3 == bytes.count || !isWordByte(bytes[inward + 3]) else { continue }
                    let outward = String(decoding: bytes[start..<outwardEnd], as: UTF8.self).uppercased()
                    // OCR reads the inward code's 0 as an O (`WA5 OBU`): a postcode's inward code starts with a digit.
                    let inwardCode = (bytes[inward] == 0x4F ? "0" : "") + String(decoding: bytes[(inward + (bytes[inward] == 0x4F ? 1 : 0))..<(inward + 3)], as: UTF8.self).uppercased()
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
            .trimming(",.-")
            .trimmingCharacters(in: .whitespaces)
        guard town.count >= 3, town != line, town.first?.isNumber != true, !town.contains(":") else { return nil }
        return town
    }
}

extension StringProtocol {
    /// The text without the characters of `marks` at either end: `trimmingCharacters(in:)`
    /// without a `CharacterSet` built and the text bridged for each value.
    func trimming(_ marks: String) -> String {
        guard let start = firstIndex(where: { !marks.contains($0) }), let end = lastIndex(where: { !marks.contains($0) }) else { return "" }
        return String(self[start...end])
    }

    /// True when the ASCII `needle` is among the text's bytes (lowercase `needle` with
    /// `ignoringCase`): a plain byte search, many times cheaper than Foundation's `contains`,
    /// which the extractors would otherwise call for most lines of every page.
    func hasBytes(_ needle: StaticString, ignoringCase: Bool = false) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        guard let head = pattern.first else { return true }
        func search(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            guard bytes.count >= pattern.count else { return false }
            for start in 0...(bytes.count - pattern.count) {
                var byte = bytes[start]
                if ignoringCase, byte >= 0x41, byte <= 0x5A { byte |= 0x20 }
                guard byte == head else { continue }
                var matched = 1
                while matched < pattern.count {
                    var next = bytes[start + matched]
                    if ignoringCase, next >= 0x41, next <= 0x5A { next |= 0x20 }
                    guard next == pattern[matched] else { break }
                    matched += 1
                }
                if matched == pattern.count { return true }
            }
            return false
        }
        return utf8.withContiguousStorageIfAvailable(search) ?? Array(utf8).withUnsafeBufferPointer(search)
    }

    /// True when the text starts with the ASCII `prefix` (lowercase `prefix` with `ignoringCase`).
    func startsWithBytes(_ prefix: StaticString, ignoringCase: Bool = false) -> Bool {
        let pattern = UnsafeBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount)
        var bytes = utf8.makeIterator()
        for expected in pattern {
            guard var byte = bytes.next() else { return false }
            if ignoringCase, byte >= 0x41, byte <= 0x5A { byte |= 0x20 }
            if byte != expected { return false }
        }
        return true
    }

    /// How many words (runs of anything but spaces and tabs) the text has.
    var wordCount: Int {
        var count = 0
        var inWord = false
        for byte in utf8 {
            if byte == 0x20 || byte == 0x09 { inWord = false } else if !inWord { inWord = true; count += 1 }
        }
        return count
    }
}

import Foundation
import YianaExtract

/// A person's name as a page or a file name writes it, and the forms the register compares:
/// `WHITFIELD, Eleanor (Mrs)`, `Mrs Eleanor Whitfield` and `Whitfield_Eleanor_140352` are all
/// the words `eleanor whitfield`.
///
/// Normalised: accents folded (`Zoë` → `zoe`), capitals lowered, curly apostrophes straight,
/// titles dropped (leading ones and any in brackets), dots and other marks gone, and a surname
/// written first given back its place: before a comma (`WHITFIELD, Eleanor`) or in capitals
/// before names that are not (`WHITFIELD Eleanor Mary`). Hyphens and apostrophes stay
/// (`o'brien`, `melo-cruz`).
public struct PersonName: Sendable, Hashable, Codable {
    /// The name as written.
    public let written: String
    /// Its words, normalised, given names first.
    public let words: [String]

    /// Nil when nothing of a name is left (an empty string, titles alone, a placeholder).
    public init?(_ written: String) {
        let trimmed = String(Self.trimmed(Substring(written), \.isWhitespace))
        let words = Self.normalisedWords(trimmed)
        guard !words.isEmpty else { return nil }
        self.written = trimmed
        self.words = words
    }

    /// The surname: the last word.
    public var surname: String { words[words.count - 1] }

    /// The first given name, when there is one written out (an initial is not one).
    public var firstName: String? {
        guard words.count >= 2, words[0].count >= 2 else { return nil }
        return words[0]
    }

    /// `first surname` when both are written out: the form two names must share to agree.
    /// Middle names do not count (`Eleanor Mary Whitfield` agrees with `Eleanor Whitfield`).
    public var key: String? {
        firstName.map { "\($0) \(surname)" }
    }

    /// The name as a card shows it, whatever the page's capitals and order: `Eleanor Mary
    /// Whitfield`, `Sean O'Brien`, `Ana Melo-Cruz`.
    public var display: String {
        words.map { word in
            var result = "", upper = true
            for character in word {
                result += upper ? character.uppercased() : String(character)
                upper = character == "-" || character == "'"
            }
            return result
        }.joined(separator: " ")
    }

    /// The words joined: `eleanor mary whitfield`.
    public var normalised: String { words.joined(separator: " ") }

    /// Whether `other` could be written for the same name: the same surname, and given names
    /// that agree where both have them (an initial agrees with a name it begins).
    public func isCompatible(with other: PersonName) -> Bool {
        surname == other.surname && givenNamesAgree(with: other)
    }

    /// Whether the first given names agree where both are written (an initial agrees with a
    /// name it begins).
    public func givenNamesAgree(with other: PersonName) -> Bool {
        guard let first = words.dropLast().first, let otherFirst = other.words.dropLast().first else { return true }
        return first.hasPrefix(otherFirst) || otherFirst.hasPrefix(first)
    }

    // MARK: Normalising

    private static let placeholders: Set<String> = ["unknown", "patient", "name", "anon", "anonymous", "none", "tbc", "na"]

    static func normalisedWords(_ written: String) -> [String] {
        let text = withoutBrackets(written)
        var parts = text.split(separator: ",", omittingEmptySubsequences: true).map { String($0) }
        if parts.count >= 2 {
            // `WHITFIELD, Eleanor`: the surname before the comma.
            parts = [parts[1...].joined(separator: " "), parts[0]]
        } else if let reordered = capitalsFirst(text) {
            parts = reordered
        }
        let joined = parts.joined(separator: " ")
        // Accents folded where there are any (most names have none, and folding is slow).
        let folded = joined.utf8.allSatisfy { $0 < 0x80 } ? joined.lowercased() : joined.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
        var words = folded.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "." || $0 == "_" }).map { word in
            let kept = word.filter { $0.isLetter || $0 == "-" || $0 == "'" }
            return String(trimmed(Substring(kept)) { $0 == "-" || $0 == "'" })
        }.filter { !$0.isEmpty }
        while words.count > 1, PageIdentifiers.titles.contains(words[0]) { words.removeFirst() }
        if words.count == 1, PageIdentifiers.titles.contains(words[0]) { return [] }
        if words.count == 1, placeholders.contains(words[0]) { return [] }
        return words
    }

    /// `text` without the characters `strip` holds at either end.
    static func trimmed(_ text: Substring, _ strip: (Character) -> Bool) -> Substring {
        guard let first = text.firstIndex(where: { !strip($0) }), let last = text.lastIndex(where: { !strip($0) }) else { return "" }
        return text[first...last]
    }

    /// Names read once each: a register reads the same few thousand names a hundred
    /// thousand times.
    final class Memo {
        private var read: [String: PersonName?] = [:]

        func name(_ written: String?) -> PersonName? {
            guard let written else { return nil }
            if let known = read[written] { return known }
            let name = PersonName(written)
            read[written] = name
            return name
        }
    }

    /// `written` with curly apostrophes straight and what is in brackets (`(Mrs)`) a space.
    private static func withoutBrackets(_ written: String) -> String {
        var text = "", depth = 0
        text.reserveCapacity(written.utf8.count)
        for character in written {
            switch character {
            case "(": depth += 1
            case ")" where depth > 0: depth -= 1; if depth == 0 { text.append(" ") }
            case "\u{2018}", "\u{2019}": if depth == 0 { text.append("'") }
            default: if depth == 0 { text.append(character) }
            }
        }
        // A bracket left open hides nothing.
        return depth == 0 ? text : String(written.map { $0 == "(" ? " " : $0 })
    }

    /// `WHITFIELD Eleanor Mary` → [`Eleanor Mary`, `WHITFIELD`]: a surname in capitals before
    /// given names that are not.
    private static func capitalsFirst(_ text: String) -> [String]? {
        let words = text.split(separator: " ").map(String.init).filter { !PageIdentifiers.titles.contains($0.lowercased().filter(\.isLetter)) }
        guard words.count >= 2, isCapitals(words[0]), !words.dropFirst().contains(where: isCapitals) else { return nil }
        return [words.dropFirst().joined(separator: " "), words[0]]
    }

    private static func isCapitals(_ word: String) -> Bool {
        let letters = word.filter(\.isLetter)
        return letters.count >= 2 && letters.allSatisfy(\.isUppercase)
    }
}

/// How many single-letter edits (insert, delete, substitute, swap neighbours) turn `a` into `b`;
/// any number over `limit` is given as `limit + 1`.
func editDistance(_ a: String, _ b: String, limit: Int = 2) -> Int {
    let a = Array(a), b = Array(b)
    guard abs(a.count - b.count) <= limit else { return limit + 1 }
    guard !a.isEmpty, !b.isEmpty else { return max(a.count, b.count) }
    var before = [Int](repeating: 0, count: b.count + 1)
    var last = Array(0...b.count)
    for i in 1...a.count {
        var row = [i] + [Int](repeating: 0, count: b.count)
        for j in 1...b.count {
            row[j] = min(last[j] + 1, row[j - 1] + 1, last[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { row[j] = min(row[j], before[j - 2] + 1) }
        }
        (before, last) = (last, row)
    }
    return min(last[b.count], limit + 1)
}

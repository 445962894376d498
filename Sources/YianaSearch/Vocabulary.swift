import Foundation

/// The words of text as the index folds them, for its vocabulary (``Approximate``) and for
/// PostgreSQL's word lists: compatibility forms, diacritics and case folded, every character
/// but letters and digits a space (as SQLite's tokenizer, `unicode61 remove_diacritics 2`, sees
/// words).
public enum Vocabulary {
    /// Text as both sides of a match see it: folded, every character but letters and digits a
    /// space, no NUL.
    public static func searchable(_ text: String) -> String {
        // ASCII, most pages: folding is lowercasing, and the letters and digits are [a-z0-9].
        // The same answer as Foundation's path (tested) at a small part of its cost, which was
        // a third of `yiana index`'s own time on PostgreSQL.
        if text.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: text.utf8.map { byte -> UInt8 in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): byte + 32
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): byte
                default: UInt8(ascii: " ")
                }
            }, as: UTF8.self)
        }
        return searchableByFoundation(text)
    }

    /// ``searchable(_:)`` for any text: compatibility forms, diacritics and case folded, then
    /// every scalar that is not a letter or digit a space.
    public static func searchableByFoundation(_ text: String) -> String {
        String(String.UnicodeScalarView(folded(text).unicodeScalars.map { CharacterSet.alphanumerics.contains($0) ? $0 : " " }))
    }

    /// `text` with compatibility forms, diacritics and case folded.
    public static func folded(_ text: String) -> String {
        text.precomposedStringWithCompatibilityMapping.folding(options: [.diacriticInsensitive, .caseInsensitive], locale: nil)
    }

    /// The words of `texts` a vocabulary keeps, each once: of ``shortest`` to ``longest``
    /// letters and digits, with a letter among them (numbers are only ever matched exactly).
    public static func words(of texts: [String]) -> Set<String> {
        var words = Set<String>()
        for text in texts where !asciiWords(of: text, into: &words) {
            var folded = searchable(text)
            folded.withUTF8 { bytes in
                var start = 0
                for end in 0...bytes.count where end == bytes.count || bytes[end] == UInt8(ascii: " ") {
                    defer { start = end + 1 }
                    guard end - start >= shortest else { continue }
                    let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
                    let letters = word.unicodeScalars.count
                    if letters >= shortest && letters <= longest && word.unicodeScalars.contains(where: { $0.properties.isAlphabetic }) {
                        words.insert(word)
                    }
                }
            }
        }
        return words
    }

    /// The words of `text` into `words` when it is ASCII (most pages), read from its bytes as
    /// they are (lower-cased as they go, no folded copy made); false, with nothing added, for
    /// any other text.
    private static func asciiWords(of text: String, into words: inout Set<String>) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard !bytes.contains(where: { $0 >= 0x80 }) else { return false }
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: longest) { word in
                var length = 0, letter = false
                for index in 0...bytes.count {
                    var byte = index < bytes.count ? bytes[index] : 0
                    switch byte {
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
                        byte |= 0x20
                        letter = true
                    case UInt8(ascii: "0")...UInt8(ascii: "9"):
                        break
                    default:
                        if letter && length >= shortest && length <= longest {
                            words.insert(String(decoding: UnsafeBufferPointer(rebasing: word[..<length]), as: UTF8.self))
                        }
                        length = 0
                        letter = false
                        continue
                    }
                    if length < longest { word[length] = byte }
                    length += 1
                }
            }
            return true
        }
    }

    /// The shortest word kept: one edit from the shortest word that may match approximately.
    public static let shortest = 4
    /// The longest word kept (longer ones are OCR's runs of noise, or codes).
    public static let longest = 40

    /// `word` backwards, letter by letter (for the look-ups of endings).
    public static func reversed(_ word: String) -> String {
        String(String.UnicodeScalarView(word.unicodeScalars.reversed()))
    }

    /// The letters of `words` (for ``Approximate/probes(for:edits:alphabet:)``).
    public static func letters(of words: some Sequence<String>) -> Set<Unicode.Scalar> {
        var letters = Set<Unicode.Scalar>()
        for word in words { letters.formUnion(word.unicodeScalars) }
        return letters
    }
}

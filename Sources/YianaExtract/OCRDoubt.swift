/// The words of a scanned page that OCR was unsure of, so that no value made of them is
/// written: a word read with confidence under 0.3; a word read with confidence under 0.6
/// that a value gives with a letter and a digit exchanged (`HP22 ONY`, read so at 0.47, is
/// written `HP22 0NY` by a reader that wants a digit there: the page said `9NY`); and for a
/// hospital number, any word read with confidence under 0.6.
struct OCRDoubt: Sendable, Equatable {
    private var unsure: Set<String> = []
    /// Words read with confidence under 0.6, by their letters and digits folded (`ony` → `0ny`), each with the words read.
    private var halfSure: [String: Set<String>] = [:]

    init() {}

    /// The doubts of a page laid out from OCR's words (a PDF's own text, read with confidence 1, has none).
    init(_ layout: PageLayout) {
        for word in layout.words where word.confidence < 0.6 {
            let token = FactCheck.token(Substring(word.text))
            guard token.count >= 2 else { continue }
            if word.confidence < 0.3 { unsure.insert(token) }
            halfSure[Self.folded(token), default: []].insert(token)
        }
    }

    var isEmpty: Bool { unsure.isEmpty && halfSure.isEmpty }

    /// True when a word of `value` is one OCR was unsure of, or one it was half sure of given with a letter and a digit
    /// exchanged; with `halfSure`, any word it was less than 60% sure of (a hospital number, which has no check digit:
    /// `3700970` read at 45% where the page says `K3700970`).
    func contains(_ value: String?, halfSure anyHalfSure: Bool = false) -> Bool {
        guard let value, !isEmpty else { return false }
        return value.split(whereSeparator: { $0 == " " || $0 == "," || $0 == "/" || $0 == "-" }).contains { word in
            let token = FactCheck.token(word)
            if unsure.contains(token) { return true }
            guard let read = halfSure[Self.folded(token)] else { return false }
            return anyHalfSure || !read.contains(token)
        }
    }

    /// A token with the letters OCR mistakes for digits made digits (`o` → `0`, `l` → `1`).
    private static func folded(_ token: String) -> String {
        String(token.map { character -> Character in
            switch character {
            case "o": "0"
            case "i", "l": "1"
            case "s": "5"
            case "b": "8"
            case "z": "2"
            default: character
            }
        })
    }
}

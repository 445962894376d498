import Foundation

/// Prepares extracted text for the index, so that what a person types finds it.
public enum TextNormalizer {
    /// - NUL and other control characters (but line breaks and tabs) and soft hyphens go;
    /// - Unicode NFKC, so ligatures (`ﬁ`), full-width and compatibility forms match their
    ///   plain letters;
    /// - a word hyphenated at a line end is joined (`docu-` + `ment` → `document`) and its
    ///   hyphenated form kept beside it, so both searches find it.
    public static func normalize(_ text: String) -> String {
        var text = text
        let isPlainASCII = text.utf8.allSatisfy { $0 < 0x80 && ($0 >= 0x20 || $0 == 0x0A || $0 == 0x09 || $0 == 0x0D || $0 == 0x0C) }
        if !isPlainASCII {
            text = String(String.UnicodeScalarView(text.unicodeScalars.compactMap { scalar -> Unicode.Scalar? in
                switch scalar.value {
                case 0x00AD: return nil  // soft hyphen
                case 0x0A, 0x09, 0x0D, 0x0C: return scalar
                case 0x00..<0x20, 0x7F: return nil
                default: return scalar
                }
            }))
            text = text.precomposedStringWithCompatibilityMapping
        }
        return joinHyphenatedLineEnds(text)
    }

    /// `left-` at a line end followed by `right` on the next line becomes `leftright left-right`.
    static func joinHyphenatedLineEnds(_ text: String) -> String {
        guard hasHyphenAtLineEnd(text) else { return text }
        let scalars = Array(text.unicodeScalars)
        var out = String.UnicodeScalarView()
        var i = 0
        while i < scalars.count {
            let scalar = scalars[i]
            let isHyphen = scalar == "-" || scalar == "\u{2010}"
            if isHyphen, i + 1 < scalars.count, scalars[i + 1] == "\n", i > 0, isWordScalar(scalars[i - 1]) {
                var j = i + 2
                while j < scalars.count, scalars[j] == " " || scalars[j] == "\t" { j += 1 }
                var end = j
                while end < scalars.count, isWordScalar(scalars[end]) { end += 1 }
                if end > j, scalars[j].properties.isLowercase {
                    // The word's first half is already in `out`: find it to repeat it.
                    var start = out.count
                    let written = Array(out)
                    while start > 0, isWordScalar(written[start - 1]) { start -= 1 }
                    let left = written[start...]
                    let right = scalars[j..<end]
                    out.append(contentsOf: right)
                    out.append(" ")
                    out.append(contentsOf: left)
                    out.append("-")
                    out.append(contentsOf: right)
                    i = end
                    continue
                }
            }
            out.append(scalar)
            i += 1
        }
        return String(out)
    }

    /// Whether a hyphen (`-` or U+2010) comes right before a line feed somewhere in `text`:
    /// the only place where ``joinHyphenatedLineEnds(_:)`` changes anything. Its UTF-8 bytes
    /// are searched (each of the three scalars is a whole byte sequence, which no other
    /// scalar's bytes contain), not its characters: Foundation's `contains` took 2.4% of
    /// `index --full` on the benchmark's PDFs.
    static func hasHyphenAtLineEnd(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var i = 1
            while i < bytes.count {
                if bytes[i] == 0x0A {
                    if bytes[i - 1] == 0x2D { return true }
                    if i >= 3, bytes[i - 3] == 0xE2, bytes[i - 2] == 0x80, bytes[i - 1] == 0x90 { return true }
                }
                i += 1
            }
            return false
        }
    }

    private static func isWordScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }
}

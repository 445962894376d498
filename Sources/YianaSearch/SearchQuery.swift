import Foundation

/// Turns what a person typed into an FTS5 query that cannot be a syntax error.
///
/// - words match as words (all of them must occur: `bank statement`);
/// - `"quoted phrases"` (straight or curly quotes) match as phrases;
/// - a trailing `*` matches a prefix (`inv*`);
/// - punctuation inside a word (`e-mail`, `A-1312/B`, `10:30`, `C++`) makes it a phrase of
///   its parts, which is how the tokenizer indexed it;
/// - FTS5 operators typed as words (`AND`, `NOT`, `NEAR`, `^`, parentheses) are plain text.
public enum SearchQuery {
    /// The FTS5 expression for `text` (every term), or nil when it holds nothing searchable.
    public static func fts5(_ text: String) -> String? {
        let terms = terms(of: text)
        return terms.isEmpty ? nil : expressions(terms).match
    }

    /// What a page must match for `terms` (every term), and what it must match to be listed as
    /// a matching page: the same, and any of the terms in its own text (not only in the title,
    /// tags or folder every page row of a document repeats). `alternatives`: for a term (by
    /// position), words it also matches (``Approximate``): the term is any of them, and one of
    /// the alternatives must be there.
    static func expressions(_ terms: [Term], alternatives: [[String]] = []) -> (match: String, own: String) {
        let each = terms.enumerated().map { index, term -> [String] in
            [quoted(term)] + (index < alternatives.count ? alternatives[index] : []).map { quoted(Term(text: $0, prefix: false)) }
        }
        var match = each.map { $0.count == 1 ? $0[0] : "(" + $0.joined(separator: " OR ") + ")" }.joined(separator: alternatives.isEmpty ? " " : " AND ")
        // With alternatives, one of them at least (a page with none matches as typed): few
        // pages, where the typed words alone may be on thousands.
        let any = each.flatMap { $0.dropFirst() }
        if !any.isEmpty { match += " AND (" + any.joined(separator: " OR ") + ")" }
        return (match, "(\(match)) AND {body} : (\(each.joined().joined(separator: " OR ")))")
    }

    /// A term as an FTS5 phrase (a prefix with its `*`).
    static func quoted(_ term: Term) -> String {
        // FTS5 reads its expression only up to a NUL (inside a phrase, "unterminated
        // string"); the tokenizer parts words at a NUL as at a space, so a space it is.
        let text = term.text.replacingOccurrences(of: "\"", with: "\"\"").replacingOccurrences(of: "\u{0}", with: " ")
        let quoted = "\"" + text + "\""
        return term.prefix ? quoted + "*" : quoted
    }

    /// One thing to match: a word, a word with punctuation inside or a quoted phrase (the
    /// index's tokenizer splits it into words in a row), or a prefix (`inv*`).
    public struct Term: Sendable, Equatable {
        public let text: String
        public let prefix: Bool
        /// Typed in quotes: matched exactly.
        public var quoted = false
    }

    /// The terms of what a person typed, compatibility forms folded as the indexed text is
    /// (ligatures, full-width forms, …); only terms with a letter or digit (anything else
    /// would be an empty phrase).
    public static func terms(of text: String) -> [Term] {
        tokens(of: text.precomposedStringWithCompatibilityMapping).compactMap { token in
            var word = token.text
            var prefix = false
            if !token.quoted {
                word = word.trimmingCharacters(in: CharacterSet.alphanumerics.inverted.subtracting(CharacterSet(charactersIn: "*")))
                if word.hasSuffix("*") {
                    prefix = true
                    while word.hasSuffix("*") { word.removeLast() }
                    word = word.trimmingCharacters(in: CharacterSet.alphanumerics.inverted)
                }
            }
            guard word.unicodeScalars.contains(where: { CharacterSet.alphanumerics.contains($0) }) else { return nil }
            return Term(text: word, prefix: prefix, quoted: token.quoted)
        }
    }

    struct Token {
        let text: String
        let quoted: Bool
    }

    /// What a person typed, split at spaces outside quotes (straight or curly).
    static func tokens(of text: String) -> [Token] {
        var tokens: [Token] = []
        var current = ""
        var inQuote = false
        func flush(quoted: Bool) {
            if !current.isEmpty { tokens.append(Token(text: current, quoted: quoted)) }
            current = ""
        }
        for character in text {
            if character == "\"" || character == "\u{201C}" || character == "\u{201D}" || character == "\u{201E}" {
                flush(quoted: inQuote)
                inQuote.toggle()
            } else if character.isWhitespace && !inQuote {
                flush(quoted: false)
            } else {
                current.append(character)
            }
        }
        flush(quoted: inQuote)
        return tokens
    }
}

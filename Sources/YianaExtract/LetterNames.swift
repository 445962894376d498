import Foundation

/// People's names as letters write them: with titles and credentials, in capitals on some
/// letterheads, with hyphens and apostrophes that are part of them (`O'Brien`, `Anderson-Dixon`).
enum LetterNames {
    /// Letters after a name that are qualifications, not part of it.
    private static let credentials: Set<String> = [
        "mbbs", "mb", "bs", "bsc", "ba", "ma", "msc", "md", "phd", "dm", "ms", "mchir", "frcophth", "frcs", "frcp", "frcpath", "frcr",
        "frcgp", "mrcgp", "mrcp", "mrcs", "frca", "fcophth", "dobst", "drcog", "mrcog", "frcog", "frcpch", "mrcpch", "frcpsych",
        "bchir", "chb", "bch", "bao", "dphil", "mbchb", "bmbs", "bm", "facs", "fracs", "rgn", "rn", "mcoptom", "fboa", "hons", "orl-hns",
        "(orl-hns)", "(hons)", "(ed)", "(eng)", "(glasg)", "(lond)", "(uk)", "frcs(ed)", "frcs(orth)", "(orth)", "ed", "eng", "lond",
    ]

    /// `text` with every word capitalised: `O'NEILL` → `O'Neill`, `ANDERSON-DIXON` →
    /// `Anderson-Dixon`, `ST MARY'S WALK` → `St Mary's Walk`.
    static func titleCased(_ text: String) -> String {
        var result = ""
        var capitalNext = true
        let characters = Array(text.lowercased())
        for (index, character) in characters.enumerated() {
            if capitalNext && character.isLetter {
                result.append(contentsOf: character.uppercased())
                capitalNext = false
                continue
            }
            result.append(character)
            if character == " " || character == "-" || character == "(" {
                capitalNext = true
            } else if character == "'" {
                // O'Neill, but not Mary's.
                let after = characters[(index + 1)...].prefix { $0.isLetter }
                capitalNext = after.count >= 2 && index >= 1 && characters[index - 1] == "o" && (index == 1 || !characters[index - 2].isLetter)
            } else if !character.isLetter {
                capitalNext = false
            }
        }
        return result
    }

    /// A person's name from `raw` (`Mrs Jane Smith.`, `PETER GREAVES`, `Mr Luke Herbert MBBS
    /// BSc FRCOphth`): without its title and credentials, capitals made a name's; and the
    /// title, when it had one. Nil when it does not read as a name (digits, a firm's words,
    /// one word or more than six).
    static func person(_ raw: Substring) -> (name: String, title: String?)? {
        guard !raw.isEmpty, raw.utf8.count <= 120, !raw.utf8.contains(where: { TextPatterns.isDigit($0) || $0 == 0x40 || $0 == 0x2F || $0 == 0x3A || $0 == 0x7C })
        else { return nil }
        var trimmed = raw
        while let first = trimmed.first, isEdge(first) { trimmed = trimmed.dropFirst() }
        while let last = trimmed.last, isEdge(last) { trimmed = trimmed.dropLast() }
        var text = String(trimmed)
        if text.hasBytes("\n") || text.hasBytes("\u{2019}") {
            text = String(text.map { $0 == "\n" ? " " : $0 == "\u{2019}" ? "'" : $0 })
        }
        guard !text.isEmpty, text.utf8.count <= 100 else { return nil }
        if !text.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }), !text.contains(where: \.isLowercase) { text = titleCased(text) }
        var words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map { word -> String in
            word.last == "," ? String(word.dropLast()) : String(word)
        }.filter { !$0.isEmpty }
        while let last = words.last, credentials.contains(bare(last)) || isAllCapitals(last) && words.count > 2 {
            words.removeLast()
        }
        // `DrS Lim`: a title run into an initial, as OCR reads a narrow space.
        if let first = words.first, first.count >= 3, let initial = first.last, initial.isUppercase,
           PeopleText.titles.contains(bare(String(first.dropLast()))) {
            words.replaceSubrange(0...0, with: [String(first.dropLast()), String(initial)])
        }
        var title: String?
        while words.count > 1, PeopleText.titles.contains(bare(words[0])) {
            title = title ?? (words[0].last == "." ? String(words[0].dropLast()) : words[0])
            words.removeFirst()
        }
        guard (2...6).contains(words.count) else { return nil }
        // `SMITH Jane`, `ST JOHN Arthur`: the surname in capitals before the forenames is put last.
        let leadingCapitals = words.prefix { $0.filter(\.isLetter).count >= 2 && !$0.contains(where: \.isLowercase) }.count
        if leadingCapitals > 0, leadingCapitals < words.count, words[leadingCapitals...].allSatisfy({ $0.contains(where: \.isLowercase) }) {
            words = Array(words[leadingCapitals...] + words[..<leadingCapitals])
        }
        words = words.map { word in
            let word = word.hasSuffix(".") && word.utf8.count > 2 ? String(word.dropLast()) : word
            return word.utf8.count >= 2 && !word.contains(where: \.isLowercase) ? titleCased(word) : word  // `Mrs Jane SMITH`
        }
        guard words.allSatisfy({ word in
            guard let first = word.first, first.isLetter else { return false }
            return (first.isUppercase || ["de", "van", "von", "der", "le", "la", "du", "da", "di", "al", "bin"].contains(word))
                && word.allSatisfy { $0.isLetter || $0 == "-" || $0 == "'" || $0 == "." }
        }) else { return nil }
        let name = words.joined(separator: " ")
        guard !PeopleText.names(organisationIn: name) else { return nil }
        return (name, title)
    }

    /// What may stand around a name and is no part of it.
    private static func isEdge(_ character: Character) -> Bool {
        switch character {
        case " ", ",", ".", ";", ":", "-", "–", "—", "\t", "\n", "'", "\u{2019}", "|", "_": true
        default: false
        }
    }

    /// `word` lowercased, without the full stops and commas around it (`Dr.` → `dr`).
    private static func bare(_ word: String) -> String {
        var word = Substring(word)
        while word.last == "." || word.last == "," { word = word.dropLast() }
        while word.first == "." || word.first == "," { word = word.dropFirst() }
        return word.utf8.allSatisfy({ $0 < 0x80 }) ? String(decoding: word.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self) : word.lowercased()
    }

    /// True for `FRCOphth`-like words: capitals and lowercase letters, at least half of them
    /// capitals (a qualification; `SMITH` is a surname written in capitals, `MacLeod` a name).
    private static func isAllCapitals(_ word: String) -> Bool {
        if word.utf8.allSatisfy({ $0 < 0x80 }) {  // nearly every word: its bytes counted
            var capitals = 0, lower = 0
            for byte in word.utf8 {
                if byte >= 0x41 && byte <= 0x5A { capitals += 1 } else if byte >= 0x61 && byte <= 0x7A { lower += 1 }
            }
            return capitals >= 3 && capitals * 2 >= capitals + lower && lower > 0
        }
        let letters = word.filter(\.isLetter)
        let capitals = letters.filter(\.isUppercase).count
        return capitals >= 3 && capitals * 2 >= letters.count && letters.contains(where: \.isLowercase)
    }

    /// The surname of `name`: its last word, lowercased, without punctuation.
    static func surname(_ name: String) -> String {
        let last = name.split(separator: " ").last.map(String.init) ?? name
        guard last.utf8.allSatisfy({ $0 < 0x80 }) else { return last.lowercased().trimmingCharacters(in: .punctuationCharacters) }
        // An ASCII word (nearly every one): its bytes lowercased and ASCII's punctuation trimmed, as Foundation would.
        let bytes = last.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        guard let start = bytes.firstIndex(where: { !asciiPunctuation.contains($0) }),
              let end = bytes.lastIndex(where: { !asciiPunctuation.contains($0) }) else { return "" }
        return String(decoding: bytes[start...end], as: UTF8.self)
    }

    /// The ASCII characters of `CharacterSet.punctuationCharacters` (Unicode's P categories).
    private static let asciiPunctuation = Set("!\"#%&'()*,-./:;?@[\\]_{}".utf8)

    /// The same person, told by name: equal without titles, case and punctuation, or the same
    /// surname with the first name or its initial agreeing (`J Shaw` and `James Shaw`).
    static func same(_ a: String, _ b: String) -> Bool {
        func words(_ s: String) -> [String] { s.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "-" }).map(String.init) }
        let (x, y) = (words(a), words(b))
        guard let xl = x.last, let yl = y.last, xl == yl else { return false }
        guard let xf = x.first, let yf = y.first, x.count > 1, y.count > 1 else { return true }
        return xf == yf || (xf.count == 1 && yf.hasPrefix(xf)) || (yf.count == 1 && xf.hasPrefix(yf))
    }
}

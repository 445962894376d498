import Foundation

/// Search that forgives: which words of a query may match words of the index approximately,
/// how far, and how the index's own words are found that do.
///
/// The rule (Meilisearch's, with OCR's slips added):
/// - a word of 5 to 8 letters matches words one edit away, of 9 or more letters two edits;
///   an edit is a letter inserted, deleted or substituted, or two neighbours swapped;
/// - one of OCR's known confusions is one edit too, although it changes two letters (`rn` read
///   for `m`, `cl` for `d`, `vv` for `w`, `li` for `h`, `11` for `ll`, …; ``confusions``); the
///   confusions of one letter for another (`0`/`o`, `1`/`l`/`i`, `5`/`s`, `8`/`b`, `e`/`c`) are
///   one substitution anyway;
/// - a word the index holds on ``commonWord`` pages or more is taken as typed, and only the
///   words near it that are rare (on fewer pages) are looked for: its misreadings;
/// - shorter words, words with digits (numbers, postcodes, dates, codes), quoted words and
///   prefixes (`inv*`) match exactly only; of a word written with punctuation inside
///   (`D'Souza`, `Anderson-Dixon`), each part by the rule.
///
/// Candidates come from the index's vocabulary (every word of four letters or more it holds,
/// folded as the index folds them), never from a scan of it: for one edit, each string one edit
/// away is looked up (``Probes/exact``; a few hundred look-ups in the vocabulary's B-tree); for
/// two edits, the word is split in two, one half of which holds at most one edit, so a match
/// begins with a string one edit from the first half or ends with one one edit from the second
/// (``Probes/prefixes``, ``Probes/suffixes``; ranges of the B-tree, then each word found is
/// measured). Both index backends look up the same probes and measure with ``distance(_:_:limit:)``,
/// so they find the same approximate words.
public enum Approximate {
    /// The edits a query word of `length` letters may be away from a word it matches.
    public static func allowedEdits(_ length: Int) -> Int {
        length >= 9 ? 2 : length >= 5 ? 1 : 0
    }

    /// The folded words of `term` that may match approximately (each a plain word of five
    /// letters or more, no digits; the term not quoted, not a prefix): the term itself, or the
    /// words of one written with punctuation inside (`D'Souza`, `Anderson-Dixon`).
    public static func words(of term: SearchQuery.Term) -> [String] {
        guard !term.prefix, !term.quoted else { return [] }
        return parts(of: term).filter { word in
            word.unicodeScalars.allSatisfy { $0.properties.isAlphabetic } && allowedEdits(word.unicodeScalars.count) > 0
        }
    }

    /// The words of a term as the index reads them (folded, parted at every other character).
    static func parts(of term: SearchQuery.Term) -> [String] {
        Vocabulary.searchable(term.text).split(separator: " ").map(String.init)
    }

    /// OCR's confusions of two letters with one or two others, each one edit (both ways round).
    /// A confusion of one letter for another is one substitution already.
    public static let confusions: [(String, String)] = [
        ("rn", "m"), ("in", "m"), ("ni", "m"), ("nn", "m"), ("ri", "n"), ("ii", "n"), ("ii", "u"),
        ("cl", "d"), ("vv", "w"), ("li", "h"), ("lc", "k"),
        ("11", "ll"), ("1i", "ll"), ("i1", "ll"), ("ii", "ll"), ("00", "oo"),
    ]

    struct Unit {
        let from: [Unicode.Scalar], to: [Unicode.Scalar]
    }

    /// The confusions both ways round, by the last letters of the two sides.
    static let units: [Pair: [Unit]] = {
        var units: [Pair: [Unit]] = [:]
        for (a, b) in confusions {
            for (from, to) in [(Array(a.unicodeScalars), Array(b.unicodeScalars)), (Array(b.unicodeScalars), Array(a.unicodeScalars))] {
                units[Pair(from.last!, to.last!), default: []].append(Unit(from: from, to: to))
            }
        }
        return units
    }()

    struct Pair: Hashable {
        let a: Unicode.Scalar, b: Unicode.Scalar
        init(_ a: Unicode.Scalar, _ b: Unicode.Scalar) {
            self.a = a
            self.b = b
        }
    }

    /// The edits between `a` and `b` (the restricted Damerau-Levenshtein distance, with an OCR
    /// confusion one edit), or nil when more than `limit`.
    public static func distance(_ a: String, _ b: String, limit: Int) -> Int? {
        distance(Array(a.unicodeScalars), Array(b.unicodeScalars), limit: limit)
    }

    static func distance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int? {
        let n = a.count, m = b.count
        guard abs(n - m) <= limit else { return nil }
        let width = m + 1
        var d = [Int](repeating: 0, count: (n + 1) * width)
        for j in 0...m { d[j] = j }
        for i in stride(from: 1, through: n, by: 1) {
            d[i * width] = i
            var best = i
            for j in stride(from: 1, through: m, by: 1) {
                var value = min(d[(i - 1) * width + j] + 1, d[i * width + j - 1] + 1,
                                d[(i - 1) * width + j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, d[(i - 2) * width + j - 2] + 1)
                }
                if let candidates = units[Pair(a[i - 1], b[j - 1])] {
                    for unit in candidates where unit.from.count <= i && unit.to.count <= j
                        && a[(i - unit.from.count)..<i].elementsEqual(unit.from) && b[(j - unit.to.count)..<j].elementsEqual(unit.to) {
                        value = min(value, d[(i - unit.from.count) * width + j - unit.to.count] + 1)
                    }
                }
                d[i * width + j] = value
                best = min(best, value)
            }
            // A later cell reaches back two rows at most (a swap, a confusion of two letters).
            if i > 1, best > limit, (0...m).allSatisfy({ d[(i - 1) * width + $0] > limit }) { return nil }
        }
        let result = d[n * width + m]
        return result <= limit ? result : nil
    }

    /// What to look up in a vocabulary for the words within `edits` of a word.
    public struct Probes: Sendable, Equatable {
        /// Words to look up as they are (one edit: every string one edit away).
        public var exact: Set<String> = []
        /// Beginnings of words (two edits: within one edit of the word's first half).
        public var prefixes: Set<String> = []
        /// Endings of words, reversed (two edits: within one edit of the word's second half).
        public var suffixes: Set<String> = []
        /// The lengths a match can have.
        public var lengths: ClosedRange<Int> = 0...0
    }

    /// The probes for the words within `edits` (1 or 2) of `word` (folded), whose letters are
    /// those of `alphabet` (the vocabulary's) or of the word itself.
    public static func probes(for word: String, edits: Int, alphabet: Set<Unicode.Scalar>) -> Probes {
        let scalars = Array(word.unicodeScalars)
        let letters = Array(alphabet.union(scalars)).sorted { $0.value < $1.value }
        var probes = Probes()
        probes.lengths = max(1, scalars.count - edits)...(scalars.count + edits)
        if edits <= 1 {
            probes.exact = oneEditAway(scalars, letters: letters)
            probes.exact.remove(word)
            return probes
        }
        // Two splits a letter apart: an edit spanning two letters (a swap, a confusion) at the
        // one lies wholly within a half at the other, and no two edits share a letter, so at one
        // of them the two edits are apart and one half holds at most one.
        let middle = scalars.count / 2
        for split in [middle, middle + 1] where split > 0 && split < scalars.count {
            let head = Array(scalars[..<split]), tail = Array(scalars[split...])
            probes.prefixes.formUnion(oneEditAway(head, letters: letters))
            probes.prefixes.insert(String(String.UnicodeScalarView(head)))
            for ending in oneEditAway(tail, letters: letters).union([String(String.UnicodeScalarView(tail))]) {
                probes.suffixes.insert(Vocabulary.reversed(ending))
            }
        }
        probes.prefixes.remove("")
        probes.suffixes.remove("")
        return probes
    }

    /// Every string one edit from `word`, but `word` itself (unless a swap of two like letters).
    static func oneEditAway(_ word: [Unicode.Scalar], letters: [Unicode.Scalar]) -> Set<String> {
        var found = Set<String>()
        func add(_ scalars: some Sequence<Unicode.Scalar>) {
            var view = String.UnicodeScalarView()
            view.append(contentsOf: scalars)
            found.insert(String(view))
        }
        let n = word.count
        for i in 0..<n {
            add(word[..<i] + word[(i + 1)...])
            if i + 1 < n, word[i] != word[i + 1] {
                var swapped = word
                swapped.swapAt(i, i + 1)
                add(swapped)
            }
            for letter in letters where letter != word[i] {
                var substituted = word
                substituted[i] = letter
                add(substituted)
            }
        }
        for i in 0...n {
            for letter in letters {
                add(word[..<i] + [letter] + word[i...])
            }
        }
        for (a, b) in confusions {
            for (from, to) in [(Array(a.unicodeScalars), Array(b.unicodeScalars)), (Array(b.unicodeScalars), Array(a.unicodeScalars))] {
                var i = 0
                while i + from.count <= n {
                    if word[i..<(i + from.count)].elementsEqual(from) {
                        add(word[..<i] + to + word[(i + from.count)...])
                    }
                    i += 1
                }
            }
        }
        return found
    }

    /// Of `candidates` (words of the vocabulary), those within `edits` of `word` but `word`
    /// itself, nearest first (then A to Z), at most ``maximumMatches``.
    public static func matches(of word: String, among candidates: some Sequence<String>, edits: Int) -> [String] {
        let scalars = Array(word.unicodeScalars)
        var measured: [(word: String, distance: Int)] = []
        for candidate in Set(candidates) where candidate != word {
            if let distance = distance(scalars, Array(candidate.unicodeScalars), limit: edits) {
                measured.append((candidate, distance))
            }
        }
        return nearest(measured)
    }

    /// Of words measured, the nearest first (then A to Z), at most ``maximumMatches``.
    static func nearest(_ measured: [(word: String, distance: Int)]) -> [String] {
        measured.sorted { ($0.distance, $0.word) < ($1.distance, $1.word) }.prefix(maximumMatches).map(\.word)
    }

    /// A word the index holds on this many pages or more is taken as typed: a word that common
    /// is no slip, and of its neighbours only the rare ones are looked for (OCR's misreadings of
    /// it: a name misread in a few scans); its common neighbours, many and on many pages, cost
    /// two of every three searches of two words from real manuals (Scripts/bench/search-load.sh).
    public static let commonWord = 20

    /// The approximate words one query word may stand for at most: enough for every spelling a
    /// library holds of a name, few enough for a quick query.
    public static let maximumMatches = 32
}

extension Approximate {
    /// The folded words of `terms` that may match approximately, in order, each once.
    public static func words(of terms: [SearchQuery.Term]) -> [String] {
        var found: [String] = []
        for term in terms { for word in words(of: term) where !found.contains(word) { found.append(word) } }
        return found
    }

    /// For each of `terms`, what it also matches (of `found`, by folded word): a word's
    /// approximate words; for a term of several words, the term with one of them replaced by
    /// one of its approximate words (`d suoza` for `D'Souza`). Nil when no term has any.
    public static func alternatives(of terms: [SearchQuery.Term], found: [String: [String]]) -> [[String]]? {
        let alternatives = terms.map { term -> [String] in
            let parts = parts(of: term)
            var variants: [String] = []
            for word in words(of: term) {
                for index in parts.indices where parts[index] == word {
                    for match in found[word] ?? [] {
                        var variant = parts
                        variant[index] = match
                        variants.append(variant.joined(separator: " "))
                    }
                }
            }
            return Array(variants.prefix(maximumMatches))
        }
        return alternatives.contains(where: { !$0.isEmpty }) ? alternatives : nil
    }

    /// The matches in `found` of the words of `common`: those to ask the index about for
    /// ``keepingRare(_:common:commonMatches:)``.
    public static func matches(of common: Set<String>, in found: [String: [String]]) -> [String] {
        Array(Set(common.flatMap { found[$0] ?? [] }))
    }

    /// `found` with the matches of each word of `common` (a word the index holds on
    /// ``commonWord`` pages or more) cut to the rare ones: all but `commonMatches`.
    public static func keepingRare(_ found: [String: [String]], common: Set<String>, commonMatches: Set<String>) -> [String: [String]] {
        var kept = found
        for word in common { kept[word] = found[word]?.filter { !commonMatches.contains($0) } }
        return kept
    }

    /// The hits of the approximate search (`wide`) that the exact one (`exact`) did not find,
    /// as many as there is room for after it.
    public static func added(_ wide: [SearchHit], after exact: [SearchHit], limit: Int) -> [SearchHit] {
        let seen = Set(exact.map(\.path))
        return Array(wide.filter { !seen.contains($0.path) }.prefix(max(0, limit - exact.count)))
    }

    /// `hits` with the words each matched approximately: of each term's `alternatives`, those
    /// `holding` (a word's documents, by path) says the document holds.
    public static func annotated(_ hits: [SearchHit], terms: [SearchQuery.Term], alternatives: [[String]],
                                 holding: [String: Set<String>]) -> [SearchHit] {
        hits.map { hit in
            var hit = hit
            hit.approximate = zip(terms, alternatives).compactMap { term, words in
                let held = words.filter { holding[$0]?.contains(hit.path) == true }
                return held.isEmpty ? nil : SearchHit.Approximation(word: term.text, matches: held)
            }
            return hit
        }
    }
}

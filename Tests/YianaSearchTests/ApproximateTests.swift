import Foundation
import Testing
import YianaLibrary
@testable import YianaSearch

/// The rule of search that forgives (issue 56): what counts as one edit, which words may match
/// approximately, and that the vocabulary's look-ups find every word the rule allows.
@Suite("search that forgives: the rule")
struct ApproximateTests {
    @Test func editsAreCountedAsTheRuleSays() {
        // Typed slips: dropped, doubled, swapped, substituted letters.
        #expect(Approximate.distance("marlowe", "marlow", limit: 1) == 1)
        #expect(Approximate.distance("hollis", "holliss", limit: 1) == 1)
        #expect(Approximate.distance("armitage", "amritage", limit: 1) == 1)
        #expect(Approximate.distance("armitage", "armitoge", limit: 1) == 1)
        // OCR's slips: one letter for another, and two for one.
        #expect(Approximate.distance("marlowe", "mariowe", limit: 1) == 1)
        #expect(Approximate.distance("armitage", "arrnitage", limit: 1) == 1)
        #expect(Approximate.distance("hollis", "ho11is", limit: 1) == 1)
        #expect(Approximate.distance("dodd", "clodd", limit: 1) == 1)
        #expect(Approximate.distance("wendy", "vvendy", limit: 1) == 1)
        #expect(Approximate.distance("hughes", "liughes", limit: 1) == 1)
        // Beyond the limit, nil; two slips are two edits.
        #expect(Approximate.distance("marlowe", "mariovve", limit: 1) == nil)
        #expect(Approximate.distance("marlowe", "mariovve", limit: 2) == 2)
        #expect(Approximate.distance("hollis", "jones", limit: 2) == nil)
        #expect(Approximate.distance("", "ab", limit: 2) == 2)
    }

    @Test func whichWordsMayMatchApproximately() {
        func word(_ text: String, quoted: Bool = false, prefix: Bool = false) -> String? {
            Approximate.words(of: SearchQuery.Term(text: text, prefix: prefix, quoted: quoted)).first
        }
        #expect(word("Marlowe") == "marlowe")
        #expect(word("Ærøskøbing") != nil)
        #expect(word("Hill") == nil)  // short words stay exact
        #expect(word("SW1A") == nil && word("2024") == nil && word("A-1312/B") == nil && word("10:30") == nil)
        // A name with punctuation inside: its words by the rule.
        #expect(Approximate.words(of: SearchQuery.Term(text: "Anderson-Dixon", prefix: false)) == ["anderson", "dixon"])
        #expect(Approximate.words(of: SearchQuery.Term(text: "D'Souza", prefix: false)) == ["souza"])
        let terms = SearchQuery.terms(of: "Hamish D'Suoza")
        #expect(Approximate.alternatives(of: terms, found: ["suoza": ["souza"], "hamish": ["hamich"]]) == [["hamich"], ["d souza"]])
        #expect(word("Marlowe", quoted: true) == nil)
        #expect(word("Marlo", prefix: true) == nil)
        #expect(Approximate.allowedEdits(4) == 0 && Approximate.allowedEdits(5) == 1 && Approximate.allowedEdits(8) == 1)
        #expect(Approximate.allowedEdits(9) == 2)
        #expect(SearchQuery.terms(of: "\"Marlowe\" Armitage").map(\.quoted) == [true, false])
    }

    @Test func theVocabularyKeepsWordsOfFourLettersOrMoreWithALetter() {
        let words = Vocabulary.words(of: ["Dear Mrs Mariowe, re: your appointment on 12/03/2024 at St. Ærø Clinic SW1A 1AA", "ho11is 123456"])
        #expect(words.isSuperset(of: ["dear", "mariowe", "your", "appointment", "clinic", "ho11is", "sw1a"]))
        #expect(!words.contains("2024") && !words.contains("123456") && !words.contains("mrs"))
    }

    /// The look-ups' lists, and the paths of `holding`, as SQLite's `json_each` reads them back.
    @Test func listsAreValidJSONWhateverTheyHold() throws {
        let values = ["marlowe", "Letters/Mrs \"Q\" O'Brien.yianazip", "back\\slash", "tab\tand\u{1}", "Café 日本 🎉", ""]
        let decoded = try JSONSerialization.jsonObject(with: Data(SearchIndex.jsonStrings(values).utf8)) as? [String]
        #expect(decoded == values)
        #expect(SearchIndex.jsonStrings([String]()) == "[]")
    }

    /// Plain ASCII pages are read from their bytes: the same words as any text's way.
    @Test func anASCIIPageGivesTheWordsAnyTextWould() {
        var random = SeededGenerator(seed: 9)
        let pieces = ["Dear", "MARIOWE", "ho11is", "2024", "a", "SW1A", "x" + String(repeating: "y", count: 45), "Re:", "O'Brien-Sousa",
                      "e-mail", "\t", "\n", "  ", "1234567", "abc", "abcd", "ABCDEFGHIJKLMNOPQRSTUVWXYZABCDEFGHIJKLMN", "(ok)"]
        for _ in 0..<200 {
            let text = (0..<Int.random(in: 0..<30, using: &random)).map { _ in pieces[Int.random(in: 0..<pieces.count, using: &random)] }
                .joined(separator: Bool.random(using: &random) ? " " : ",")
            let expected = Set(Vocabulary.searchable(text).split(separator: " ").map(String.init).filter {
                $0.count >= Vocabulary.shortest && $0.count <= Vocabulary.longest && $0.contains(where: \.isLetter)
            })
            #expect(Vocabulary.words(of: [text]) == expected, "\(text)")
        }
    }

    /// Whatever the words, the look-ups (each probe as the index answers it: a word, or a
    /// range of beginnings or endings) find exactly what measuring every word finds.
    @Test func theLookUpsFindEveryWordTheRuleAllows() {
        var random = SeededGenerator(seed: 56)
        let letters = Array("abcdehilmnorstuvw10")
        func randomWord(_ length: Int) -> String { String((0..<length).map { _ in letters[Int.random(in: 0..<letters.count, using: &random)] }) }
        func slip(_ word: String) -> String {
            var chars = Array(word)
            let i = Int.random(in: 0..<chars.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0: chars.remove(at: i)
            case 1: chars.insert(letters[Int.random(in: 0..<letters.count, using: &random)], at: i)
            case 2: chars[i] = letters[Int.random(in: 0..<letters.count, using: &random)]
            case 3: if i + 1 < chars.count { chars.swapAt(i, i + 1) }
            case 4: if let m = chars.firstIndex(of: "m") { chars.replaceSubrange(m...m, with: ["r", "n"]) }
            default: if let l = chars.firstIndex(of: "l") { chars[l] = "1" }
            }
            return String(chars)
        }
        var vocabulary = Set<String>()
        var queries: [String] = []
        for _ in 0..<100 {
            let word = randomWord(5 + Int.random(in: 0..<8, using: &random))
            queries.append(word)
            vocabulary.insert(word)
            var slipped = word
            for _ in 0..<(1 + Int.random(in: 0..<3, using: &random)) { slipped = slip(slipped); vocabulary.insert(slipped) }
        }
        for _ in 0..<1500 { vocabulary.insert(randomWord(4 + Int.random(in: 0..<10, using: &random))) }
        let sorted = vocabulary.sorted()
        let alphabet = Vocabulary.letters(of: vocabulary)
        let lexicon = Lexicon(words: vocabulary.shuffled(using: &random))
        #expect(lexicon.count == vocabulary.count)
        var matched = 0
        for query in queries {
            let edits = Approximate.allowedEdits(query.unicodeScalars.count)
            let probes = Approximate.probes(for: query, edits: edits, alphabet: alphabet)
            var candidates = Array(probes.exact.filter(vocabulary.contains))
            candidates += sorted.filter { word in
                probes.lengths.contains(word.unicodeScalars.count)
                    && (1...word.count).contains { probes.prefixes.contains(String(word.prefix($0)))
                                                   || probes.suffixes.contains(Vocabulary.reversed(String(word.suffix($0)))) }
            }
            let found = Approximate.matches(of: query, among: candidates, edits: edits)
            let everyWord = Approximate.matches(of: query, among: sorted, edits: edits)
            #expect(found == everyWord, "\(query)")
            #expect(lexicon.matches(of: query, edits: edits) == everyWord, "the walk of the lexicon, \(query)")
            matched += found.count
        }
        #expect(matched >= queries.count)  // every query has its slipped forms to find
    }

    /// The walk of a lexicon in memory finds what measuring every word finds, with letters
    /// beyond ASCII, OCR's confusions at either end of a word, and words longer than any
    /// match can be.
    @Test func theLexiconFindsWhatMeasuringEveryWordFinds() {
        let words = ["marlowe", "mariowe", "rnarlowe", "marlovve", "marlow", "marlowes", "amrlowe", "marlowe",
                     "müller", "muller", "mueller", "mullér", "hollis", "ho11is", "hoilis", "holiis", "hollies",
                     "cladding", "dadding", "cladd1ng", "armitage", "arrnitage", "arnnitage", "amritage",
                     "wainwright", "vvainwright", "wainwrigbt", "vvainwrigbt", "wainwrightson", "mar", "marlowemarlowe",
                     "zzzz", "aaaa", "ma", "m"]
        let lexicon = Lexicon(words: words.reversed())
        #expect(lexicon.count == Set(words).count)
        for query in ["marlowe", "muller", "hollis", "cladding", "armitage", "wainwright", "mariowe", "zzzzz"] {
            let edits = Approximate.allowedEdits(query.unicodeScalars.count)
            #expect(lexicon.matches(of: query, edits: edits) == Approximate.matches(of: query, among: words, edits: edits), "\(query)")
        }
        #expect(lexicon.matches(of: "marlowe", edits: 1).starts(with: ["amrlowe", "mariowe", "marlovve"]))
        #expect(Lexicon(words: []).matches(of: "marlowe", edits: 1).isEmpty)
    }
}

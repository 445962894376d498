import Testing
import YianaLibrary
@testable import YianaSearch

@Suite("text normalisation")
struct TextNormalizerTests {
    @Test(arguments: [
        ("e\u{FB03}cient \u{FB01}nal \u{FB02}ow", "efficient final flow"),         // ligatures
        ("\u{FF21}\u{FF22}\u{FF23} \u{2460}", "ABC 1"),                               // full-width, circled digit
        ("co\u{00AD}operation", "cooperation"),                                       // soft hyphen
        ("nul\u{0000}byte and\u{0007}bell", "nulbyte andbell"),                       // NUL, control
        ("Caf\u{0065}\u{0301}", "Caf\u{00E9}"),                                        // composed
        ("plain ascii stays", "plain ascii stays"),
    ])
    func characters(input: String, expected: String) {
        #expect(TextNormalizer.normalize(input) == expected)
    }

    @Test func lineEndHyphenationIsJoinedAndTheHyphenatedFormKept() {
        #expect(TextNormalizer.normalize("mobile de-\nvices and") == "mobile devices de-vices and")
        #expect(TextNormalizer.normalize("docu-\n   ment") == "document docu-ment")
        #expect(TextNormalizer.normalize("the \u{FB01}nal docu\u{2010}\nment") == "the final document docu-ment")
        // A capital after the break is a compound or a name, not a split word.
        #expect(TextNormalizer.normalize("Smith-\nJones") == "Smith-\nJones")
        #expect(TextNormalizer.normalize("ends with -\n") == "ends with -\n")
    }

    @Test func aHyphenBeforeACarriageReturnOrElsewhereIsLeftAlone() {
        #expect(TextNormalizer.normalize("docu-\r\nment") == "docu-\r\nment")
        #expect(TextNormalizer.normalize("well-known\nterm") == "well-known\nterm")
        #expect(TextNormalizer.normalize("caf\u{00E9}-\nterrasse") == "caf\u{00E9}terrasse caf\u{00E9}-terrasse")
    }

    /// The byte search that decides whether to look for split words finds exactly the texts
    /// whose scalars have a hyphen right before a line feed, over random texts of the
    /// scalars that matter and multi-byte neighbours.
    @Test func theLineEndHyphenSearchMatchesTheScalars() {
        let alphabet: [Unicode.Scalar] = ["-", "\u{2010}", "\u{2011}", "\n", "\r", "a", "A", " ", "\u{00E9}", "\u{20AC}", "\u{1F600}", "\u{0A10}"]
        var generator = SeededGenerator(seed: 2010)
        for _ in 0..<5_000 {
            var scalars = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                scalars.append(alphabet.randomElement(using: &generator)!)
            }
            let text = String(scalars)
            let units = Array(text.unicodeScalars)
            let expected = zip(units, units.dropFirst()).contains { ($0 == "-" || $0 == "\u{2010}") && $1 == "\n" }
            #expect(TextNormalizer.hasHyphenAtLineEnd(text) == expected, "\(text.debugDescription)")
        }
    }
}

import Testing
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
}

import Foundation
import Testing
@testable import YianaArchive

/// `JSONValue.decode` parses plain JSON itself and leaves the rest to `JSONDecoder`: its
/// answer must always be `JSONDecoder`'s.
@Suite("JSON decoding")
struct JSONValueDecodeTests {
    /// Foundation's answer: the value, or nil for an error.
    func foundation(_ bytes: [UInt8]) -> JSONValue? {
        try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }

    func fast(_ bytes: [UInt8]) -> JSONValue? {
        bytes.withUnsafeBytes { StrictJSONParser.parse($0) }
    }

    /// Texts that cover what the parser handles itself (and some it hands on).
    static let seeds: [String] = [
        #"{"id":"5858986C-F753-4749-9B6D-CFA8A85ACD2F","title":"Paper \u00e9 \/ 9688","created":734876800,"modified":734876800.25,"pageCount":1,"tags":["health"],"ocrCompleted":false}"#,
        #"{"formatVersion":2}"#,
        #" [ -0 , 12.5e-3 , 2.5E-1 , -9223372036854775808 , 9223372036854775807 , 0.1 ] "#,
        #"{"a":{"b":[true,false,null,{}],"c":[]},"d":"tab\tquote\"back\\slash\u0000"}"#,
        #"["\ud83d\ude00 ☃", "\uD834\uDD1E", "\u2028", "naïve"]"#,
        #"{"fullText":"line\nline\r\n\b\f","pageProcessingStates":[{"pageNumber":1,"needsOCR":true}]}"#,
    ]

    /// Bytes that a mutation puts in, each meaningful to some part of the grammar.
    static let interesting: [UInt8] = Array(#""\,]}[{0159e.-+: u/t"#.utf8) + [0x01, 0x7F, 0xC3, 0xFF, 0x0A]

    @Test func plainJSONIsParsedDirectlyWithFoundationsValues() {
        for seed in Self.seeds.dropFirst(2) + Self.seeds.prefix(2) {
            let bytes = Array(seed.utf8)
            #expect(fast(bytes) != nil, "the parser handles \(seed) itself")
            #expect(fast(bytes) == foundation(bytes), "\(seed)")
        }
    }

    @Test func whatFoundationHasOwnRulesForIsLeftToIt() throws {
        // Whole numbers written with a fraction or exponent, integers beyond Int64, a repeated
        // key, a trailing comma, a byte-order mark, a lone surrogate: JSONDecoder decides.
        let handedOn = ["1.0", "1e2", "-0.0", "1e-400", "1e400", "9223372036854775808", #"{"a":1,"a":2}"#, "[1,]",
                        "\u{FEFF}{}", #""\ud800""#, "01", "[" + String(repeating: "[", count: 70) + String(repeating: "]", count: 71)]
        for text in handedOn {
            let bytes = Array(text.utf8)
            #expect(fast(bytes) == nil, "\(text) is left to JSONDecoder")
            #expect((try? JSONValue.decode(Data(bytes))) == foundation(bytes), "\(text)")
        }
        #expect(try JSONValue.decode(Data("1.0".utf8)) == .integer(1))
        #expect(try JSONValue.decode(Data(#"{"a":1,"a":2}"#.utf8)) == .object(["a": .integer(1)]))
    }

    /// Every one-byte deletion, and every replacement by an interesting byte, of every seed:
    /// whenever the parser answers, its answer is Foundation's, and `decode` always agrees
    /// with Foundation on success and failure.
    @Test func everySmallDamageGetsFoundationsAnswer() {
        var direct = 0, cases = 0
        for seed in Self.seeds {
            let original = Array(seed.utf8)
            var variants: [[UInt8]] = []
            for position in original.indices {
                var deleted = original
                deleted.remove(at: position)
                variants.append(deleted)
                for byte in Self.interesting where byte != original[position] {
                    var replaced = original
                    replaced[position] = byte
                    variants.append(replaced)
                }
            }
            for bytes in variants {
                cases += 1
                let expected = foundation(bytes)
                if let parsed = fast(bytes) {
                    direct += 1
                    #expect(parsed == expected, "\(String(decoding: bytes, as: UTF8.self))")
                }
                #expect((try? JSONValue.decode(Data(bytes))) == expected, "\(String(decoding: bytes, as: UTF8.self))")
            }
        }
        // The damage must not all be handed on, or the test would check nothing of the parser.
        #expect(direct > cases / 10, "parsed \(direct) of \(cases) directly")
    }

    @Test func errorsAreFoundationsOwn() {
        let bytes = Array(#"{"title": "unterminated}"#.utf8)
        var ours = "", theirs = ""
        do { _ = try JSONValue.decode(Data(bytes)) } catch { ours = "\(error)" }
        do { _ = try JSONDecoder().decode(JSONValue.self, from: Data(bytes)) } catch { theirs = "\(error)" }
        #expect(!ours.isEmpty && ours == theirs)
    }
}

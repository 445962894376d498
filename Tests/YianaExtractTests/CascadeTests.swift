import Foundation
import Testing
import YianaArchive
import YianaExtract
import YianaTestSupport

/// The cascade on the app's own fixtures, and the rules it reads text by.
struct CascadeTests {
    let cascade = AddressCascade()

    /// Per-field accuracy on the app's 53 fixture documents (136 pages, 132 with people),
    /// page by page as the app's tests run its cascade, against what the app's cascade gets
    /// on the same pages (lh/Yiana 627e147 built on Linux: `yiana-bench people` prints both).
    @Test func theAppsFixturesAreReadAtLeastAsWellAsTheAppReadsThem() throws {
        let fixtures = try AppExtractionFixtures()
        #expect(fixtures.documents.count == 53 && fixtures.pageCount == 136)
        var score = AddressScore()
        var reachable: [String: Int] = [:]  // expected values that are in the page's text at all
        let encoder = JSONEncoder()
        for document in fixtures.documents {
            let found = try document.pages.compactMap { cascade.page($0.text, number: $0.number) }.map { try JSONValue.decode(encoder.encode($0)) }
            score.add(document: document.id, expected: document.expected, found: found)
            for page in document.expected {
                let text = document.pages.first { $0.number == Self.int(page, "page_number") }?.text ?? ""
                for field in ["line_1", "line_2", "city"] {
                    if case .object(let address)? = Self.object(page)["address"], case .string(let value)? = address[field], !value.isEmpty, text.contains(value) {
                        reachable[field, default: 0] += 1
                    }
                }
            }
        }
        print(score.table())
        let counts = score.counts
        func right(_ field: String) -> Int { counts[field]?.right ?? 0 }
        // Never below the app's cascade on the same pages.
        let app = ["name": 123, "date of birth": 30, "postcode": 132, "city": 104, "county": 0, "line_1": 0, "line_2": 0, "gp name": 15]
        for (field, figure) in app { #expect(right(field) >= figure, "\(field): \(right(field)) < the app's \(figure)") }
        // The issue's goals: names 126 of 128; line_1 90%; line_2 90% of what the pages hold
        // (14 of its 108 expected values are in no page's text: the most any reader gets is 94).
        #expect(right("name") >= 126, "\(score.misses.filter { $0.contains(" name:") })")
        #expect(Double(right("line_1")) >= 0.9 * Double(counts["line_1"]?.of ?? 0), "\(score.misses.filter { $0.contains("line_1") })")
        #expect(Double(right("line_2")) >= 0.9 * Double(reachable["line_2"] ?? 0), "\(score.misses.filter { $0.contains("line_2") })")
        #expect(counts["line_2"]?.of == 108 && reachable["line_2"] == 94)
        for field in ["date of birth", "postcode", "phones", "mrn", "method"] {
            #expect(right(field) == counts[field]?.of, "\(score.misses.filter { $0.contains(" \(field):") })")
        }
    }

    static func object(_ value: JSONValue) -> [String: JSONValue] {
        if case .object(let object) = value { return object }
        return [:]
    }

    static func int(_ value: JSONValue, _ key: String) -> Int? {
        if case .integer(let number)? = object(value)[key] { return Int(number) }
        return nil
    }

    /// The issue's cases where the app is wrong.
    @Test func aLettersFirstBodyLineIsNoNameAndUnknownIsNobody() throws {
        let letter = """
            DISCHARGE SUMMARY

            Mr James Reed attended clinic on Monday for review of ongoing symptoms.
            The patient was discharged.

            Current address on file:
            121 Mill Lane
            BB2 6PR
            """
        let page = try #require(cascade.page(letter, number: 1))
        #expect(page.patient?.fullName == "James Reed" && page.extraction?.method == "unstructured")
        #expect(page.address?.line1 == "121 Mill Lane" && page.address?.postcode == "BB2 6PR")
        let unknown = try #require(cascade.page("Unknown\n134 Mill Lane\n122 Church Road\nEpsom\nEE5 1UH", number: 2))
        #expect(unknown.patient?.fullName == nil && unknown.address?.line1 == "134 Mill Lane" && unknown.address?.line2 == "122 Church Road")
        #expect(unknown.address?.city == "Epsom")
        // A firm's letterhead or a receipt's heading is no one's address.
        #expect(cascade.page("HARBOUR HARDWARE LTD\n22 Quay Street, Bristol BS1 4DJ\nVAT No 318 4471 29", number: 1) == nil)
        #expect(cascade.page("Riverside Medical Practice\n14 Mill Lane\nExeter\nEX2 4PL", number: 1) == nil)
    }

    @Test func postcodesAreWholeWordsInEveryFormat() {
        let page = { (text: String) in cascade.page("Jane Smith\n1 High St\n\(text)", number: 1)?.address?.postcode }
        #expect(page("Leeds LS6 1AA") == "LS6 1AA")
        #expect(page("sw1a 1aa") == "SW1A 1AA")
        #expect(page("W1A0AX") == "W1A 0AX")
        #expect(page("EC1A  1BB") == "EC1A 1BB")
        #expect(page("Ref XLS6 1AAB") == nil)  // inside other words, no postcode
        #expect(page("Leeds “LS6 1AA”") == "LS6 1AA")
    }

    @Test func theDocumentsNameGivesEveryPageItsPatient() throws {
        let identity = try #require(FileNameIdentity("Anderson-Dixon_Anthony_200461"))
        #expect(identity.fullName == "Anthony Anderson-Dixon" && identity.dateOfBirth == "20/04/1961")
        #expect(FileNameIdentity("O’Brien_Mary_010125 letter")?.fullName == "Mary O'Brien")
        #expect(FileNameIdentity("O’Brien_Mary_010125")?.dateOfBirth == "01/01/2025")
        #expect(FileNameIdentity("Scan 2026-03-01") == nil && FileNameIdentity("Smith_Jane_321399") == nil)
        let pages = cascade.document("Walker_Zach_190991", pages: [(1, "Uma Cooper\n129 Mill Lane\nLeatherhead\nHH8 9GR"), (2, "nothing here")])
        #expect(pages.map(\.pageNumber) == [1] && pages[0].patient?.fullName == "Zach Walker" && pages[0].patient?.dateOfBirth == "19/09/1991")
    }

    @Test func theSectorTableGivesTownAndCounty() throws {
        let sectors = PostcodeSectors.shared
        #expect(sectors.problem == nil && sectors.count > 9_000, "\(sectors.problem ?? "")")
        #expect(sectors.place(of: "RH1 2AA") == PostcodeSectors.Place(town: "Redhill", county: "Surrey"))
        let page = try #require(cascade.page("Jane Smith\n4 Station Road\nRH1 2AA", number: 1))
        #expect(page.address?.city == "Redhill" && page.address?.county == "Surrey")
    }

    /// Hostile OCR text never crashes and every page's work is bounded (the text read is
    /// cut at 64 KiB; `Scripts/bench/extract.sh` times these pages).
    @Test func hostileTextIsReadWithoutHarm() {
        let every = (0..<2_000).map { "AB\($0 % 99) \($0 % 10)CD" }.joined(separator: " ")
        let cases = ["", "\n\n\n", String(repeating: "x", count: 1 << 20), String(repeating: "Mr Aaa Bbb 1 ", count: 80_000),
                     "Jane\u{0}Smith\u{7}\n1 High\u{1B}St\r\nLS6 1AA\u{C}", every, "Jane Smith\n" + every,
                     String(repeating: "Clearwater Medical Registration Form GP\nAddress\n", count: 20_000),
                     String(repeating: "Patient name: A\nAddress:\n", count: 30_000) + "LS6 1AA",
                     String(decoding: (0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }, as: UTF8.self)]
        for text in cases { _ = cascade.page(text, number: 1) }
        let cleaned = cascade.page("Jane\u{0}Smith\u{7}\n1 High\u{1B}St\r\nLS6 1AA\u{C}", number: 1)
        #expect(cleaned?.address?.postcode == "LS6 1AA" && cleaned?.address?.line1 == "1 High St")
    }
}

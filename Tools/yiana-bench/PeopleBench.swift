import Foundation
import YianaArchive
import YianaExtract
import YianaLibrary
import YianaTestSupport

/// `yiana-bench people [FIXTURES] [ROUNDS] [--misses]`: the extraction cascade on the app's
/// fixtures, page by page as the app's own tests run it: per-field accuracy beside the app's
/// cascade's (measured on Linux, issue 43), and the time per page over ROUNDS rounds.
/// `yiana-bench people --score DIR`: the same scoring of the address files in DIR (one
/// `<document>.json` per fixture document, by any extractor: the app's, say).
enum PeopleBench {
    /// The app's cascade on the same pages (lh/Yiana 627e147, its `ExtractionCascade.extract(from:)`
    /// page by page, built on this machine; the figures where they say more).
    /// The app's cascade on the same pages, scored the same way (lh/Yiana 627e147, its
    /// `ExtractionCascade.extract(from:)` page by page with the town and county filled from its
    /// sector table, built on this machine with Swift 6.3.1 and scored with `--score`). The
    /// issue's figures agree but for the date of birth, 30/33 there: it compared text, and
    /// `18/09/65` is `18/09/1965`.
    static let appFigures: [String: (Int, Int)] = [
        "name": (123, 128), "date of birth": (33, 33), "line_1": (0, 121), "line_2": (0, 108), "city": (104, 121), "county": (0, 12),
        "postcode": (132, 132), "phones": (17, 17), "mrn": (8, 8), "gp name": (15, 15), "gp practice": (14, 15), "gp address": (8, 9),
        "gp postcode": (5, 5), "method": (127, 132),
    ]

    static func run(_ arguments: [String]) throws -> Int32 {
        if let at = arguments.firstIndex(of: "--score"), at + 1 < arguments.count { return try score(URL(fileURLWithPath: arguments[at + 1])) }
        let positional = arguments.filter { !$0.hasPrefix("--") }
        let fixtures = try AppExtractionFixtures(at: positional.first.map { URL(fileURLWithPath: $0) } ?? AppExtractionFixtures.defaultURL)
        let rounds = positional.count > 1 ? Int(positional[1]) ?? 200 : 200
        let cascade = AddressCascade()
        var score = AddressScore()
        let encoder = JSONEncoder()
        for document in fixtures.documents {
            let found = try document.pages.compactMap { cascade.page($0.text, number: $0.number) }.map { try JSONValue.decode(encoder.encode($0)) }
            score.add(document: document.id, expected: document.expected, found: found)
        }
        print("\(fixtures.documents.count) documents, \(fixtures.pageCount) pages; postcode table: \(cascade.sectors.count) sectors")
        print(score.table(beside: appFigures, referenceName: "app's cascade"))
        if arguments.contains("--misses") { score.misses.forEach { print("  miss: \($0)") } }
        let pages = fixtures.documents.flatMap(\.pages)
        var found = 0
        let start = DispatchTime.now().uptimeNanoseconds
        for _ in 0..<rounds { for page in pages where cascade.page(page.text, number: page.number) != nil { found += 1 } }
        let perPage = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6 / Double(rounds * pages.count)
        print(String(format: "time: %.4f ms per page (%d pages x %d rounds, %d found)", perPage, pages.count, rounds, found / rounds))
        let slowest = hostile.map { name, text in
            let start = DispatchTime.now().uptimeNanoseconds
            _ = cascade.page(text, number: 1)
            return (name, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }.max { $0.1 < $1.1 }!
        print(String(format: "hostile pages (%d kinds, up to 1 MB): slowest %.1f ms (%@)", hostile.count, slowest.1, slowest.0))
        return 0
    }

    /// Pages no scan should give, each a way to make an extractor slow or fall over.
    static let hostile: [(String, String)] = {
        let every = (0..<2_000).map { "AB\($0 % 99) \($0 % 10)CD" }.joined(separator: " ")
        return [("empty", ""), ("1 MB of one line", String(repeating: "x", count: 1 << 20)),
                ("1 MB of titled names", String(repeating: "Mr Aaa Bbb 1 ", count: 80_000)),
                ("control characters", String(decoding: (0..<65_536).map { UInt8($0 % 32) }, as: UTF8.self)),
                ("every postcode pattern at once", every), ("a name over every postcode", "Jane Smith\n" + every),
                ("a form's labels 20,000 times", String(repeating: "Clearwater Medical Registration Form GP\nAddress\n", count: 20_000)),
                ("30,000 name labels", String(repeating: "Patient name: A\nAddress:\n", count: 30_000) + "LS6 1AA"),
                ("20,000 short lines with postcodes", String(repeating: "A B\n1 C\nLS6 1AA\n", count: 20_000))]
    }()

    static func score(_ folder: URL) throws -> Int32 {
        var score = AddressScore()
        for document in try AppExtractionFixtures().documents {
            let url = folder.appendingPathComponent("\(document.id).json")
            var found: [JSONValue] = []
            if let data = FileManager.default.contents(atPath: url.path), case .object(let file) = try JSONValue.decode(data), case .array(let pages)? = file["pages"] {
                found = pages
            }
            score.add(document: document.id, expected: document.expected, found: found)
        }
        print(score.table())
        return 0
    }

    /// Every document of LIBRARY with its pages' text and words (each `[text, x0, y0, x1, y1]`, in
    /// points from the page's top-left corner, and OCR's confidence in it after them where it has one) as `yiana extract` lays them out, written to OUTPUT
    /// (`{"documents": [{"document_id", "pages": [{"page_number", "text", "words"}]}]}`).
    static func layoutPages(library root: URL, output: URL) throws -> Int32 {
        try writeDocuments(of: root, to: output, what: "laid-out pages") { run, url in
            let (key, pages) = try run.laidOutPages(ofDocumentAt: url)
            return ["document_id": key, "pages": pages.map { page in
                ["page_number": page.number, "text": page.text,
                 "words": page.words.map { word in
                     [word.text, Self.rounded(word.x0), Self.rounded(word.y0), Self.rounded(word.x1), Self.rounded(word.y1)]
                         + (word.confidence < 1 ? [Self.rounded(word.confidence * 100) / 100] : []) as [Any]
                 }] as [String: Any]
            }]
        }
    }

    /// A place to a tenth of a point: the fixtures' size, not their reading, changes.
    private static func rounded(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// Every document of LIBRARY with its pages' text as `yiana extract` reads them (OCR results,
    /// else the PDF's text), written to OUTPUT as the app's fixtures are laid out
    /// (`{"documents": [{"document_id", "pages": [{"page_number", "text"}], "expected": []}]}`).
    static func letterTexts(library root: URL, output: URL) throws -> Int32 {
        try writeDocuments(of: root, to: output, what: "page texts") { run, url in
            let (key, pages) = try run.pageTexts(ofDocumentAt: url)
            return ["document_id": key, "pages": pages.map { ["page_number": $0.number, "text": $0.text] }, "expected": [Any]()]
        }
    }

    /// `document`'s answer for each document of the library at `root`, by its id, written to `output` as `{"documents": […]}`.
    private static func writeDocuments(of root: URL, to output: URL, what: String,
                                       _ document: (ExtractionRun, URL) throws -> [String: Any]) throws -> Int32 {
        let library = try Library(root: root)
        let run = ExtractionRun(library: library)
        var documents: [[String: Any]] = []
        for item in try LibraryScanner.scan(library).items where item.kind == .document {
            documents.append(try document(run, item.documentURL))
        }
        documents.sort { ($0["document_id"] as? String ?? "") < ($1["document_id"] as? String ?? "") }
        var data = try JSONSerialization.data(withJSONObject: ["documents": documents], options: [.sortedKeys])
        data.append(0x0A)
        try data.write(to: output)
        print("\(documents.count) documents' \(what) in \(output.path)")
        return 0
    }
}

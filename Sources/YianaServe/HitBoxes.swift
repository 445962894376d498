import Foundation
import YianaArchive
import YianaLibrary
import YianaOCR
import YianaPDF

/// Where the words of a query are on a page, as boxes in fractions of the page (from its
/// top-left corner): from poppler's glyph boxes where the page has a text layer, else from the
/// word boxes of the app's OCR results. Drawn over the page image, they show the same in
/// every browser, on text pages and on scans alike.
enum HitBoxes {
    struct Box: Codable, Equatable {
        let x, y, width, height: Double
    }

    struct Page: Codable {
        let page: Int
        /// The page's size in points.
        let width, height: Double
        let boxes: [Box]
    }

    /// The words a person typed, folded as the index folds them (case and accents), without
    /// quotes, operators or a prefix's `*` (kept as a flag).
    static func terms(_ query: String) -> [(word: String, prefix: Bool)] {
        query.split { $0.isWhitespace || $0 == "\"" || $0 == "(" || $0 == ")" }.compactMap { raw in
            let prefix = raw.hasSuffix("*")
            let word = fold(String(raw.trimmingCharacters(in: CharacterSet.alphanumerics.inverted)))
            guard !word.isEmpty, !["AND", "OR", "NOT", "NEAR"].contains(String(raw)) else { return nil }  // FTS5's operators
            return (word, prefix)
        }
    }

    static func fold(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    }

    /// Whether a word on the page is one the query asks for: the same word, a prefix's
    /// continuation, or the word with an ending (statement → statements, as stemming finds).
    static func matches(_ word: String, _ terms: [(word: String, prefix: Bool)]) -> Bool {
        let folded = fold(word.trimmingCharacters(in: CharacterSet.alphanumerics.inverted))
        guard !folded.isEmpty else { return false }
        return terms.contains { term in
            folded == term.word || (folded.hasPrefix(term.word) && (term.prefix || folded.count <= term.word.count + 3))
        }
    }

    /// The boxes of the query's words on page `number` (1-based) of the document at `url`.
    static func page(_ number: Int, of url: URL, query: String, library: Library) throws -> Page? {
        let terms = terms(query)
        let reader = try DocumentReader(path: url.path)
        let pdf = try reader.pdfBytes().document(source: url.lastPathComponent)
        guard number >= 1, number <= pdf.pageCount, let size = pdf.pageSize(number - 1), size.width > 0, size.height > 0 else { return nil }
        let words = pdf.words(ofPage: number - 1)
        if !words.isEmpty {
            let boxes = words.filter { matches($0.text, terms) }.map {
                Box(x: $0.x / size.width, y: $0.y / size.height, width: $0.width / size.width, height: $0.height / size.height)
            }
            return Page(page: number, width: size.width, height: size.height, boxes: boxes)
        }
        // A scan without a text layer: the app's OCR results say where its words are.
        guard let base = ResultFiles(library: library).base(for: url),
              let data = FileManager.default.contents(atPath: base.path + ".json"),
              let result = try? OCRResult.decode(data), let ocrPage = result.pages.first(where: { $0.pageNumber == number }) else {
            return Page(page: number, width: size.width, height: size.height, boxes: [])
        }
        let boxes = ocrPage.textBlocks.flatMap(\.lines).flatMap(\.words).filter { matches($0.text, terms) }.map {
            Box(x: $0.boundingBox.x, y: $0.boundingBox.y, width: $0.boundingBox.width, height: $0.boundingBox.height)
        }
        return Page(page: number, width: size.width, height: size.height, boxes: boxes)
    }

    /// The boxes as an SVG the size of the page (a 1 × 1 view box stretched over it), to lay
    /// over the page's image: no script, and the same in every browser.
    static func svg(_ page: Page) -> String {
        var svg = #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 1 1" preserveAspectRatio="none">"#
        for box in page.boxes {
            svg += String(format: ##"<rect x="%.5f" y="%.5f" width="%.5f" height="%.5f" fill="#ffd400" fill-opacity="0.35" stroke="#d99a00" stroke-width="1.5" vector-effect="non-scaling-stroke"/>"##,
                          box.x, box.y, box.width, box.height)
        }
        return svg + "</svg>"
    }
}

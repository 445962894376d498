internal import CPoppler

/// A word of a page's text and where it is drawn.
public struct PageWord: Sendable, Equatable {
    public let text: String
    /// In points from the page's top-left corner.
    public let x, y, width, height: Double
}

extension PDFDocument {
    /// The words of page `index` (0-based) with their boxes, from the glyph box poppler gives
    /// each character (`poppler_page_get_text_layout`): a word ends at white space, or where
    /// the next character is on another line or a gap away, as ``text(ofPage:)`` breaks them.
    /// Empty for a page without a text layer. One document must not be read from two threads at once.
    public func words(ofPage index: Int) -> [PageWord] {
        guard index >= 0, index < pageCount, let page = yiana_poppler_document_get_page(handle, Int32(index)) else { return [] }
        defer { yiana_g_object_unref(UnsafeMutableRawPointer(page)) }
        return Self.withLayout(page) { utf8, boxes in Self.words(utf8: utf8, boxes: boxes) } ?? []
    }

    /// The text of page `index` (0-based) as ``text(ofPage:)`` gives it, and its words as
    /// ``words(ofPage:)`` gives them, from one reading of the page's layout (the costly part of either).
    public func textAndWords(ofPage index: Int) -> (text: String, words: [PageWord]) {
        guard index >= 0, index < pageCount, let page = yiana_poppler_document_get_page(handle, Int32(index)) else { return ("", []) }
        defer { yiana_g_object_unref(UnsafeMutableRawPointer(page)) }
        let form = Self.formValues(page)
        let (text, words) = Self.withLayout(page) { utf8, boxes in (Self.breaks(utf8: utf8, boxes: boxes), Self.words(utf8: utf8, boxes: boxes)) }
            ?? (Self.plainText(page), [])
        return (form.isEmpty ? text : text.isEmpty ? form : text + "\n" + form, words)
    }

    /// The words of a page's text, `utf8`, whose i-th Unicode scalar is drawn in `boxes[i]`.
    static func words(utf8: UnsafeBufferPointer<UInt8>, boxes: UnsafeBufferPointer<GlyphBox>) -> [PageWord] {
        let scalars = Array(String(decoding: utf8, as: UTF8.self).unicodeScalars)
        guard boxes.count >= scalars.count else { return [] }
        var words: [PageWord] = []
        var text = String.UnicodeScalarView()
        var box: GlyphBox?
        func finish() {
            if let b = box, !text.isEmpty {
                words.append(PageWord(text: String(text), x: b.x1, y: b.y1, width: b.x2 - b.x1, height: b.y2 - b.y1))
            }
            text = String.UnicodeScalarView()
            box = nil
        }
        for (i, scalar) in scalars.enumerated() {
            let glyph = boxes[i]
            if scalar.properties.isWhitespace {
                finish()
                continue
            }
            if let b = box {
                let sameLine = abs((glyph.y1 + glyph.y2) / 2 - (b.y1 + b.y2) / 2) < max(glyph.height, b.height) / 2
                let gap = glyph.x1 - b.x2
                if !sameLine || gap > max(glyph.height, 1) / 10 || gap < -max(glyph.height, 1) { finish() }
            }
            text.append(scalar)
            box = box.map { GlyphBox(x1: min($0.x1, glyph.x1), y1: min($0.y1, glyph.y1), x2: max($0.x2, glyph.x2), y2: max($0.y2, glyph.y2)) } ?? glyph
        }
        finish()
        return words
    }
}

internal import CPoppler

extension PDFDocument {
    /// The text of page `index` (0-based) and the values of its filled form fields
    /// (after the text), or "" for a page without either. One document
    /// must not be read from two threads at once.
    ///
    /// poppler-glib's page text runs two words together where only a line or a font change
    /// separates them ("A.1Migrating", a heading glued to the text after it); pdftotext does
    /// not. The glyph box of every character (`poppler_page_get_text_layout`, one per
    /// character of the text) tells where the breaks are: a line break where the next glyph
    /// is on another line, a space where it is a gap away (``breaks(in:boxes:)``).
    public func text(ofPage index: Int) -> String {
        guard index >= 0, index < pageCount, let page = yiana_poppler_document_get_page(handle, Int32(index)) else { return "" }
        defer { yiana_g_object_unref(UnsafeMutableRawPointer(page)) }
        let form = Self.formValues(page)
        let text = Self.layoutText(page)
        return form.isEmpty ? text : text.isEmpty ? form : text + "\n" + form
    }

    private static func layoutText(_ page: OpaquePointer) -> String {
        withLayout(page) { utf8, boxes in breaks(utf8: utf8, boxes: boxes) } ?? plainText(page)
    }

    /// `body` given the page's text (UTF-8) and the glyph box of each of its characters, from
    /// one call of each (`poppler_page_get_text`, `poppler_page_get_text_layout`); nil when
    /// poppler gives no layout.
    static func withLayout<T>(_ page: OpaquePointer, _ body: (UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<GlyphBox>) -> T) -> T? {
        guard let raw = yiana_poppler_page_get_text(page) else { return nil }
        defer { yiana_g_free(raw) }
        let utf8 = UnsafeBufferPointer(start: UnsafeRawPointer(raw).assumingMemoryBound(to: UInt8.self), count: strlen(raw))
        var rectangles: UnsafeMutablePointer<PopplerRectangle>? = nil
        var count: guint = 0
        guard yiana_poppler_page_get_text_layout(page, &rectangles, &count) != 0, let rectangles else { return nil }
        defer { yiana_g_free(rectangles) }
        // PopplerRectangle is four doubles, x1, y1, x2, y2: the layout of GlyphBox.
        let boxes = UnsafeRawPointer(rectangles).withMemoryRebound(to: GlyphBox.self, capacity: Int(count)) {
            UnsafeBufferPointer(start: $0, count: Int(count))
        }
        return body(utf8, boxes)
    }

    /// The page's text as poppler gives it, without a layout to break it by.
    static func plainText(_ page: OpaquePointer) -> String {
        guard let raw = yiana_poppler_page_get_text(page) else { return "" }
        defer { yiana_g_free(raw) }
        return String(cString: raw)
    }

    /// The values of the filled form fields on `page` (text fields, and the chosen items of
    /// choice fields), one per line, in the page's field order; "" when it has none.
    /// poppler's page text leaves them out: a form whose only text is its values would
    /// otherwise be a page without text.
    static func formValues(_ page: OpaquePointer) -> String {
        guard let mapping = yiana_poppler_page_get_form_field_mapping(page) else { return "" }
        defer { yiana_poppler_page_free_form_field_mapping(mapping) }
        var values: [String] = []
        var node: UnsafeMutablePointer<GList>? = mapping
        while let current = node {
            defer { node = current.pointee.next }
            guard let field = current.pointee.data?.assumingMemoryBound(to: PopplerFormFieldMapping.self).pointee.field else { continue }
            switch yiana_poppler_form_field_get_field_type(field) {
            case POPPLER_FORM_FIELD_TEXT:
                if let raw = yiana_poppler_form_field_text_get_text(field) {
                    values.append(String(cString: raw))
                    yiana_g_free(raw)
                }
            case POPPLER_FORM_FIELD_CHOICE:
                for item in 0..<max(0, yiana_poppler_form_field_choice_get_n_items(field)) where yiana_poppler_form_field_choice_is_item_selected(field, item) != 0 {
                    if let raw = yiana_poppler_form_field_choice_get_item(field, item) {
                        values.append(String(cString: raw))
                        yiana_g_free(raw)
                    }
                }
                if let raw = yiana_poppler_form_field_choice_get_text(field) {
                    values.append(String(cString: raw))
                    yiana_g_free(raw)
                }
            default:
                break
            }
        }
        var seen = Set<String>()
        return values.filter { !$0.isEmpty && seen.insert($0).inserted }.joined(separator: "\n")
    }

    /// A character's box on the page.
    struct GlyphBox {
        let x1, y1, x2, y2: Double
        var height: Double { y2 - y1 }
    }

    /// `text` with a line break put between two characters with no white space between
    /// them whose boxes do not share a line (or where the next goes back to the left), and a
    /// space where the next is further right than a tenth of the line's height: where
    /// pdftotext separates words. `boxes[i]` is the box of the i-th Unicode scalar. A page
    /// whose text runs mostly top to bottom (rotated) is left as it is, and a combining mark
    /// is never separated from its letter.
    static func breaks(in text: String, boxes: [GlyphBox]) -> String {
        var text = text
        return text.withUTF8 { utf8 in boxes.withUnsafeBufferPointer { breaks(utf8: utf8, boxes: $0) } }
    }

    /// ``breaks(in:boxes:)`` on UTF-8 bytes, in one pass over bytes (ASCII, nearly all of a
    /// page, needs no Unicode lookup).
    static func breaks(utf8: UnsafeBufferPointer<UInt8>, boxes: UnsafeBufferPointer<GlyphBox>) -> String {
        // Per scalar: where its bytes start, and whether it is white space (1) or a mark (2).
        var starts: [Int] = []
        var kinds: [UInt8] = []
        starts.reserveCapacity(utf8.count)
        kinds.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            starts.append(i)
            if byte < 0x80 {
                kinds.append(byte == 0x20 || (0x09...0x0D).contains(byte) ? 1 : 0)
                i += 1
                continue
            }
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            let end = min(utf8.count, i + length)
            var kind: UInt8 = 0
            if let scalar = String(decoding: UnsafeBufferPointer(rebasing: utf8[i..<end]), as: UTF8.self).unicodeScalars.first {
                if scalar.properties.isWhitespace { kind = 1 }
                else if [.nonspacingMark, .spacingMark, .enclosingMark].contains(scalar.properties.generalCategory) { kind = 2 }
            }
            kinds.append(kind)
            i = end
        }
        let scalars = starts.count
        guard boxes.count >= scalars, scalars > 1 else { return String(decoding: utf8, as: UTF8.self) }
        // Which way the text runs: along lines (boxes side by side) or down (stacked).
        var along = 0, down = 0
        for k in 1..<scalars where kinds[k] != 1 && kinds[k - 1] != 1 {
            let a = boxes[k - 1], b = boxes[k]
            if min(a.y2, b.y2) > max(a.y1, b.y1) { along += 1 } else if min(a.x2, b.x2) > max(a.x1, b.x1) { down += 1 }
        }
        guard along >= down else { return String(decoding: utf8, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count + utf8.count / 16)
        var copied = 0
        for k in 1..<scalars where kinds[k] == 0 && kinds[k - 1] != 1 {
            let a = boxes[k - 1], b = boxes[k]
            let height = max(a.height, b.height)
            let separator: UInt8
            if b.y1 >= a.y2 - 0.1 * height || b.y2 <= a.y1 + 0.1 * height || b.x2 < a.x1 {
                separator = 0x0A  // another line
            } else if b.x1 - a.x2 > 0.1 * height {
                separator = 0x20  // a gap
            } else {
                continue
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied..<starts[k]]))
            out.append(separator)
            copied = starts[k]
        }
        out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[copied...]))
        return String(decoding: out, as: UTF8.self)
    }
}

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
        guard index >= 0, index < pageCount, let page = poppler_document_get_page(handle, Int32(index)) else { return "" }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        let form = Self.formValues(page)
        let text = Self.layoutText(page)
        return form.isEmpty ? text : text.isEmpty ? form : text + "\n" + form
    }

    private static func layoutText(_ page: OpaquePointer) -> String {
        guard let raw = poppler_page_get_text(page) else { return "" }
        defer { g_free(raw) }
        let text = String(cString: raw)
        var rectangles: UnsafeMutablePointer<PopplerRectangle>? = nil
        var count: guint = 0
        guard poppler_page_get_text_layout(page, &rectangles, &count) != 0, let rectangles else { return text }
        defer { g_free(rectangles) }
        let boxes = UnsafeBufferPointer(start: rectangles, count: Int(count)).map { GlyphBox(x1: $0.x1, y1: $0.y1, x2: $0.x2, y2: $0.y2) }
        return breaks(in: text, boxes: boxes)
    }

    /// The values of the filled form fields on `page` (text fields, and the chosen items of
    /// choice fields), one per line, in the page's field order; "" when it has none.
    /// poppler's page text leaves them out: a form whose only text is its values would
    /// otherwise be a page without text.
    private static func formValues(_ page: OpaquePointer) -> String {
        guard let mapping = poppler_page_get_form_field_mapping(page) else { return "" }
        defer { poppler_page_free_form_field_mapping(mapping) }
        var values: [String] = []
        var node: UnsafeMutablePointer<GList>? = mapping
        while let current = node {
            defer { node = current.pointee.next }
            guard let field = current.pointee.data?.assumingMemoryBound(to: PopplerFormFieldMapping.self).pointee.field else { continue }
            switch poppler_form_field_get_field_type(field) {
            case POPPLER_FORM_FIELD_TEXT:
                if let raw = poppler_form_field_text_get_text(field) {
                    values.append(String(cString: raw))
                    g_free(raw)
                }
            case POPPLER_FORM_FIELD_CHOICE:
                for item in 0..<max(0, poppler_form_field_choice_get_n_items(field)) where poppler_form_field_choice_is_item_selected(field, item) != 0 {
                    if let raw = poppler_form_field_choice_get_item(field, item) {
                        values.append(String(cString: raw))
                        g_free(raw)
                    }
                }
                if let raw = poppler_form_field_choice_get_text(field) {
                    values.append(String(cString: raw))
                    g_free(raw)
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
        let scalars = Array(text.unicodeScalars)
        guard boxes.count >= scalars.count, scalars.count > 1 else { return text }
        func isBreak(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace }
        // Which way the text runs: along lines (boxes side by side) or down (stacked).
        var along = 0, down = 0
        for i in 1..<scalars.count where !isBreak(scalars[i]) && !isBreak(scalars[i - 1]) {
            let a = boxes[i - 1], b = boxes[i]
            if min(a.y2, b.y2) > max(a.y1, b.y1) { along += 1 } else if min(a.x2, b.x2) > max(a.x1, b.x1) { down += 1 }
        }
        guard along >= down else { return text }
        var out = String.UnicodeScalarView()
        out.reserveCapacity(scalars.count + scalars.count / 16)
        out.append(scalars[0])
        for i in 1..<scalars.count {
            let previous = scalars[i - 1], scalar = scalars[i]
            if !isBreak(previous), !isBreak(scalar), ![.nonspacingMark, .spacingMark, .enclosingMark].contains(scalar.properties.generalCategory) {
                let a = boxes[i - 1], b = boxes[i]
                let height = max(a.height, b.height)
                let otherLine = b.y1 >= a.y2 - 0.1 * height || b.y2 <= a.y1 + 0.1 * height
                if otherLine || b.x2 < a.x1 {
                    out.append("\n")
                } else if b.x1 - a.x2 > 0.1 * height {
                    out.append(" ")
                }
            }
            out.append(scalar)
        }
        return String(out)
    }
}

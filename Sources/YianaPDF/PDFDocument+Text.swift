internal import CPoppler

extension PDFDocument {
    /// The text of page `index` (0-based) as poppler lays it out, or "" for a page without
    /// a text layer. One document must not be read from two threads at once.
    public func text(ofPage index: Int) -> String {
        guard index >= 0, index < pageCount, let page = poppler_document_get_page(handle, Int32(index)) else { return "" }
        defer { g_object_unref(UnsafeMutableRawPointer(page)) }
        guard let raw = poppler_page_get_text(page) else { return "" }
        defer { g_free(raw) }
        return String(cString: raw)
    }
}

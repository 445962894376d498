extension String {
    /// The text with `&`, `<`, `>`, `"` and `'` as character references: safe inside HTML and
    /// XML text and quoted attribute values (the OCR results' hOCR and XML, the server's pages).
    public var markupEscaped: String {
        var out = ""
        out.reserveCapacity(utf8.count)
        for character in self {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.append(character)
            }
        }
        return out
    }
}

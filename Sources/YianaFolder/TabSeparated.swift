/// Text fields of the toolkit's tab-separated state files (the keeper's journal, the index's
/// folder times), read without a JSON decoder: a backslash, a tab, a line break or a carriage
/// return in a field is written `\\`, `\t`, `\n`, `\r`.
public enum TabSeparated {
    public static func escape(_ text: String) -> String {
        // By bytes: a look at characters would segment every field into graphemes.
        guard text.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return text }
        return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    public static func unescape(_ text: Substring) -> String {
        guard text.utf8.contains(0x5C) else { return String(text) }
        var result = "", escaped = false
        for character in text {
            if escaped {
                result.append(character == "t" ? "\t" : character == "n" ? "\n" : character == "r" ? "\r" : character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else {
                result.append(character)
            }
        }
        return result
    }
}

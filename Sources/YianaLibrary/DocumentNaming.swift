import Foundation

/// File names for new documents, as the app makes them.
public enum DocumentNaming {
    /// The file stem for a title: `/` and `:` become `-`, as in the app. Beyond the app, a
    /// leading `.` (which would hide the document from every scan) and control characters are
    /// replaced too, and the stem is cut so that `<stem> NNNN.yianazip` fits a file name.
    public static func stem(forTitle title: String) -> String {
        var stem = String(title.map { character -> Character in
            if character == "/" || character == ":" { return "-" }
            if character.unicodeScalars.allSatisfy({ $0.properties.generalCategory == .control }) { return " " }
            return character
        }).trimmingCharacters(in: .whitespacesAndNewlines)
        while stem.hasPrefix(".") { stem = "-" + stem.dropFirst() }
        if stem.isEmpty { stem = "Untitled" }
        // 255 bytes for a name, less " 9999" and ".yianazip".
        let limit = 255 - 5 - (Library.documentExtension.utf8.count + 1)
        while stem.utf8.count > limit { stem.removeLast() }
        return stem
    }

    /// `<stem>.yianazip`, then `<stem> 1.yianazip`, `<stem> 2.yianazip`, … as the app numbers.
    public static func fileName(stem: String, number: Int) -> String {
        number == 0 ? "\(stem).\(Library.documentExtension)" : "\(stem) \(number).\(Library.documentExtension)"
    }

    /// True when `fileName` is taken in `folder`: by a file of that name, by one that
    /// differs only in case or Unicode form (the same file on a Mac's file system, where the
    /// library is synced to), or by an evicted document's placeholder.
    public static func isTaken(_ fileName: String, in folder: URL) -> Bool {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let wanted = foldedKey(fileName)
        for name in names {
            let candidate = PlaceholderName.documentName(forStub: name) ?? name
            if foldedKey(candidate) == wanted { return true }
        }
        return false
    }

    static func foldedKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
    }
}

/// The identifiers on a page as extraction reads them, for the register of people: the same
/// rules for a date, an NHS number and a title wherever the toolkit meets one.
public enum PageIdentifiers {
    /// The first date in `text` as `DD/MM/YYYY` (``PeopleText/date(in:)``: `27/12/1947`,
    /// `27.12.1947`, `18/09/65`, `3 March 1950`); nil when there is none or it cannot be.
    public static func date(_ text: String) -> String? {
        PeopleText.date(in: text)
    }

    /// The ten digits of a valid NHS number written in `text` (spaces and hyphens allowed
    /// between them, nothing else), nil when there are not ten or the modulus-11 check fails.
    public static func nhsNumber(_ text: String) -> String? {
        guard text.utf8.allSatisfy({ TextPatterns.isDigit($0) || $0 == 0x20 || $0 == 0x2D }) else { return nil }
        let digits = text.utf8.filter(TextPatterns.isDigit).map { $0 - 0x30 }
        return LetterIdentifiers.isValidNHS(digits) ? String(decoding: digits.map { $0 + 0x30 }, as: UTF8.self) : nil
    }

    /// `YYYY-MM-DD`, the UTC calendar day of a time in seconds since 1970.
    public static func day(_ seconds: Double) -> String {
        let date = FactCheck.civil(daysSince1970: Int((seconds / 86_400).rounded(.down)))
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        return "\(date.year)-\(two(date.month))-\(two(date.day))"
    }

    /// Words before a name that are no part of it (`mr`, `mrs`, `dr`, `prof`, …), lower-case.
    public static var titles: Set<String> { PeopleText.titles }
}

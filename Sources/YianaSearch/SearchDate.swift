import Foundation

/// The days `yiana search --since/--until` take, read by the Gregorian calendar itself
/// rather than a date formatter: a formatter's first use loads ICU's locale data, about
/// 2 ms, a tenth of a whole search.
public enum SearchDate {
    /// `YYYY-MM-DD` (the month and the day of one or two digits) as the first moment of that
    /// day in `timeZone`, or with `endOfDay` of the next day; nil when the text is not such a
    /// day (`2026-02-30`, `2026-13-01`, `yesterday`).
    public static func day(_ text: String, endOfDay: Bool, in timeZone: TimeZone = .current) -> Date? {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count == 4, (1...2).contains(parts[1].count), (1...2).contains(parts[2].count),
              parts.allSatisfy({ $0.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }),
              let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]) else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        guard let start = calendar.date(from: DateComponents(year: year, month: month, day: day)) else { return nil }
        // The calendar rolls 2026-02-30 over into March: such a day does not exist.
        let back = calendar.dateComponents([.year, .month, .day], from: start)
        guard back.year == year, back.month == month, back.day == day else { return nil }
        return endOfDay ? calendar.date(byAdding: .day, value: 1, to: start) : start
    }
}

import Foundation
import Testing
import YianaSearch

@Suite("Days for search --since and --until")
struct SearchDateTests {
    /// What `search` used before, ICU's formatter: the reference for the calendar's reading.
    /// Where a day has no midnight (the clocks went from 23:59 to 01:00) the formatter finds
    /// no such day, which `search` then refused; its first moment is 01:00.
    func formatted(_ text: String, endOfDay: Bool, with formatter: DateFormatter) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = formatter.timeZone
        let start = formatter.date(from: text + " 00:00") ?? formatter.date(from: text + " 01:00")
        return start.flatMap { endOfDay ? calendar.date(byAdding: .day, value: 1, to: $0) : $0 }
    }

    func formatter(in zone: TimeZone) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        return formatter
    }

    /// Every day of a leap year and of the days around it, in zones whose clocks change
    /// (at 1 a.m., at midnight, by half an hour) and in UTC: the same moments as the formatter.
    @Test(arguments: ["UTC", "Europe/London", "America/New_York", "America/Sao_Paulo", "Asia/Beirut", "Australia/Lord_Howe", "Asia/Kolkata"])
    func everyDayIsTheFormattersMoment(zoneName: String) throws {
        let zone = try #require(TimeZone(identifier: zoneName))
        let reference = formatter(in: zone)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        var day = try #require(calendar.date(from: DateComponents(year: 2015, month: 12, day: 25)))
        for _ in 0..<380 {
            let parts = calendar.dateComponents([.year, .month, .day], from: day)
            let text = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            for endOfDay in [false, true] {
                #expect(SearchDate.day(text, endOfDay: endOfDay, in: zone) == formatted(text, endOfDay: endOfDay, with: reference),
                        "\(text) in \(zoneName), end of day \(endOfDay)")
            }
            day = try #require(calendar.date(byAdding: .day, value: 1, to: day))
        }
        #expect(SearchDate.day("2016-3-7", endOfDay: false, in: zone) == formatted("2016-03-07", endOfDay: false, with: reference))
    }

    @Test func whatIsNotADayIsRefused() {
        for text in ["2026-02-29", "2026-02-30", "2026-13-01", "2026-00-10", "2026-04-31", "2026-04-00", "yesterday", "", "2026-04",
                     "2026-04-01-", "26-04-01", "2026-004-01", "+026-04-01", "2026-0x-01", "２０２６-04-01", "2026-04-01T10:00:00Z"] {
            #expect(SearchDate.day(text, endOfDay: false) == nil, "\(text)")
        }
        #expect(SearchDate.day("2024-02-29", endOfDay: false) != nil)
    }
}

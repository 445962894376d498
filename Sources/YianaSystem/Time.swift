#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// Time from the C library (`localtime_r`, `gmtime_r`, `timegm`) rather than Foundation's
// calendars, whose first use loads ICU's calendar and zone data: a millisecond or more of
// every process that writes a document, a state file or a log line.

/// Dates as the toolkit's JSON files hold them: RFC 3339 text in UTC to the second,
/// `2026-11-23T21:39:35Z`, byte for byte what Foundation's `.iso8601` strategies write and
/// read, from the C library's `gmtime_r` and `timegm`. Text in any other form Foundation
/// accepts (an offset such as `+01:00`) is still read by Foundation's own parser.
package enum InternetTime {
    /// Where the C library's calendar is Foundation's: Foundation's Gregorian calendar is
    /// Julian before October 1582, and years past 9999 are written another way.
    static let years = 1600...9999
    /// The seconds since 1970 of those years, from the first of 1600 to the last of 9999.
    private static let seconds = Double(utcSeconds(year: years.lowerBound))..<Double(utcSeconds(year: years.upperBound + 1))

    /// `date` in UTC, its seconds rounded down as Foundation's formatter does.
    package static func string(_ date: Date) -> String {
        // Outside ``years`` (NaN and the infinities too), Foundation writes it.
        let whole = date.timeIntervalSince1970.rounded(.down)
        guard Self.seconds.contains(whole) else { return date.formatted(.iso8601) }
        var clock = time_t(whole)
        var fields = tm()
        _ = gmtime_r(&clock, &fields)
        let year = Int(fields.tm_year) + 1900
        var text = [UInt8]()
        text.reserveCapacity(20)
        text.appendDecimal(year, width: 4); text.append(UInt8(ascii: "-"))
        text.appendDecimal(Int(fields.tm_mon) + 1, width: 2); text.append(UInt8(ascii: "-"))
        text.appendDecimal(Int(fields.tm_mday), width: 2); text.append(UInt8(ascii: "T"))
        text.appendDecimal(Int(fields.tm_hour), width: 2); text.append(UInt8(ascii: ":"))
        text.appendDecimal(Int(fields.tm_min), width: 2); text.append(UInt8(ascii: ":"))
        text.appendDecimal(Int(fields.tm_sec), width: 2); text.append(UInt8(ascii: "Z"))
        return String(decoding: text, as: UTF8.self)
    }

    /// The date `text` names, or nil when it is no RFC 3339 date and time.
    package static func date(_ text: String) -> Date? {
        if let seconds = utcSeconds(Array(text.utf8)) { return Date(timeIntervalSince1970: TimeInterval(seconds)) }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    /// A date a person or a script gives (a search's `since`, `until`): any RFC 3339
    /// `date-time`, and nothing that is not one (no 29 February 2023, no 24:00, no date
    /// without its offset). Not for metadata, which must be read as Foundation reads it.
    package static func given(_ text: String) -> Date? {
        rfc3339(Array(text.utf8))
    }

    /// RFC 3339's `date-time` in full: `YYYY-MM-DDTHH:MM:SS`, any fraction of a second, `Z` or
    /// an offset of up to ±23:59; `t`, `z` and a space for `T` accepted, a leap second (60) too.
    /// Years 0000 to 9999 in the proleptic Gregorian calendar (as a search's filter needs them).
    private static func rfc3339(_ text: [UInt8]) -> Date? {
        var at = 0
        func number(_ count: Int) -> Int? {
            guard at + count <= text.count else { return nil }
            var value = 0
            for byte in text[at..<(at + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            at += count
            return value
        }
        func skip(_ allowed: String) -> Bool {
            guard at < text.count, allowed.utf8.contains(text[at]) else { return false }
            at += 1
            return true
        }
        guard let year = number(4), skip("-"), let month = number(2), skip("-"), let day = number(2), skip("Tt "),
              let hour = number(2), skip(":"), let minute = number(2), skip(":"), let second = number(2),
              (1...12).contains(month), hour < 24, minute < 60, second <= 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        guard (1...[31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]).contains(day) else { return nil }
        var fraction = 0.0, scale = 0.1
        if skip(".") {
            let start = at
            while at < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[at]) {
                fraction += Double(text[at] - UInt8(ascii: "0")) * scale
                scale /= 10
                at += 1
            }
            guard at > start else { return nil }
        }
        var offset = 0
        if !skip("Zz") {
            guard at < text.count else { return nil }
            let sign = text[at] == UInt8(ascii: "-") ? -1 : 1
            guard skip("+-"), let hours = number(2), skip(":"), let minutes = number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        }
        guard at == text.count else { return nil }
        // Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let days = era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` with every field in range (``years``), as seconds since 1970;
    /// nil for anything else (left to Foundation).
    private static func utcSeconds(_ text: [UInt8]) -> Int? {
        guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ count: Int) -> Int? {
            var value = 0
            for byte in text[start..<(start + count)] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
              let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2),
              years.contains(year), (1...12).contains(month), hour < 24, minute < 60, second < 60 else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return nil }
        return utcSeconds(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    /// `timegm` of a UTC date and time.
    private static func utcSeconds(year: Int, month: Int = 1, day: Int = 1, hour: Int = 0, minute: Int = 0, second: Int = 0) -> Int {
        var fields = tm()
        fields.tm_year = Int32(year - 1900)
        fields.tm_mon = Int32(month - 1)
        fields.tm_mday = Int32(day)
        fields.tm_hour = Int32(hour)
        fields.tm_min = Int32(minute)
        fields.tm_sec = Int32(second)
        return Int(timegm(&fields))
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// Foundation's `.iso8601`, byte for byte, without its calendar (``InternetTime``).
    package static var internetTime: Self {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(InternetTime.string(date))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Foundation's `.iso8601`: the same dates accepted and refused, the usual ones
    /// without its calendar (``InternetTime``).
    package static var internetTime: Self {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = InternetTime.date(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Expected date string to be ISO8601-formatted.")
            }
            return date
        }
    }
}

/// A wall-clock time in this machine's time zone, as the C library's `localtime_r` gives
/// it (from `TZ` or /etc/localtime, as Foundation's `TimeZone.current` is): what ZIP
/// headers record.
package struct LocalTime: Sendable, Equatable {
    package let year: Int
    /// 1 to 12.
    package let month: Int
    package let day: Int
    package let hour: Int
    package let minute: Int
    /// 0 to 60 (a leap second).
    package let second: Int

    /// The time `secondsSince1970` (Unix time) in the local time zone.
    package init(secondsSince1970: Int) {
        var seconds = time_t(secondsSince1970)
        var fields = tm()
        _ = localtime_r(&seconds, &fields)
        year = Int(fields.tm_year) + 1900
        month = Int(fields.tm_mon) + 1
        day = Int(fields.tm_mday)
        hour = Int(fields.tm_hour)
        minute = Int(fields.tm_min)
        second = Int(fields.tm_sec)
    }

    /// Now, in the local time zone.
    package static var now: LocalTime { LocalTime(secondsSince1970: Int(time(nil))) }

    /// `date` in the local time zone, its fraction of a second dropped (as a formatter's `ss`).
    package init(_ date: Date) {
        self.init(secondsSince1970: Int(date.timeIntervalSince1970.rounded(.down)))
    }

    /// `yyyy-MM-dd HH:mm:ss`: a time as the commands show it to people, in this machine's
    /// zone; what `DateFormatter` writes with that format, without loading ICU's calendars
    /// (a few ms of a listing that shows one).
    package var text: String {
        var text = [UInt8]()
        text.reserveCapacity(20)
        text.appendDecimal(year, width: 4); text.append(UInt8(ascii: "-"))
        text.appendDecimal(month, width: 2); text.append(UInt8(ascii: "-"))
        text.appendDecimal(day, width: 2); text.append(UInt8(ascii: " "))
        text.appendDecimal(hour, width: 2); text.append(UInt8(ascii: ":"))
        text.appendDecimal(minute, width: 2); text.append(UInt8(ascii: ":"))
        text.appendDecimal(second, width: 2)
        return String(decoding: text, as: UTF8.self)
    }
}

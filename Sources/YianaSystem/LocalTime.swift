#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A wall-clock time in this machine's time zone, as the C library's `localtime_r` gives
/// it (from `TZ` or /etc/localtime, as Foundation's `TimeZone.current` is): what ZIP
/// headers record. Unlike `Calendar.current`, it loads no ICU calendar or zone data, which
/// costs a process a millisecond or two before its first write.
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
}

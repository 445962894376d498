import Foundation
import YianaFolder

/// A moment a person names on the command line: a time ago (`30m`, `2h`, `3d`), a day
/// (`2026-11-25`, its start, local time), a local time (`2026-11-25 14:30`, seconds
/// optional, `T` for the space allowed) or an ISO 8601 time with its zone.
public enum Moment {
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let unit = text.last, let amount = Double(text.dropLast()), amount >= 0 {
            let seconds: Double? = switch unit {
            case "s": 1
            case "m": 60
            case "h": 3_600
            case "d": 86_400
            case "w": 604_800
            default: nil
            }
            if let seconds { return now.addingTimeInterval(-amount * seconds) }
        }
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = iso.date(from: text) { return date }
        iso.formatOptions = [.withInternetDateTime]
        if let date = iso.date(from: text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = .current
        for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}

import Foundation
import YianaSystem

/// A byte count for people: `512 bytes`, `1.4 MB` (powers of 1000, as Finder and `ls -h --si`).
public func readableByteCount(_ count: UInt64) -> String {
    let units = ["bytes", "KB", "MB", "GB", "TB"]
    var value = Double(count)
    var unit = 0
    while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
    return unit == 0 ? (count == 1 ? "1 byte" : "\(count) bytes") : fixedDecimal(value, places: 1) + " " + units[unit]
}

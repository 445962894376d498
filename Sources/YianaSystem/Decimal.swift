#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `value` with `places` digits after the point, exactly as printf's `%.Nf` writes it (the C
/// locale's point; the exact binary value rounded, ties to even; a minus for every negative,
/// -0 included). Foundation's `String(format:)` cost about 6 µs a call and the C library's
/// printf 3, the most of a line of `versions list`: the usual values (up to 6 places, zero or
/// 10⁻⁶ to 10¹⁵) are rounded here with exact integer arithmetic, the rest by the C library.
package func fixedDecimal(_ value: Double, places: Int) -> String {
    let magnitude = value.magnitude
    guard value.isFinite, (0...6).contains(places), magnitude == 0 || (1e-6..<1e15).contains(magnitude) else {
        return printfDecimal(value, places: places)
    }
    var scale: UInt64 = 1
    for _ in 0..<places { scale *= 10 }
    var whole: UInt128 = 0
    if magnitude != 0 {
        // Normal here (10⁻⁶ and up): magnitude × scale = significand × scale × 2^exponent,
        // exactly; rounded to a whole number.
        let scaled = UInt128(magnitude.significandBitPattern | 1 << 52) * UInt128(scale)
        let exponent = Int(magnitude.exponentBitPattern) - 1075
        if exponent >= 0 {
            whole = scaled << exponent
        } else {
            let shift = -exponent  // at most 72: 10⁻⁶ is about 2⁻²⁰, and 52 bits of significand
            whole = scaled >> shift
            let rest = scaled & ((1 << shift) - 1), half = UInt128(1) << (shift - 1)
            if rest > half || (rest == half && whole & 1 == 1) { whole += 1 }
        }
    }
    let integer = String(whole / UInt128(scale)), fraction = String(whole % UInt128(scale))
    let sign = value.sign == .minus ? "-" : ""
    guard places > 0 else { return sign + integer }
    return sign + integer + "." + String(repeating: "0", count: places - fraction.count) + fraction
}

/// `%.Nf` by the C library.
private func printfDecimal(_ value: Double, places: Int) -> String {
    withUnsafeTemporaryAllocation(of: CChar.self, capacity: 352) { buffer in
        // 352: the longest %f of a double (309 digits, a sign, a point) with up to 40 places.
        let written = withVaList([Int32(min(max(places, 0), 40)), value]) { vsnprintf(buffer.baseAddress, buffer.count, "%.*f", $0) }
        let length = Int(max(0, min(written, Int32(buffer.count - 1))))
        return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: length).bindMemory(to: UInt8.self), as: UTF8.self)
    }
}

extension [UInt8] {
    /// Appends `value` in decimal as `String(value)` writes it, with zeros before it to at
    /// least `width` digits: what a time or a file's identity is written with, many to a listing.
    package mutating func appendDecimal(_ value: some BinaryInteger, width: Int = 1) {
        if value < 0 { append(UInt8(ascii: "-")) }
        let magnitude = UInt64(value.magnitude)
        var divisor: UInt64 = 1, count = 1
        while magnitude / divisor >= 10 { divisor *= 10; count += 1 }
        for _ in count..<Swift.max(count, width) { append(UInt8(ascii: "0")) }
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }
}

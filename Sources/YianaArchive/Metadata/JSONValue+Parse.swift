import Foundation

extension JSONValue {
    /// Decodes JSON bytes to exactly the value (or the error) that Foundation's
    /// `JSONDecoder` gives for ``JSONValue``, several times faster on the JSON the app
    /// writes.
    ///
    /// Plain RFC 8259 JSON in UTF-8 is parsed directly. Anything where `JSONDecoder` has
    /// rules of its own goes to `JSONDecoder` itself: a number with a fraction or exponent
    /// whose value is whole (it decodes `1.0` and `1e2` as integers), an integer beyond
    /// `Int64`, a repeated key (the first wins there), a trailing comma (accepted there), a
    /// byte-order mark or another encoding, unpaired surrogates, invalid UTF-8, deep
    /// nesting, and every error, so that its messages stay the ones users see.
    public static func decode(_ data: Data) throws -> JSONValue {
        if let value = data.withUnsafeBytes({ StrictJSONParser.parse($0) }) { return value }
        return try JSONDecoder().decode(JSONValue.self, from: data)
    }
}

/// The strict subset of JSON that ``JSONValue/decode(_:)`` parses itself; nil means "let
/// Foundation decide", never "invalid".
struct StrictJSONParser {
    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0
    /// Nesting beyond this is left to Foundation (which has its own limit).
    static let maximumDepth = 64

    static func parse(_ bytes: UnsafeRawBufferPointer) -> JSONValue? {
        var parser = StrictJSONParser(bytes: bytes)
        parser.skipWhitespace()
        guard let value = parser.value() else { return nil }
        parser.skipWhitespace()
        return parser.index == bytes.count ? value : nil
    }

    private init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func consume(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        index += count
        return true
    }

    private mutating func value() -> JSONValue? {
        switch current {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map(JSONValue.string)
        case UInt8(ascii: "t"): return consume("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return consume("false") ? .bool(false) : nil
        case UInt8(ascii: "n"): return consume("null") ? .null : nil
        default: return number()
        }
    }

    private mutating func object() -> JSONValue? {
        var members: [String: JSONValue] = [:]
        let closed = container(closing: UInt8(ascii: "}")) { parser in
            guard parser.current == UInt8(ascii: "\""), let key = parser.string() else { return false }
            parser.skipWhitespace()
            guard parser.current == UInt8(ascii: ":") else { return false }
            parser.index += 1
            parser.skipWhitespace()
            guard let member = parser.value() else { return false }
            return members.updateValue(member, forKey: key) == nil
        }
        return closed ? .object(members) : nil
    }

    private mutating func array() -> JSONValue? {
        var elements: [JSONValue] = []
        let closed = container(closing: UInt8(ascii: "]")) { parser in
            guard let element = parser.value() else { return false }
            elements.append(element)
            return true
        }
        return closed ? .array(elements) : nil
    }

    /// Parses an object's or array's items, separated by commas, up to `closing`: false for
    /// anything else (a trailing comma too) and beyond ``maximumDepth``.
    private mutating func container(closing: UInt8, item: (inout StrictJSONParser) -> Bool) -> Bool {
        guard depth < Self.maximumDepth else { return false }
        depth += 1
        defer { depth -= 1 }
        index += 1
        skipWhitespace()
        if current == closing {
            index += 1
            return true
        }
        while true {
            guard item(&self) else { return false }
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
            case closing:
                index += 1
                return true
            default:
                return false
            }
        }
    }

    /// A string starting at the opening quote, or nil for control characters, unpaired
    /// surrogates, bad escapes and invalid UTF-8.
    private mutating func string() -> String? {
        index += 1
        let start = index
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
            guard byte >= 0x20 else { return nil }
            index += 1
        }
        guard let stop = current else { return nil }
        if stop == UInt8(ascii: "\"") {
            index += 1
            return String(validating: UnsafeRawBufferPointer(rebasing: bytes[start..<(index - 1)]), as: UTF8.self)
        }
        var unescaped = Array(bytes[start..<index])
        while let byte = current {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(validating: unescaped, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard escape(into: &unescaped) else { return nil }
            case ..<0x20:
                return nil
            default:
                unescaped.append(byte)
            }
        }
        return nil
    }

    /// Appends the UTF-8 of the escape after a backslash.
    private mutating func escape(into out: inout [UInt8]) -> Bool {
        guard let byte = current else { return false }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(byte)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            guard let unit = hex4() else { return false }
            var scalarValue = UInt32(unit)
            if (0xD800...0xDBFF).contains(unit) {
                guard consume("\\u"), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return false }
                scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { return false }
            UTF8.encode(scalar) { out.append($0) }
        default:
            return false
        }
        return true
    }

    private mutating func hex4() -> UInt16? {
        guard bytes.count - index >= 4 else { return nil }
        var unit: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    /// A number by RFC 8259's grammar: an integer that fits `Int64`, or a number with a
    /// fraction or exponent whose value is finite and not whole.
    private mutating func number() -> JSONValue? {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else { return nil }
        index += 1
        if first != UInt8(ascii: "0") { skipDigits() }
        var whole = true
        if current == UInt8(ascii: ".") {
            index += 1
            guard skipDigits() > 0 else { return nil }
            whole = false
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard skipDigits() > 0 else { return nil }
            whole = false
        }
        // A digit straight after a leading zero ("01") is not JSON.
        if let next = current, next >= UInt8(ascii: "0"), next <= UInt8(ascii: "9") { return nil }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if whole { return Int64(text).map(JSONValue.integer) }
        guard let value = Double(text), value.isFinite, value.rounded(.towardZero) != value else { return nil }
        return .number(value)
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = index
        while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
        return index - start
    }
}

import Foundation

/// Reads an OCR results file's pages straight from its bytes: each page's number and text,
/// and its blocks' lines' words with their boxes, every other value passed over. A results
/// file holds a box for every word of every page (tens of kilobytes a page), and
/// `JSONDecoder` spent most of `extract`'s time on them; this reads the same JSON (RFC 8259:
/// any order of keys, white space, escapes, surrogate pairs) in one pass, an order of
/// magnitude faster. Malformed JSON, or a page without its number or text, reads as nil, as
/// the decoder would have it.
struct OCRResultsParser {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var at = 0

    private struct Malformed: Error {}

    /// The pages of the results file `data`, or nil when it does not read.
    static func pages(_ data: Data) -> [OCRResults.Page]? {
        data.withUnsafeBytes { raw in
            var parser = OCRResultsParser(bytes: raw.bindMemory(to: UInt8.self))
            return try? parser.file()
        }
    }

    private init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    private mutating func file() throws -> [OCRResults.Page] {
        var pages: [OCRResults.Page]?
        try object { key, parser in
            if key == "pages" { pages = try parser.array { try $0.page() } } else { try parser.skip() }
        }
        skipSpace()
        guard at == bytes.count, let pages else { throw Malformed() }
        return pages
    }

    private mutating func page() throws -> OCRResults.Page {
        var number: Int?, text: String?, blocks: [OCRResults.Block] = []
        try object { key, parser in
            switch key {
            case "pageNumber": number = try parser.integer()
            case "text": text = try parser.string()
            case "textBlocks":
                // Blocks that do not read leave the page its text (the decoder's `try?`): passed over whole.
                let start = parser.at
                if let read = try? parser.array({ try $0.block() }) { blocks = read } else { parser.at = start; try parser.skip() }
            default: try parser.skip()
            }
        }
        guard let number, let text else { throw Malformed() }
        return OCRResults.Page(number: number, text: text, blocks: blocks)
    }

    private mutating func block() throws -> OCRResults.Block {
        var lines: [OCRResults.Line] = [], box: OCRResults.Box?
        try object { key, parser in
            switch key {
            case "lines": lines = try parser.array { try $0.line() }
            case "boundingBox": box = try parser.box()
            default: try parser.skip()
            }
        }
        guard let box else { throw Malformed() }
        return OCRResults.Block(lines: lines, boundingBox: box)
    }

    private mutating func line() throws -> OCRResults.Line {
        var words: [OCRResults.Word] = [], box: OCRResults.Box?
        try object { key, parser in
            switch key {
            case "words": words = try parser.array { try $0.word() }
            case "boundingBox": box = try parser.box()
            default: try parser.skip()
            }
        }
        guard let box else { throw Malformed() }
        return OCRResults.Line(words: words, boundingBox: box)
    }

    private mutating func word() throws -> OCRResults.Word {
        var text: String?, box: OCRResults.Box?, confidence = 1.0
        try object { key, parser in
            switch key {
            case "text": text = try parser.string()
            case "boundingBox": box = try parser.box()
            case "confidence": confidence = (try? parser.number()) ?? 1
            default: try parser.skip()
            }
        }
        guard let text, let box else { throw Malformed() }
        return OCRResults.Word(text: text, boundingBox: box, confidence: confidence)
    }

    private mutating func box() throws -> OCRResults.Box {
        var x: Double?, y: Double?, width: Double?, height: Double?
        try object { key, parser in
            switch key {
            case "x": x = try parser.number()
            case "y": y = try parser.number()
            case "width": width = try parser.number()
            case "height": height = try parser.number()
            default: try parser.skip()
            }
        }
        guard let x, let y, let width, let height else { throw Malformed() }
        return OCRResults.Box(x: x, y: y, width: width, height: height)
    }

    // MARK: JSON

    private mutating func skipSpace() {
        while at < bytes.count, bytes[at] == 0x20 || bytes[at] == 0x0A || bytes[at] == 0x0D || bytes[at] == 0x09 { at += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws {
        skipSpace()
        guard at < bytes.count, bytes[at] == byte else { throw Malformed() }
        at += 1
    }

    private mutating func peek() -> UInt8? {
        skipSpace()
        return at < bytes.count ? bytes[at] : nil
    }

    /// An object, each member's key handed to `member`, which reads (or skips) its value.
    private mutating func object(_ member: (String, inout OCRResultsParser) throws -> Void) throws {
        try expect(0x7B)
        if peek() == 0x7D { at += 1; return }
        while true {
            let key = try string()
            try expect(0x3A)
            try member(key, &self)
            skipSpace()
            guard at < bytes.count else { throw Malformed() }
            if bytes[at] == 0x2C { at += 1; continue }
            if bytes[at] == 0x7D { at += 1; return }
            throw Malformed()
        }
    }

    private mutating func array<T>(_ element: (inout OCRResultsParser) throws -> T) throws -> [T] {
        try expect(0x5B)
        var items: [T] = []
        if peek() == 0x5D { at += 1; return items }
        while true {
            items.append(try element(&self))
            skipSpace()
            guard at < bytes.count else { throw Malformed() }
            if bytes[at] == 0x2C { at += 1; continue }
            if bytes[at] == 0x5D { at += 1; return items }
            throw Malformed()
        }
    }

    private mutating func string() throws -> String {
        try expect(0x22)
        let start = at
        // Most strings have no escape: taken as they are.
        while at < bytes.count, bytes[at] != 0x22, bytes[at] != 0x5C, bytes[at] >= 0x20 { at += 1 }
        guard at < bytes.count else { throw Malformed() }
        if bytes[at] == 0x22 {
            defer { at += 1 }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<at]), as: UTF8.self)
        }
        var out = Array(bytes[start..<at])
        while at < bytes.count {
            let byte = bytes[at]
            if byte == 0x22 { at += 1; return String(decoding: out, as: UTF8.self) }
            guard byte >= 0x20 else { throw Malformed() }
            guard byte == 0x5C else { out.append(byte); at += 1; continue }
            guard at + 1 < bytes.count else { throw Malformed() }
            let escaped = bytes[at + 1]
            at += 2
            switch escaped {
            case 0x22, 0x5C, 0x2F: out.append(escaped)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar), at + 1 < bytes.count, bytes[at] == 0x5C, bytes[at + 1] == 0x75 {
                    at += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw Malformed() }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                out.append(contentsOf: Array(String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8))
            default: throw Malformed()
            }
        }
        throw Malformed()
    }

    private mutating func hex4() throws -> UInt32 {
        guard at + 4 <= bytes.count else { throw Malformed() }
        var value: UInt32 = 0
        for byte in bytes[at..<(at + 4)] {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x41...0x46: digit = byte - 0x37
            case 0x61...0x66: digit = byte - 0x57
            default: throw Malformed()
            }
            value = value << 4 | UInt32(digit)
        }
        at += 4
        return value
    }

    /// A number, read by JSON's grammar (to a box's precision: its last bits are of no account here).
    private mutating func number() throws -> Double {
        skipSpace()
        var negative = false
        if at < bytes.count, bytes[at] == 0x2D { negative = true; at += 1 }
        var mantissa = 0.0
        var scale = 0
        let digits = at
        while at < bytes.count, (0x30...0x39).contains(bytes[at]) { mantissa = mantissa * 10 + Double(bytes[at] - 0x30); at += 1 }
        guard at > digits else { throw Malformed() }
        if at < bytes.count, bytes[at] == 0x2E {
            at += 1
            let fraction = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) {
                if at - fraction < 17 { mantissa = mantissa * 10 + Double(bytes[at] - 0x30); scale -= 1 }
                at += 1
            }
            guard at > fraction else { throw Malformed() }
        }
        if at < bytes.count, bytes[at] == 0x65 || bytes[at] == 0x45 {
            at += 1
            var sign = 1
            if at < bytes.count, bytes[at] == 0x2B || bytes[at] == 0x2D { sign = bytes[at] == 0x2D ? -1 : 1; at += 1 }
            var exponent = 0
            let start = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) { exponent = min(exponent * 10 + Int(bytes[at] - 0x30), 1000); at += 1 }
            guard at > start else { throw Malformed() }
            scale += sign * exponent
        }
        let value = scale == 0 ? mantissa : scale > 0 ? mantissa * pow(10, Double(scale)) : mantissa / pow(10, Double(-scale))
        return negative ? -value : value
    }

    private mutating func integer() throws -> Int {
        let value = try number()
        guard value.rounded() == value, abs(value) < 1e15 else { throw Malformed() }
        return Int(value)
    }

    /// Passes over one value of any kind.
    private mutating func skip() throws {
        switch peek() {
        case 0x7B: try object { _, parser in try parser.skip() }
        case 0x5B: _ = try array { try $0.skip() }
        case 0x22: _ = try string()
        case 0x74: try literal("true")
        case 0x66: try literal("false")
        case 0x6E: try literal("null")
        default: _ = try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard at + count <= bytes.count else { throw Malformed() }
        for index in 0..<count where bytes[at + index] != word.utf8Start[index] { throw Malformed() }
        at += count
    }
}

import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// The bytes of an address file (`.addresses/<document>.json`) as the app's
/// `DocumentAddressFile` encodes it (`JSONEncoder`, pretty-printed, keys sorted): extraction
/// owns `schema_version`, `document_id`, `extracted_at`, `page_count` and `pages`; the
/// `overrides` and `enriched` of the file it replaces are carried over byte for byte.
public struct AddressFileText: Sendable {
    public let documentID: String
    public let pageCount: Int
    public let pages: [AddressPage]

    /// `pages` as the app's encoder writes them, made once.
    private let pagesJSON: Data

    public init(documentID: String, pageCount: Int, pages: [AddressPage]) {
        self.documentID = documentID
        self.pageCount = pageCount
        self.pages = pages
        pagesJSON = (try? Self.encoder.encode(pages)) ?? Data("[]".utf8)  // these types always encode
    }

    /// What `existing` (the file there now) holds that is not extraction's, byte for byte,
    /// when it is JSON and the part is of the shape the app reads.
    public struct Kept: Sendable, Equatable {
        public var overrides: String?
        public var enriched: String?

        public init(existing: Data?) {
            guard let existing, let spans = JSONSpans.topLevel(existing) else { return }
            func part(_ key: String, _ shape: CompanionShape) -> String? {
                guard let range = spans[key], let value = try? JSONValue.decode(existing[range]), value != .null,
                      shape.failures(value).isEmpty else { return nil }
                return String(decoding: existing[range], as: UTF8.self)
            }
            overrides = part("overrides", .array(CompanionShape.addressOverrideEntry))
            enriched = part("enriched", CompanionShape.enrichedData)
        }
    }

    /// True when `existing` already holds these pages for this document: writing again would
    /// change only `extracted_at`, and send the file to every device for nothing.
    public func isSame(as existing: Data?) -> Bool {
        guard let existing, case .object(let object)? = try? JSONValue.decode(existing),
              let pagesValue = try? JSONValue.decode(pagesJSON) else { return false }
        return object["document_id"] == .string(documentID) && object["page_count"] == .integer(Int64(pageCount))
            && object["schema_version"] == .integer(1) && object["pages"] == pagesValue
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return encoder
    }()

    /// The file's bytes, `extractedAt` its time of extraction.
    public func data(keeping kept: Kept, extractedAt: Date) throws -> Data {
        func json<T: Encodable>(_ value: T) throws -> String { Self.nested(try Self.encoder.encode(value)) }
        var fields: [(String, String)] = [
            ("document_id", try json(documentID)),
            ("extracted_at", try json(InternetTime.string(extractedAt))),
            ("overrides", kept.overrides ?? "[\n\n  ]"),
            ("page_count", String(pageCount)),
            ("pages", pages.isEmpty ? "[\n\n  ]" : Self.nested(pagesJSON)),
            ("schema_version", "1"),
        ]
        if let enriched = kept.enriched { fields.insert(("enriched", enriched), at: 1) }
        let body = fields.map { "  \"\($0.0)\" : \($0.1)" }.joined(separator: ",\n")
        return Data("{\n\(body)\n}".utf8)
    }
}

extension AddressFileText {
    /// Encoded JSON as a value one level down: every line after the first indented two more
    /// spaces (the encoder escapes line breaks inside strings, so each is between tokens).
    static func nested(_ json: Data) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(json.count + json.count / 8)
        for byte in json {
            bytes.append(byte)
            if byte == 0x0A { bytes.append(0x20); bytes.append(0x20) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Where each value of a JSON object's top level lies in its bytes, without decoding them.
enum JSONSpans {
    /// Each top-level key's value's byte range, or nil when `data` is no JSON object.
    static func topLevel(_ data: Data) -> [String: Range<Data.Index>]? {
        let bytes = [UInt8](data)
        var i = 0
        func skipSpace() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
        /// Past a string that starts at `i` (a quote).
        func skipString() -> Bool {
            i += 1
            while i < bytes.count {
                if bytes[i] == 0x5C { i += 2; continue }
                if bytes[i] == 0x22 { i += 1; return true }
                i += 1
            }
            return false
        }
        func skipValue() -> Bool {
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case 0x22: return skipString()
            case 0x7B, 0x5B:
                var depth = 0
                while i < bytes.count {
                    switch bytes[i] {
                    case 0x22: guard skipString() else { return false }; continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D: depth -= 1
                    default: break
                    }
                    i += 1
                    if depth == 0 { return true }
                }
                return false
            default:
                while i < bytes.count, ![0x2C, 0x7D, 0x5D, 0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
                return true
            }
        }
        skipSpace()
        guard i < bytes.count, bytes[i] == 0x7B else { return nil }
        i += 1
        var spans: [String: Range<Data.Index>] = [:]
        while true {
            skipSpace()
            if i < bytes.count, bytes[i] == 0x7D { return spans }
            guard i < bytes.count, bytes[i] == 0x22 else { return nil }
            let keyStart = i
            guard skipString(), let key = try? JSONDecoder().decode(String.self, from: Data(bytes[keyStart..<i])) else { return nil }
            skipSpace()
            guard i < bytes.count, bytes[i] == 0x3A else { return nil }
            i += 1
            skipSpace()
            let valueStart = i
            guard skipValue() else { return nil }
            spans[key] = (data.startIndex + valueStart)..<(data.startIndex + i)
            skipSpace()
            if i < bytes.count, bytes[i] == 0x2C { i += 1; continue }
            guard i < bytes.count, bytes[i] == 0x7D else { return nil }
            return spans
        }
    }
}

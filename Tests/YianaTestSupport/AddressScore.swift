import Foundation
import YianaArchive

/// Per-field accuracy of extracted address pages against the app's expected ones
/// (`YianaExtraction/Tests/.../Fixtures/expected_addresses`): for each expected page and
/// field with a value, whether the page found for that page number has the same value.
/// Compared as a person reads them: case and spacing aside, dates as dates (`18/09/65` is
/// 18/09/1965), phones and postcodes by their digits and letters.
public struct AddressScore: Sendable {
    public static let fields = ["name", "date of birth", "line_1", "line_2", "city", "county", "postcode", "phones", "mrn",
                                "gp name", "gp practice", "gp address", "gp postcode", "method"]

    /// field → (right, expected)
    public private(set) var counts: [String: (right: Int, of: Int)] = [:]
    /// Values found where none was expected, by field.
    public private(set) var extra: [String: Int] = [:]
    /// What went wrong, one line per wrong value: `document page field: expected → found`.
    public private(set) var misses: [String] = []

    public init() {}

    /// Scores one document: `expected` and `found` are its pages (`page_number`, `patient`, …).
    public mutating func add(document: String, expected: [JSONValue], found: [JSONValue]) {
        let foundByPage = Dictionary(found.map { (Self.int($0, ["page_number"]) ?? 0, $0) }, uniquingKeysWith: { first, _ in first })
        let expectedPages = Set(expected.map { Self.int($0, ["page_number"]) ?? 0 })
        for page in expected {
            let number = Self.int(page, ["page_number"]) ?? 0
            let result = foundByPage[number]
            for field in Self.fields {
                for (want, have) in zip(Self.values(field, page), Self.values(field, result)) {
                    if let want {
                        counts[field, default: (0, 0)].of += 1
                        if let have, Self.same(field, want, have) {
                            counts[field, default: (0, 0)].right += 1
                        } else {
                            misses.append("\(document) p\(number) \(field): \(want) → \(have ?? "nothing")")
                        }
                    } else if have != nil {
                        extra[field, default: 0] += 1
                    }
                }
            }
        }
        for page in found where !expectedPages.contains(Self.int(page, ["page_number"]) ?? 0) {
            for field in Self.fields where Self.values(field, page).contains(where: { $0 != nil }) { extra[field, default: 0] += 1 }
        }
    }

    /// The values of `field` on `page` (phones: home, work, mobile), nil where empty.
    static func values(_ field: String, _ page: JSONValue?) -> [String?] {
        let paths: [[String]] = switch field {
        case "name": [["patient", "full_name"]]
        case "date of birth": [["patient", "date_of_birth"]]
        case "line_1", "line_2", "city", "county", "postcode": [["address", field]]
        case "phones": [["patient", "phones", "home"], ["patient", "phones", "work"], ["patient", "phones", "mobile"]]
        case "mrn": [["patient", "mrn"]]
        case "method": [["extraction", "method"]]
        default: [["gp", String(field.dropFirst(3))]]
        }
        return paths.map { path in
            guard let page, case .string(let text)? = lookup(page, path) else { return nil }
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            return trimmed.isEmpty ? nil : trimmed
        }
    }

    static func same(_ field: String, _ a: String, _ b: String) -> Bool {
        switch field {
        case "date of birth": return date(a) != nil && date(a) == date(b)
        case "phones": return a.filter(\.isNumber) == b.filter(\.isNumber)
        case "postcode", "gp postcode": return a.uppercased().filter { !$0.isWhitespace } == b.uppercased().filter { !$0.isWhitespace }
        default: return plain(a) == plain(b)
        }
    }

    static func plain(_ text: String) -> String {
        text.lowercased().split(whereSeparator: \.isWhitespace).joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: ".,;"))
    }

    static func date(_ text: String) -> [Int]? {
        let parts = text.split(whereSeparator: { "/.-".contains($0) }).compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        let year = parts[2] < 100 ? (parts[2] >= 30 ? 1900 + parts[2] : 2000 + parts[2]) : parts[2]
        return [parts[0], parts[1], year]
    }

    static func lookup(_ value: JSONValue, _ path: [String]) -> JSONValue? {
        var value = value
        for key in path {
            guard case .object(let object) = value, let next = object[key] else { return nil }
            value = next
        }
        return value
    }

    static func int(_ value: JSONValue, _ path: [String]) -> Int? {
        if case .integer(let number)? = lookup(value, path) { return Int(number) }
        return nil
    }

    /// One line per field: right of expected, the share, and the values found where none was expected.
    public func table(beside reference: [String: (Int, Int)] = [:], referenceName: String = "") -> String {
        func column(_ text: String, _ width: Int, left: Bool = false) -> String {
            let pad = String(repeating: " ", count: max(0, width - text.count))
            return left ? text + pad : pad + text
        }
        var lines = [column("field", 14, left: true) + column("right", 9) + column("share", 8) + column("extra", 7) + (reference.isEmpty ? "" : "  \(referenceName)")]
        for field in Self.fields {
            let (right, of) = counts[field] ?? (0, 0)
            let share = of == 0 ? "-" : String(format: "%.1f%%", 100 * Double(right) / Double(of))
            let other = reference[field].map { "  \($0.0)/\($0.1)" } ?? ""
            lines.append(column(field, 14, left: true) + column("\(right)/\(of)", 9) + column(share, 8) + column(String(extra[field] ?? 0), 7) + other)
        }
        return lines.joined(separator: "\n")
    }
}

/// The app's extraction fixtures (lh/Yiana, YianaExtraction's `input_ocr` and
/// `expected_addresses`: 53 synthetic documents), as `Tests/YianaExtractTests/Fixtures/app/fixtures.json` holds them.
public struct AppExtractionFixtures: Sendable {
    public struct Document: Sendable {
        public let id: String
        public let pages: [(number: Int, text: String)]
        public let expected: [JSONValue]
    }

    public let documents: [Document]

    public static let defaultURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("YianaExtractTests/Fixtures/app/fixtures.json")

    public init(at url: URL = defaultURL) throws {
        guard case .object(let root) = try JSONValue.decode(Data(contentsOf: url)), case .array(let documents)? = root["documents"] else {
            throw CocoaError(.fileReadCorruptFile)
        }
        self.documents = documents.compactMap { document in
            guard case .string(let id)? = AddressScore.lookup(document, ["document_id"]),
                  case .array(let pages)? = AddressScore.lookup(document, ["pages"]),
                  case .array(let expected)? = AddressScore.lookup(document, ["expected"]) else { return nil }
            let texts = pages.compactMap { page -> (number: Int, text: String)? in
                guard let number = AddressScore.int(page, ["page_number"]), case .string(let text)? = AddressScore.lookup(page, ["text"]) else { return nil }
                return (number, text)
            }
            return Document(id: id, pages: texts, expected: expected)
        }
    }

    /// How many pages in all.
    public var pageCount: Int { documents.reduce(0) { $0 + $1.pages.count } }
}

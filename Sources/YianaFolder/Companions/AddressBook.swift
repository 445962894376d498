import Foundation
import YianaArchive

/// The people and addresses the app shows for a document, from its address files as the app
/// resolves them (AddressRepository: `resolveAddresses`): each extracted page with the newest
/// correction of its page and address type laid over it, dismissed ones left out, and the
/// manual addresses (page 0) that no page took, the newest of each type. The corrections
/// file replaces the extraction file's own `overrides` when it holds any.
public struct AddressBook: Sendable, Equatable {
    /// One address as the app shows it.
    public struct Entry: Sendable, Equatable {
        public let page: Int
        public let type: String
        /// What the app shows, each part from the correction when it has one, else from the
        /// page: `patient`, `address` and `gp` (objects as the app encodes them) and
        /// `specialist_name` (a string).
        public let parts: [String: JSONValue]
        /// Where it comes from: extraction, a person's correction of it, or a person alone.
        public var source: Source = .extracted

        /// Names, address lines, postcodes, practices: the words a person searches for.
        public var words: [String] {
            var words: [String] = []
            words += AddressBook.strings(parts["patient"], ["full_name", "date_of_birth", "mrn", "nhs_number"])
            words += AddressBook.strings(parts["address"], ["line_1", "line_2", "city", "county", "postcode"])
            words += AddressBook.strings(parts["gp"], ["name", "practice", "address", "postcode", "official_name"])
            if let specialist = parts["specialist_name"]?.stringValue { words.append(specialist) }
            return words.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
        }
    }

    public enum Source: String, Sendable, Equatable {
        case extracted
        /// Extracted, and corrected by a person (`.overrides.json`).
        case corrected
        /// Added by a person (a correction of no extracted page).
        case added
    }

    public let entries: [Entry]

    /// - Parameters:
    ///   - extraction: `.addresses/<key>.json`, if there is one that reads.
    ///   - corrections: `.addresses/<key>.overrides.json`, if there is one that reads.
    public init(extraction: JSONValue?, corrections: JSONValue?) {
        let separate = corrections.map { Self.array($0, "overrides") } ?? []
        let overrides = separate.isEmpty ? extraction.map { Self.array($0, "overrides") } ?? [] : separate
        var used = Set<Int>()
        var entries: [Entry] = []
        for page in extraction.map({ Self.array($0, "pages") }) ?? [] {
            let number = Self.int(page, "page_number") ?? 0
            let type = Self.string(page, "address_type") ?? "patient"
            let newest = overrides.enumerated()
                .filter { Self.int($0.element, "page_number") == number && Self.string($0.element, "match_address_type") == type }
                .max { (Self.string($0.element, "override_date") ?? "") < (Self.string($1.element, "override_date") ?? "") }
            if let newest { used.insert(newest.offset) }
            if newest.map({ Self.bool($0.element, "is_dismissed") }) == true { continue }
            entries.append(Entry(page: number, type: newest.flatMap { Self.string($0.element, "address_type") } ?? type,
                                 parts: Self.parts(newest?.element, over: page), source: newest == nil ? .extracted : .corrected))
        }
        var manual: [String: JSONValue] = [:]
        for (offset, entry) in overrides.enumerated() where !used.contains(offset) && Self.int(entry, "page_number") == 0 {
            let type = Self.string(entry, "match_address_type") ?? ""
            if let kept = manual[type], (Self.string(kept, "override_date") ?? "") >= (Self.string(entry, "override_date") ?? "") { continue }
            manual[type] = entry
        }
        for (type, entry) in manual.sorted(by: { $0.key < $1.key }) where !Self.bool(entry, "is_dismissed") {
            entries.append(Entry(page: 0, type: Self.string(entry, "address_type") ?? type, parts: Self.parts(entry, over: nil), source: .added))
        }
        self.entries = entries.filter { !$0.words.isEmpty }
    }

    /// The address book of a document titled `title` at `document`: its address files by its
    /// title (the app's key), else by its file name; nil when it has none.
    public static func of(title: String, document: URL, in library: Library) -> AddressBook? {
        let folder = library.root.appendingPathComponent(CompanionFile.addressesFolder)
        for key in [title, document.deletingPathExtension().lastPathComponent] where !key.isEmpty && !key.contains("/") {
            let extraction = try? CompanionContent.json(at: folder.appendingPathComponent("\(key).json")).get()
            let corrections = try? CompanionContent.json(at: folder.appendingPathComponent("\(key).overrides.json")).get()
            if extraction != nil || corrections != nil { return AddressBook(extraction: extraction, corrections: corrections) }
        }
        return nil
    }

    /// Every entry's words, one entry a line: what the search index holds for the document.
    public var text: String {
        entries.map { $0.words.joined(separator: ", ") }.joined(separator: "\n")
    }

    /// A correction laid over an extracted page: each part (patient, address, GP, specialist)
    /// from the correction when it has one, else from the page.
    private static func parts(_ correction: JSONValue?, over page: JSONValue?) -> [String: JSONValue] {
        var parts: [String: JSONValue] = [:]
        for key in ["patient", "address", "gp", "specialist_name"] {
            if let value = correction?[key] ?? page?[key], value != .null { parts[key] = value }
        }
        return parts
    }

    private static func object(_ value: JSONValue) -> [String: JSONValue] {
        if case .object(let object) = value { return object }
        return [:]
    }

    private static func array(_ value: JSONValue, _ key: String) -> [JSONValue] {
        if case .array(let items)? = object(value)[key] { return items }
        return []
    }

    private static func string(_ value: JSONValue, _ key: String) -> String? {
        if case .string(let text)? = object(value)[key] { return text }
        return nil
    }

    private static func int(_ value: JSONValue, _ key: String) -> Int? {
        if case .integer(let number)? = object(value)[key] { return Int(number) }
        return nil
    }

    private static func bool(_ value: JSONValue, _ key: String) -> Bool {
        if case .bool(true)? = object(value)[key] { return true }
        return false
    }

    static func strings(_ value: JSONValue?, _ keys: [String]) -> [String] {
        guard let value else { return [] }
        return keys.compactMap { string(value, $0) }
    }
}

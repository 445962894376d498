import Foundation
import YianaSystem

extension DocumentMetadata {
    /// Decodes `metadata.json` bytes.
    ///
    /// - Parameter file: the document the bytes came from, named in errors.
    /// - Throws: ``MetadataError`` naming the file and the key that is missing or wrong.
    public init(jsonData: Data, file: String) throws(MetadataError) {
        let value: JSONValue
        do {
            value = try JSONValue.decode(jsonData)
        } catch {
            throw MetadataError(file: file, problem: .notJSON(Self.describeJSONError(error)))
        }
        guard case .object(let object) = value else {
            throw MetadataError(file: file, problem: .notAnObject)
        }
        let reader = FieldReader(object: object, file: file, path: "")
        id = try reader.uuid("id")
        title = try reader.required("title", reader.string)
        created = try reader.required("created", reader.date)
        modified = try reader.required("modified", reader.date)
        pageCount = try reader.required("pageCount", reader.count)
        tags = try reader.required("tags", reader.strings)
        ocrCompleted = try reader.required("ocrCompleted", reader.bool)
        fullText = try reader.string("fullText")
        ocrProcessedAt = try reader.date("ocrProcessedAt")
        ocrConfidence = try reader.number("ocrConfidence")
        ocrSource = try reader.string("ocrSource")
        if let ocrSource, !Self.ocrSources.contains(ocrSource) {
            reader.refusals.append("ocrSource \"\(ocrSource.prefix(40))\" is not one the app knows (\(Self.ocrSources.joined(separator: ", ")))")
        }
        hasPendingTextPage = try reader.bool("hasPendingTextPage") ?? false
        pageProcessingStates = try reader.objects("pageProcessingStates") { (item: FieldReader) throws(MetadataError) -> PageProcessingState in
            var state = PageProcessingState(
                pageNumber: try item.required("pageNumber", item.count),
                needsOCR: try item.required("needsOCR", item.bool),
                needsExtraction: try item.required("needsExtraction", item.bool),
                ocrProcessedAt: try item.date("ocrProcessedAt"),
                addressExtractedAt: try item.date("addressExtractedAt"))
            state.unknownFields = item.unknownFields(known: PageProcessingState.knownKeys)
            return state
        } ?? []
        pdfHash = try reader.string("pdfHash")
        unknownFields = reader.unknownFields(known: Self.knownKeys)
        readingNotes = reader.notes
        appRefusals = reader.refusals
        suspiciousDates = reader.suspicious
    }

    /// The values of `ocrSource` the app's decoder accepts (its `OCRSource` enum).
    public static let ocrSources = ["embedded", "service", "onDevice"]

    /// The `metadata.json` bytes, as Foundation's default `JSONEncoder` writes them for the
    /// app (key order as the app's, optional keys omitted as the app omits them), followed
    /// by the unknown keys read from the file.
    /// - Throws: `EncodingError` for a value JSON cannot hold (a non-finite `ocrConfidence`).
    public func jsonData() throws -> Data {
        try orderedJSON()
    }

    private static func describeJSONError(_ error: Error) -> String {
        if case DecodingError.dataCorrupted(let context) = error {
            if let underlying = context.underlyingError as NSError?,
               let detail = underlying.userInfo[NSDebugDescriptionErrorKey] as? String {
                return detail
            }
            return context.debugDescription
        }
        return "\(error)"
    }
}

/// Reads typed fields from one JSON object, naming the key path in every error.
final class FieldReader {
    let object: [String: JSONValue]
    let file: String
    let path: String
    var notes: [String] = []
    /// Values the app's own decoder refuses (it then cannot open the document).
    var refusals: [String] = []
    /// Dates that read but are implausible (a device whose clock was wrong).
    var suspicious: [String] = []

    init(object: [String: JSONValue], file: String, path: String) {
        self.object = object
        self.file = file
        self.path = path
    }

    func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    func fail(_ problem: MetadataError.Problem) -> MetadataError {
        MetadataError(file: file, problem: problem)
    }

    func wrongType(_ key: String, _ expected: String, _ found: JSONValue) -> MetadataError {
        fail(.wrongType(key: keyPath(key), expected: expected, found: found.typeName))
    }

    /// A present, non-null value for `key`, or nil.
    func value(_ key: String) -> JSONValue? {
        guard let value = object[key], value != .null else { return nil }
        return value
    }

    func required<T>(_ key: String, _ read: (String) throws(MetadataError) -> T?) throws(MetadataError) -> T {
        guard object[key] != nil else { throw fail(.missingKey(keyPath(key))) }
        guard let value = try read(key) else {
            throw fail(.wrongType(key: keyPath(key), expected: "a value", found: "null"))
        }
        return value
    }

    func string(_ key: String) throws(MetadataError) -> String? {
        guard let value = value(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    func bool(_ key: String) throws(MetadataError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else { throw wrongType(key, "true or false", value) }
        return flag
    }

    func number(_ key: String) throws(MetadataError) -> Double? {
        guard let value = value(key) else { return nil }
        guard let number = value.numberValue else { throw wrongType(key, "a number", value) }
        return number
    }

    /// A non-negative whole number (page counts, page numbers).
    func count(_ key: String) throws(MetadataError) -> Int? {
        guard let value = value(key) else { return nil }
        switch value {
        case .integer(let number) where number >= 0 && number <= Int64(Int32.max):
            return Int(number)
        case .number(let number) where number >= 0 && number <= Double(Int32.max) && number.rounded() == number:
            return Int(number)
        case .integer, .number:
            throw fail(.invalidValue(key: keyPath(key), reason: "is not a whole number from 0 up"))
        default:
            throw wrongType(key, "a whole number", value)
        }
    }

    func strings(_ key: String) throws(MetadataError) -> [String]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw wrongType(key, "an array of strings", value) }
        var result: [String] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item else {
                throw fail(.wrongType(key: "\(keyPath(key))[\(index)]", expected: "a string", found: item.typeName))
            }
            result.append(text)
        }
        return result
    }

    func uuid(_ key: String) throws(MetadataError) -> UUID {
        let text = try required(key, string)
        guard let id = UUID(uuidString: text) else {
            throw fail(.invalidValue(key: keyPath(key), reason: "is not a UUID (\"\(text.prefix(60))\")"))
        }
        return id
    }

    /// A date as the app writes it: seconds since 2001-01-01 as a JSON number, always read
    /// that way and never reinterpreted (a number the app wrote on a device with a wrong
    /// clock stays the date it says; it is only noted in ``suspicious``).
    ///
    /// An ISO-8601 string (written by other tools) is read too, and noted in ``notes`` and in
    /// ``refusals``: the app's decoder reads dates only as numbers.
    func date(_ key: String) throws(MetadataError) -> Date? {
        guard let value = value(key) else { return nil }
        if case .string(let text) = value {
            guard let date = Self.isoDate(text) else {
                throw fail(.wrongType(key: keyPath(key), expected: "a date (a number of seconds since 2001-01-01)",
                                      found: "a string (\"\(text.prefix(40))\")"))
            }
            notes.append("\(keyPath(key)) is an ISO-8601 string, not the app's number of seconds since 2001; read as \(text)")
            refusals.append("\(keyPath(key)) is a string (\"\(text.prefix(40))\"); the app reads dates only as numbers of seconds since 2001")
            return date
        }
        guard let seconds = value.numberValue else {
            throw wrongType(key, "a date (a number of seconds since 2001-01-01)", value)
        }
        guard seconds.isFinite, abs(seconds) < 1e11 else {
            throw fail(.invalidValue(key: keyPath(key), reason: "is not a plausible date (\(seconds) seconds since 2001)"))
        }
        let date = Date(timeIntervalSinceReferenceDate: seconds)
        if seconds < 0 || date > Date().addingTimeInterval(86_400) {
            let note = "\(keyPath(key)) is \(Self.isoString(date)) (\(Self.plain(seconds)) seconds since 2001), \(seconds < 0 ? "before 2001" : "in the future"): the device that saved it may have had a wrong clock; kept as it is"
            notes.append(note)
            suspicious.append(note)
        }
        return date
    }

    static func isoString(_ date: Date) -> String {
        InternetTime.string(date)
    }

    static func plain(_ seconds: Double) -> String {
        seconds.rounded() == seconds && abs(seconds) < 1e15 ? String(Int64(seconds)) : String(seconds)
    }

    func objects<T>(_ key: String, _ read: (FieldReader) throws(MetadataError) -> T) throws(MetadataError) -> [T]? {
        guard let value = value(key) else { return nil }
        guard case .array(let items) = value else { throw wrongType(key, "an array", value) }
        var result: [T] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(keyPath(key))[\(index)]"
            guard case .object(let fields) = item else {
                throw fail(.wrongType(key: itemPath, expected: "an object", found: item.typeName))
            }
            let itemReader = FieldReader(object: fields, file: file, path: itemPath)
            result.append(try read(itemReader))
            notes += itemReader.notes
            refusals += itemReader.refusals
            suspicious += itemReader.suspicious
        }
        return result
    }

    func unknownFields(known: [String]) -> [String: JSONValue] {
        object.filter { !known.contains($0.key) }
    }

    static func isoDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }
}

/// Writes a JSON object with its keys in a fixed order: the app's declaration order, then
/// unknown keys sorted. Each value is formatted by Foundation's `JSONEncoder`, as the app's
/// are; only the order is ours, because a dictionary's order changes from run to run and
/// the same metadata must always give the same bytes (content hashes depend on it).
private struct OrderedJSONObject {
    private var bytes = Data("{".utf8)
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]  // affects only objects nested in unknown keys
        return encoder
    }()

    mutating func add<T: Encodable>(_ key: String, _ value: T) throws {
        try addRaw(key, try Self.encoder.encode(value))
    }

    /// Adds a value that is already JSON.
    mutating func addRaw(_ key: String, _ json: Data) throws {
        if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
        bytes.append(try Self.encoder.encode(key))
        bytes.append(UInt8(ascii: ":"))
        bytes.append(json)
    }

    mutating func addIfPresent<T: Encodable>(_ key: String, _ value: T?) throws {
        if let value { try add(key, value) }
    }

    mutating func addUnknown(_ fields: [String: JSONValue]) throws {
        for key in fields.keys.sorted() { try add(key, fields[key]!) }
    }

    func finished() -> Data { bytes + Data("}".utf8) }
}

extension DocumentMetadata {
    func orderedJSON() throws -> Data {
        var object = OrderedJSONObject()
        try object.add("id", id)
        try object.add("title", title)
        try object.add("created", created)
        try object.add("modified", modified)
        try object.add("pageCount", pageCount)
        try object.add("tags", tags)
        try object.add("ocrCompleted", ocrCompleted)
        try object.addIfPresent("fullText", fullText)
        try object.addIfPresent("ocrProcessedAt", ocrProcessedAt)
        try object.addIfPresent("ocrConfidence", ocrConfidence)
        try object.addIfPresent("ocrSource", ocrSource)
        if hasPendingTextPage { try object.add("hasPendingTextPage", true) }
        if !pageProcessingStates.isEmpty {
            let items = try pageProcessingStates.map { try $0.orderedJSON() }
            try object.addRaw("pageProcessingStates", Data("[".utf8) + Data(items.joined(separator: Data(",".utf8))) + Data("]".utf8))
        }
        try object.addIfPresent("pdfHash", pdfHash)
        try object.addUnknown(unknownFields)
        return object.finished()
    }
}

extension PageProcessingState {
    func orderedJSON() throws -> Data {
        var object = OrderedJSONObject()
        try object.add("pageNumber", pageNumber)
        try object.add("needsOCR", needsOCR)
        try object.add("needsExtraction", needsExtraction)
        try object.addIfPresent("ocrProcessedAt", ocrProcessedAt)
        try object.addIfPresent("addressExtractedAt", addressExtractedAt)
        try object.addUnknown(unknownFields)
        return object.finished()
    }
}

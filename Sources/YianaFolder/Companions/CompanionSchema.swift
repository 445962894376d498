import Foundation
import YianaArchive

/// Why the app's `JSONDecoder` would refuse a companion file: the key path and the reason.
public struct CompanionDecodeFailure: Error, Codable, Sendable, Equatable {
    /// Where, as a path of keys and indexes (`overrides[2].page_number`); empty for the whole file.
    public let key: String
    public let reason: String
}

/// The shape of each companion file as the app's `Codable` models declare it, checked the
/// way Foundation's `JSONDecoder` decodes a synthesized `Decodable`: a non-optional property
/// must be present and not null, an optional one may be missing or null, numbers must fit
/// (`Int` takes no fraction), strings of an enum must be one of its raw values, and unknown
/// keys are ignored. Written from the app's models (lh/Yiana, March 2026), not from its code.
public indirect enum CompanionShape: Sendable {
    case string, int, double, bool, uuid
    case oneOf([String])
    case array(CompanionShape)
    case object([CompanionField])

    /// The schema the app decodes files of `kind` with; nil for files that are not JSON.
    public static func of(_ kind: CompanionKind) -> CompanionShape? {
        switch kind {
        case .addressExtraction: documentAddressFile
        case .addressCorrections: overridesFile
        case .letterDraft: letterDraft
        case .senderConfig: senderConfig
        case .workList: sharedWorkList
        case .legacyWorkList: legacyWorkList
        case .renderedLetter, .injectLetter, .unmatchedLetter: nil
        }
    }

    /// Every reason the app would refuse `value`, the first one first (the one its decoder stops at).
    public func failures(_ value: JSONValue, at path: String = "") -> [CompanionDecodeFailure] {
        func wrong(_ expected: String) -> [CompanionDecodeFailure] {
            [CompanionDecodeFailure(key: path, reason: "expected \(expected), found \(value.typeName)")]
        }
        switch (self, value) {
        case (.string, .string), (.int, .integer), (.double, .integer), (.double, .number), (.bool, .bool):
            return []
        case (.uuid, .string(let text)):
            return UUID(uuidString: text) != nil ? [] : [CompanionDecodeFailure(key: path, reason: "\"\(text)\" is not a UUID")]
        case (.oneOf(let allowed), .string(let text)):
            return allowed.contains(text) ? [] : [CompanionDecodeFailure(key: path, reason: "\"\(text)\" is not one of \(allowed.joined(separator: ", "))")]
        case (.array(let element), .array(let items)):
            return items.enumerated().flatMap { element.failures($1, at: "\(path)[\($0)]") }
        case (.object(let fields), .object(let object)):
            return fields.flatMap { field -> [CompanionDecodeFailure] in
                let keyPath = path.isEmpty ? field.key : "\(path).\(field.key)"
                switch object[field.key] {
                case nil:
                    return field.required ? [CompanionDecodeFailure(key: keyPath, reason: "missing (the app requires it)")] : []
                case .null?:
                    return field.required ? [CompanionDecodeFailure(key: keyPath, reason: "null (the app requires a value)")] : []
                case let present?:
                    return field.shape.failures(present, at: keyPath)
                }
            }
        case (.int, .number(let number)):
            return [CompanionDecodeFailure(key: path, reason: "\(number) is not a whole number")]
        case (.string, _), (.uuid, _), (.oneOf, _): return wrong("a string")
        case (.int, _): return wrong("a whole number")
        case (.double, _): return wrong("a number")
        case (.bool, _): return wrong("true or false")
        case (.array, _): return wrong("an array")
        case (.object, _): return wrong("an object")
        }
    }
}

/// One property of an app model: its JSON key, its shape, and whether it is optional.
public struct CompanionField: Sendable {
    public let key: String
    public let shape: CompanionShape
    public let required: Bool

    static func required(_ key: String, _ shape: CompanionShape) -> CompanionField { CompanionField(key: key, shape: shape, required: true) }
    static func optional(_ key: String, _ shape: CompanionShape) -> CompanionField { CompanionField(key: key, shape: shape, required: false) }
}

// The app's models, key by key (snake_case where its CodingKeys say so).
extension CompanionShape {
    static let phoneInfo = object([.optional("home", .string), .optional("work", .string), .optional("mobile", .string)])
    static let patientInfo = object([.optional("full_name", .string), .optional("date_of_birth", .string), .optional("phones", phoneInfo), .optional("mrn", .string)])
    static let addressInfo = object([
        .optional("line_1", .string), .optional("line_2", .string), .optional("city", .string), .optional("county", .string),
        .optional("postcode", .string), .optional("postcode_valid", .bool), .optional("postcode_district", .string),
    ])
    static let nhsCandidate = object([
        .optional("source", .string), .optional("ods_code", .string), .optional("name", .string),
        .optional("address_line1", .string), .optional("town", .string), .optional("postcode", .string),
    ])
    static let gpInfo = object([
        .optional("name", .string), .optional("practice", .string), .optional("address", .string), .optional("postcode", .string),
        .optional("ods_code", .string), .optional("official_name", .string), .optional("nhs_candidates", .array(nhsCandidate)),
    ])
    static let extractionInfo = object([.optional("method", .string), .optional("confidence", .double)])
    static let addressPageEntry = object([
        .required("page_number", .int), .optional("patient", patientInfo), .optional("address", addressInfo), .optional("gp", gpInfo),
        .optional("extraction", extractionInfo), .optional("address_type", .string), .optional("is_prime", .bool),
        .optional("specialist_name", .string),
    ])
    public static let addressOverrideEntry = object([
        .required("page_number", .int), .required("match_address_type", .string),
        .optional("patient", patientInfo), .optional("address", addressInfo), .optional("gp", gpInfo),
        .optional("address_type", .string), .optional("is_prime", .bool), .optional("specialist_name", .string),
        .optional("override_reason", .string), .optional("override_date", .string), .optional("is_dismissed", .bool),
        .optional("recipient_role", .string),
    ])
    public static let enrichedData = object([
        .optional("enriched_at", .string),
        .optional("patient", object([
            .optional("full_name", .string), .optional("surname", .string), .optional("firstname", .string),
            .optional("date_of_birth", .string), .optional("source", .string), .optional("document_count", .int),
        ])),
        .optional("practitioners", .array(object([
            .optional("name", .string), .optional("type", .string), .optional("practice", .string), .optional("document_count", .int),
        ]))),
    ])
    /// `DocumentAddressFile`: every top-level key but `enriched` is required, `overrides` too.
    public static let documentAddressFile = object([
        .required("schema_version", .int), .required("document_id", .string), .required("extracted_at", .string),
        .required("page_count", .int), .required("pages", .array(addressPageEntry)),
        .required("overrides", .array(addressOverrideEntry)), .optional("enriched", enrichedData),
    ])
    /// `OverridesFile`.
    static let overridesFile = object([
        .required("schema_version", .int), .required("document_id", .string), .required("overrides", .array(addressOverrideEntry)),
    ])
    /// `LetterDraft` (its recipients' `id` is not among their coding keys: never read).
    static let letterDraft = object([
        .required("letter_id", .string), .required("created", .string), .required("modified", .string),
        .required("status", .oneOf(["draft", "render_requested", "rendered"])), .required("yiana_target", .string),
        .required("patient", object([
            .required("name", .string), .required("dob", .string), .required("mrn", .string),
            .required("address", .array(.string)), .required("phones", .array(.string)), .optional("title", .string),
        ])),
        .required("recipients", .array(object([
            .required("role", .string), .required("source", .string), .required("name", .string),
            .optional("practice", .string), .required("address", .array(.string)),
        ]))),
        .required("body", .string), .optional("render_request", .string),
    ])
    /// `SenderConfig`.
    static let senderConfig = object([
        .required("name", .string), .required("credentials", .string), .required("role", .string),
        .required("department", .string), .required("hospital", .string), .required("address", .array(.string)),
        .required("phone", .string), .required("email", .string),
        .optional("secretary", object([.required("name", .string), .required("phone", .string), .required("email", .string)])),
    ])
    /// `SharedWorkList` (camelCase keys: the model has no coding keys).
    static let sharedWorkList = object([
        .required("modified", .string),
        .required("items", .array(object([
            .required("id", .string), .optional("mrn", .string), .optional("surname", .string), .optional("firstName", .string),
            .optional("gender", .string), .optional("age", .int), .optional("doctor", .string),
            .optional("resolvedFilename", .string), .required("source", .string), .required("added", .string),
        ]))),
    ])
    /// `LegacyYianaWorkList`.
    static let legacyWorkList = object([
        .required("modified", .string),
        .required("entries", .array(object([
            .required("id", .uuid), .required("searchText", .string), .optional("resolvedFilename", .string),
            .required("source", .string), .required("added", .string), .optional("yialeMRN", .string),
        ]))),
    ])
}

/// A companion file read the way the app reads it.
public enum CompanionContent {
    /// The file's JSON, or why it is not JSON at all.
    public static func json(at url: URL) -> Result<JSONValue, CompanionDecodeFailure> {
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            return .failure(CompanionDecodeFailure(key: "", reason: "cannot be read (\(error.localizedDescription))"))
        }
        return json(data)
    }

    /// `data` as JSON, or why it is not.
    public static func json(_ data: Data) -> Result<JSONValue, CompanionDecodeFailure> {
        do { return .success(try JSONValue.decode(data)) } catch {
            let reason = data.isEmpty ? "empty" : "not JSON (\(data.count) bytes)"
            return .failure(CompanionDecodeFailure(key: "", reason: reason))
        }
    }

    /// The `document_id` an address file holds, if it reads.
    public static func documentID(at url: URL) -> String? {
        guard case .success(.object(let object)) = json(at: url), case .string(let id)? = object["document_id"] else { return nil }
        return id
    }
}

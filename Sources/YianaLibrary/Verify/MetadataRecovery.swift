import Foundation
import YianaFolder
import YianaHistory
import YianaArchive

/// Rebuilds usable metadata from a damaged `metadata.json`: every key that reads is kept;
/// a required key that is missing or wrong takes its value from `fallback`; an optional
/// key that is wrong is dropped. The original bytes are kept by the caller (the version
/// store), so what is dropped here is not lost.
enum MetadataRecovery {
    /// - Returns: the metadata and a note per key replaced or dropped; nil when the bytes
    ///   are not a JSON object (nothing to keep from them).
    static func recover(_ data: Data, fallback: DocumentMetadata, file: String) -> (DocumentMetadata, [String])? {
        guard case .object(var object)? = try? JSONValue.decode(data),
              let fallbackData = try? fallback.jsonData(),
              case .object(let defaults)? = try? JSONValue.decode(fallbackData) else {
            return nil
        }
        var notes: [String] = []
        // Each round fixes the one key the decoder names; there are only so many keys.
        for _ in 0...(object.count + defaults.count) {
            let encoded: Data
            do {
                encoded = try JSONEncoder().encode(JSONValue.object(object))
            } catch {
                return nil
            }
            do {
                return (try DocumentMetadata(jsonData: encoded, file: file), notes)
            } catch {
                guard let key = error.key else { return nil }
                // A nested key (`pageProcessingStates[2].pageNumber`): its top-level key.
                let top = String(key.prefix { $0 != "[" && $0 != "." })
                if let value = defaults[top], top != "pageProcessingStates" {
                    notes.append("\"\(top)\" was \(object[top] == nil ? "missing" : "unreadable"); set to \(describe(value))")
                    object[top] = value
                } else if object.removeValue(forKey: top) != nil {
                    notes.append("\"\(top)\" was unreadable; dropped")
                } else {
                    return nil
                }
            }
        }
        return nil
    }

    private static func describe(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): "\"\(text)\""
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .bool(let flag): "\(flag)"
        case .array(let items): items.isEmpty ? "[]" : "\(items.count) values"
        case .null: "null"
        case .object: "an object"
        }
    }
}

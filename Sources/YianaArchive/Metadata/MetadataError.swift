/// `metadata.json` could not be read as the app's metadata.
public struct MetadataError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong.
    public enum Problem: Sendable, Equatable {
        /// The bytes are not JSON at all.
        case notJSON(String)
        /// The JSON is not an object.
        case notAnObject
        /// A required key is absent.
        case missingKey(String)
        /// A key holds the wrong JSON type.
        case wrongType(key: String, expected: String, found: String)
        /// A key holds a value of the right type that makes no sense.
        case invalidValue(key: String, reason: String)
    }

    /// The document (or metadata file) the metadata came from.
    public let file: String
    public let problem: Problem

    public init(file: String, problem: Problem) {
        self.file = file
        self.problem = problem
    }

    /// The key concerned, when there is one (`pageProcessingStates[2].pageNumber`).
    public var key: String? {
        switch problem {
        case .notJSON, .notAnObject: nil
        case .missingKey(let key), .wrongType(let key, _, _), .invalidValue(let key, _): key
        }
    }

    public var description: String {
        let what: String
        switch problem {
        case .notJSON(let detail):
            what = "metadata.json is not valid JSON (\(detail))"
        case .notAnObject:
            what = "metadata.json is not a JSON object"
        case .missingKey(let key):
            what = "metadata.json has no \"\(key)\", which the app requires"
        case .wrongType(let key, let expected, let found):
            what = "metadata.json key \"\(key)\" should be \(expected) but is \(found)"
        case .invalidValue(let key, let reason):
            what = "metadata.json key \"\(key)\" \(reason)"
        }
        return "\(file): \(what). The file was not written by the Yiana app or has been damaged; keep a copy before changing it."
    }
}

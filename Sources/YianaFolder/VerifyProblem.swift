import YianaArchive
import Foundation

/// One thing wrong with one file.
public struct VerifyProblem: Codable, Sendable, Equatable {
    /// A stable code for scripts (`crc-mismatch`, `truncated`, `metadata-bad-key`, …).
    public let code: ProblemCode
    /// What is wrong, in a sentence a person understands.
    public let message: String
    /// True for what is not damage (an evicted placeholder): it does not fail `verify`.
    public var isNotice = false
    /// For a companion file: the key the app's decoder stops at (`overrides[2].page_number`),
    /// or the document an orphan names.
    public var key: String? = nil

    package init(code: ProblemCode, message: String, isNotice: Bool = false, key: String? = nil) {
        self.code = code
        self.message = message
        self.isNotice = isNotice
        self.key = key
    }
}

/// The verification of one file.
public struct VerifiedFile: Codable, Sendable {
    /// Relative to the library (or as given).
    public let path: String
    public var problems: [VerifyProblem]
    public var ok: Bool { problems.allSatisfy(\.isNotice) }

    package init(path: String, problems: [VerifyProblem]) {
        self.path = path
        self.problems = problems
    }
}

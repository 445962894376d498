import Foundation
import YianaFolder
import YianaHistory

/// What `import` did with each input.
public struct ImportReport: Codable, Sendable, Equatable {
    public struct Imported: Codable, Sendable, Equatable {
        /// The PDF as given (or as found inside a given folder).
        public let source: String
        /// The new document, relative to the library.
        public let document: String
        public let id: String
        public let title: String
        public let pageCount: Int
        public let pdfHash: String
        public let bytes: UInt64
    }

    public struct Skipped: Codable, Sendable, Equatable {
        public let source: String
        /// `duplicate`.
        public let code: String
        public let reason: String
        /// The document (or earlier input) that already holds the same PDF.
        public let existing: String?
    }

    public struct Failed: Codable, Sendable, Equatable {
        public let source: String
        /// A stable code: `not-found`, `not-a-pdf`, `encrypted-pdf`, `damaged-pdf`, …
        public let code: String
        public let reason: String
    }

    public var imported: [Imported] = []
    public var skipped: [Skipped] = []
    public var failed: [Failed] = []

    public init() {}

    /// True when any input could not be imported (the command exits non-zero).
    public var hasFailures: Bool { !failed.isEmpty }
}

/// Progress of a running import, reported after each PDF.
public struct ImportProgress: Sendable {
    public let completed: Int
    public let total: Int
    /// The PDF just finished.
    public let current: String
}

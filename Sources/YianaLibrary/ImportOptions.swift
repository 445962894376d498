import Foundation
import YianaFolder
import YianaHistory

/// How an import runs.
public struct ImportOptions: Sendable {
    /// A folder inside the library to import into (created if missing); nil is the root.
    public var into: String?
    /// Tags every new document gets.
    public var tags: [String]
    /// How many PDFs are processed at once.
    public var jobs: Int
    /// Import a PDF even if the library already has a document with the same bytes.
    public var allowDuplicates: Bool

    public init(into: String? = nil, tags: [String] = [], jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                allowDuplicates: Bool = false) {
        self.into = into
        self.tags = tags
        self.jobs = max(1, jobs)
        self.allowDuplicates = allowDuplicates
    }
}

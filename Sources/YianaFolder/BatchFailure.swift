/// One document of a batch command that failed, with why: the batch goes on, and the
/// command exits 1.
public struct BatchFailure: Encodable, Sendable, Equatable {
    /// The document as named (or found).
    public let document: String
    /// The error, in words that name the file and what to do.
    public let error: String

    public init(document: String, error: String) {
        self.document = document
        self.error = error
    }
}

/// Why a PDF could not be opened.
public struct PDFError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// The bytes do not start like a PDF at all.
        case notAPDF
        /// The PDF needs a password to open.
        case encrypted
        /// poppler could not make sense of it, or it has no pages.
        case damaged(String)
        /// The file could not be read.
        case unreadable(String)
    }

    public let kind: Kind
    /// The file (or a description of the bytes) concerned.
    public let source: String

    public init(_ kind: Kind, source: String) {
        self.kind = kind
        self.source = source
    }

    /// A stable short code for scripts.
    public var code: String {
        switch kind {
        case .notAPDF: "not-a-pdf"
        case .encrypted: "encrypted-pdf"
        case .damaged: "damaged-pdf"
        case .unreadable: "unreadable"
        }
    }

    public var description: String {
        switch kind {
        case .notAPDF:
            "\(source): not a PDF (it does not start with %PDF-)."
        case .encrypted:
            "\(source): the PDF is encrypted with a password; remove the password (e.g. `qpdf --decrypt`) and try again."
        case .damaged(let detail):
            "\(source): the PDF is damaged (\(detail)); try re-saving or re-exporting it from the program that made it."
        case .unreadable(let detail):
            "\(source): cannot be read (\(detail))."
        }
    }
}

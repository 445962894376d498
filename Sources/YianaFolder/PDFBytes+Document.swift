import Foundation
import YianaArchive
import YianaPDF

extension PDFBytes {
    /// The PDF opened with poppler: from its scratch file when it has one (poppler reads the
    /// file through its own small buffer), else from the mapped range of the archive.
    public func document(source: String) throws -> PDFDocument {
        if let fd = wholeFile { return try PDFDocument(fileDescriptor: fd, path: source) }
        return try PDFDocument(bytes: try mapped(), owner: self, source: source)
    }
}

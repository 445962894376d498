import Foundation

extension PDFDocument {
    /// Opens a one-page PDF once, on the calling thread, before PDFs are opened on several
    /// threads: poppler sets up process-wide state (global parameters, colour profiles) on
    /// first use without a lock. The document stays open for the life of the process,
    /// because poppler-glib tears that state down again when its last document closes.
    /// Cheap and idempotent; call it before starting workers.
    public static func prepareForConcurrentUse() {
        _ = warmUp
    }

    // A Swift static is initialised exactly once, under a lock.
    private static let warmUp: KeptOpen? = {
        guard let document = try? PDFDocument(data: minimalPDF, source: "built-in one-page PDF"),
              document.pageCount == 1 else { return nil }
        return KeptOpen(document)
    }()

    /// A valid one-page PDF with a correct cross-reference table (built, not typed, so the
    /// offsets are right and poppler has nothing to repair or complain about).
    static let minimalPDF: Data = {
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>",
        ]
        var pdf = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(pdf.utf8.count)
            pdf += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = pdf.utf8.count
        pdf += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets {
            let digits = String(offset)
            pdf += String(repeating: "0", count: 10 - digits.count) + digits + " 00000 n \n"
        }
        pdf += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        return Data(pdf.utf8)
    }()
}

/// Holds the warm-up document open for the life of the process.
private final class KeptOpen: @unchecked Sendable {
    // @unchecked: the document is never used after it is opened; it is only kept alive.
    private let document: PDFDocument

    init(_ document: PDFDocument) {
        self.document = document
    }
}

import Foundation

extension PDFDocument {
    /// Opens a one-page PDF and reads its page once, on the calling thread, before PDFs are
    /// opened on several threads: poppler sets up process-wide state (global parameters,
    /// colour profiles, text output tables) on first use without a lock. The document stays open for the life of the process,
    /// because poppler-glib tears that state down again when its last document closes.
    /// Cheap and idempotent; call it before starting workers.
    public static func prepareForConcurrentUse() {
        _ = warmUp
    }

    // A Swift static is initialised exactly once, under a lock.
    private static let warmUp: KeptOpen? = {
        guard let document = try? PDFDocument(data: minimalPDF, source: "built-in one-page PDF"),
              document.pageCount == 1 else { return nil }
        guard document.text(ofPage: 0).contains("warm") else { return nil }
        return KeptOpen(document)
    }()

    /// The warm-up PDF: its page sets a fill colour and shows a word, so reading it runs
    /// poppler's colour and text machinery once.
    static let minimalPDF = onePagePDF(lines: ["warm"], fill: 0.5)

    /// A valid one-page A4 PDF showing `lines` in Helvetica (WinAnsi text), with a correct
    /// cross-reference table: for the warm-up, and (package-visible, not public API) for the
    /// tests and the harness, which need PDFs with known text.
    package static func onePagePDF(lines: [String], fill gray: Double = 0) -> Data {
        pdf(pages: [lines], fill: gray)
    }

    /// A valid A4 PDF of one page per element of `pages`, each showing its lines, as
    /// ``onePagePDF(lines:fill:)``.
    package static func pdf(pages: [[String]], fill gray: Double = 0) -> Data {
        // Objects: 1 catalog, 2 page tree, 3 font, then a page and its content per page.
        let kids = pages.indices.map { "\(4 + 2 * $0) 0 R" }.joined(separator: " ")
        var objects = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [\(kids)] /Count \(pages.count) >>",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
        ]
        for (index, lines) in pages.enumerated() {
            var content = "\(gray) g BT /F1 12 Tf 50 750 Td 14 TL"
            for line in lines {
                content += " (\(escapedForPDF(line))) Tj T*"
            }
            content += " ET"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents \(5 + 2 * index) 0 R /Resources << /Font << /F1 3 0 R >> >> >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
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
    }
}

/// `line` as a PDF string literal's contents: `\\`, `(` and `)` escaped. One pass over the
/// bytes, the line itself when it holds none (the harness builds pages of 36,000 lines).
private func escapedForPDF(_ line: String) -> String {
    let special: (UInt8) -> Bool = { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "(") || $0 == UInt8(ascii: ")") }
    guard line.utf8.contains(where: special) else { return line }
    var bytes: [UInt8] = []
    bytes.reserveCapacity(line.utf8.count + 8)
    for byte in line.utf8 {
        if special(byte) { bytes.append(UInt8(ascii: "\\")) }
        bytes.append(byte)
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Holds the warm-up document open for the life of the process.
private final class KeptOpen: @unchecked Sendable {
    // @unchecked: the document is never used after it is opened; it is only kept alive.
    private let document: PDFDocument

    init(_ document: PDFDocument) {
        self.document = document
    }
}

import Foundation
import YianaPDF

/// Adds recognised text to a PDF as an invisible layer (``PDFPages/overlay(_:layers:to:)``).
///
/// Each page's layer is tesseract's text-only one-page PDF; qpdf overlays it on the page as
/// a form XObject drawn after the page's own content, scaled to the page. The page's own
/// content streams, images and fonts are kept as they are, so only the new objects and the
/// page dictionaries' `/Contents` and `/Resources` differ. The file's /ID comes from its
/// content, so that two devices recognising the same scan while apart write the same PDF,
/// byte for byte (their conflict is then one of metadata only, which merges).
public enum TextLayer {
    /// Writes `pdf` with `layers` (1-based page number → one-page text PDF) overlaid to
    /// `output`.
    /// - Throws: ``OCRError`` `.textLayer`, with qpdf's reason.
    public static func overlay(_ pdf: URL, layers: [Int: URL], to output: URL) throws {
        do {
            try PDFPages.overlay(pdf, layers: layers, to: output)
        } catch {
            throw OCRError(.textLayer, error.description)
        }
    }
}

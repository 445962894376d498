internal import CQPDF
import Foundation

/// Writes new PDFs from the pages of others with qpdf (its job interface: the operations of
/// the `qpdf` command, run inside the process). libqpdf loads on first use.
///
/// `--stream-data=preserve` copies every stream's bytes as they are (no decoding, no
/// recompression): the pages' content streams, images and fonts stay byte for byte.
public enum PDFPages {
    /// Why qpdf could not write the PDF.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Writes `pdf` with `layers` (1-based page number → a one-page PDF) drawn over its
    /// pages, each scaled to its page (a form XObject after the page's own content), to
    /// `output`. `--deterministic-id`: the same inputs always give the same bytes.
    /// - Throws: ``Failure`` with qpdf's reason.
    public static func overlay(_ pdf: URL, layers: [Int: URL], to output: URL) throws(Failure) {
        let sorted = layers.sorted { $0.key < $1.key }
        guard !sorted.isEmpty else { return }
        try loadQPDF()
        // qpdf before 11.4 takes one overlay file: the pages' layers are joined into one first,
        // its page k overlaid on the k-th page named in --to.
        let joined = URL(fileURLWithPath: output.path + "-layers.pdf")
        defer { try? FileManager.default.removeItem(at: joined) }
        try run(["qpdf", "--empty", "--no-warn", "--warning-exit-0", "--pages"] + sorted.map(\.value.path) + ["--", joined.path],
                "could not join the text layers for \(pdf.lastPathComponent)")
        try run(["qpdf", "--stream-data=preserve", "--deterministic-id", "--no-warn", "--warning-exit-0", pdf.path,
                 "--overlay", joined.path, "--to=" + sorted.map { String($0.key) }.joined(separator: ","), "--from=1-\(sorted.count)", "--",
                 output.path], "could not add the text layer to \(pdf.lastPathComponent)")
    }

    /// Writes `pdf` with every page of each of `sources` after its own, in order, to
    /// `output`. `pdf` stays the document (its catalog, outline, metadata, /ID); its pages
    /// keep their objects' content; the sources' pages come with what qpdf carries of a page
    /// (its resources, annotations and links; form fields and their widgets; not the
    /// sources' outlines or document-level metadata).
    /// - Throws: ``Failure`` with qpdf's reason.
    public static func append(_ sources: [URL], to pdf: URL, output: URL) throws(Failure) {
        try append(sources.map { ($0, "1-z") }, to: pdf, output: output)
    }

    /// As ``append(_:to:output:)``, with the pages of each source named in qpdf's page-range
    /// syntax (`5-6`, `3,7-9`, `1-z`).
    public static func append(_ sources: [(pdf: URL, pages: String)], to pdf: URL, output: URL) throws(Failure) {
        try loadQPDF()
        try run(["qpdf", "--stream-data=preserve", "--deterministic-id", "--no-warn", "--warning-exit-0", pdf.path, "--pages", ".", "1-z"]
                + sources.flatMap { [$0.pdf.path, $0.pages] } + ["--", output.path],
                "could not append \(sources.map(\.pdf.lastPathComponent).joined(separator: ", ")) to \(pdf.lastPathComponent)")
    }

    private static func loadQPDF() throws(Failure) {
        if let why = yiana_qpdf_load() {
            throw Failure(description: "qpdf cannot be loaded (\(String(cString: why))); install it: apt-get install libqpdf29")
        }
    }

    private static func run(_ arguments: [String], _ what: String) throws(Failure) {
        let status = withCStrings(arguments) { yiana_qpdfjob_run_from_argv($0) }
        guard status == 0 else { throw Failure(description: "qpdf \(what) (exit \(status))") }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

internal import CQPDF
import Foundation

/// Adds recognised text to a PDF as an invisible layer, with qpdf (its job interface, the
/// operations of the `qpdf` command run inside the process).
///
/// Each page's layer is tesseract's text-only one-page PDF; qpdf overlays it on the page as
/// a form XObject drawn after the page's own content, scaled to the page. The page's own
/// content streams, images and fonts are kept as they are: `--stream-data=preserve` copies
/// every stream's bytes without decoding or recompressing them, so only the new objects and
/// the page dictionaries' `/Contents` and `/Resources` differ.
public enum TextLayer {
    /// Writes `pdf` with `layers` (1-based page number → one-page text PDF) overlaid to
    /// `output`.
    /// - Throws: ``OCRError`` `.textLayer`, with qpdf's reason.
    public static func overlay(_ pdf: URL, layers: [Int: URL], to output: URL) throws {
        if let why = yiana_qpdf_load() {
            throw OCRError(.textLayer, "qpdf cannot be loaded (\(String(cString: why))); install it: apt-get install libqpdf29")
        }
        let sorted = layers.sorted { $0.key < $1.key }
        guard !sorted.isEmpty else { return }
        // qpdf before 11.4 takes one overlay file: the pages' layers are joined into one first,
        // its page k overlaid on the k-th page named in --to.
        let joined = URL(fileURLWithPath: output.path + "-layers.pdf")
        defer { try? FileManager.default.removeItem(at: joined) }
        try run(["qpdf", "--empty", "--no-warn", "--warning-exit-0", "--pages"] + sorted.map(\.value.path) + ["--", joined.path], for: pdf)
        // --deterministic-id: the file's /ID from its content, not at random, so that two
        // devices recognising the same scan while apart write the same PDF, byte for byte
        // (their conflict is then one of metadata only, which merges).
        try run(["qpdf", "--stream-data=preserve", "--deterministic-id", "--no-warn", "--warning-exit-0", pdf.path,
                 "--overlay", joined.path, "--to=" + sorted.map { String($0.key) }.joined(separator: ","), "--from=1-\(sorted.count)", "--",
                 output.path], for: pdf)
    }

    private static func run(_ arguments: [String], for pdf: URL) throws {
        let status = withCStrings(arguments) { yiana_qpdfjob_run_from_argv($0) }
        guard status == 0 else {
            throw OCRError(.textLayer, "qpdf could not add the text layer to \(pdf.lastPathComponent) (exit \(status))")
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

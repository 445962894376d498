import Foundation
import Synchronization
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// Threads that help extract the pages of a long document beside the worker that opened it,
/// so that one long PDF does not hold one core while the others idle. The document's pages
/// are cut into chunks, which the worker and its helpers take in turn, each through a
/// poppler handle of its own on the same mapped bytes.
///
/// There are at most `jobs - 1` helpers in the whole run: the workers and helpers together
/// stay near the number of jobs asked for (with `--jobs 1`, none).
final class PageHelpers: Sendable {
    /// Pages per chunk: enough to make opening another handle on the PDF cheap beside the
    /// text extraction (a few ms against tens), few enough to share out a long document.
    static let pagesPerChunk = 16

    private let free: Mutex<Int>

    init(count: Int) {
        free = Mutex(max(0, count))
    }

    /// The text of every page of `pdf`, in page order, normalised; the PDF's `bytes` open
    /// further handles for the helpers (a PDF in a scratch file is read by its worker alone,
    /// since handles on one descriptor would share its file offset).
    func pageTexts(_ pdf: PDFDocument, bytes: PDFBytes, source: String) -> [String] {
        let count = pdf.pageCount
        let chunks = (count + Self.pagesPerChunk - 1) / Self.pagesPerChunk
        let helpers = chunks > 1 && bytes.wholeFile == nil ? take(upTo: chunks - 1) : 0
        guard helpers > 0 else { return Self.texts(pdf, 0..<count) }
        defer { give(helpers) }

        let next = Mutex(0)
        let done = Mutex([Int: [String]]())
        @Sendable func work(_ document: PDFDocument) {
            while true {
                let chunk = next.withLock { value in
                    defer { value += 1 }
                    return value
                }
                guard chunk < chunks else { return }
                let start = chunk * Self.pagesPerChunk
                let texts = Self.texts(document, start..<min(count, start + Self.pagesPerChunk))
                done.withLock { $0[chunk] = texts }
            }
        }
        let threads = (0..<helpers).map { _ in
            BackgroundWork<Void> {
                // A handle that cannot be opened takes no chunk; the others do its share.
                guard let own = try? bytes.document(source: source) else { return }
                work(own)
            }
        }
        work(pdf)
        for thread in threads { try? thread.wait() }
        return done.withLock { finished in (0..<chunks).flatMap { finished[$0] ?? [] } }
    }

    private static func texts(_ pdf: PDFDocument, _ pages: Range<Int>) -> [String] {
        pages.map { TextNormalizer.normalize(pdf.text(ofPage: $0)) }
    }

    private func take(upTo wanted: Int) -> Int {
        free.withLock { free in
            let granted = min(free, wanted)
            free -= granted
            return granted
        }
    }

    private func give(_ count: Int) {
        free.withLock { $0 += count }
    }
}

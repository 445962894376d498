import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// A merge of two versions that both changed the PDF since their common ancestor, where one
/// side's only changes to it were appends the toolkit recorded: the same letter injected on
/// two devices while apart, one of which also recognised a scan or appended another letter.
/// The other side's PDF is kept as it is, and what the appending side added that it lacks goes
/// after its pages: a PDF both sides appended is in the result once, and every other change of
/// either side is kept.
///
/// Appends are matched by the SHA-256 of the PDF added (or the letter's id), counted: a PDF
/// one side appended twice (`--allow-duplicates`) and the other once is added once more.
struct AppendMerge {
    struct Side {
        let key: String
        let url: URL
        let metadata: DocumentMetadata
    }

    /// The side whose PDF is kept whole, with its OCR fields (they describe its pages).
    let base: Side
    /// The side that only appended: of its appends, those the base lacks, in its page order.
    let other: Side
    let missing: [HistoryEntry]

    /// The merge of `a` and `b` (both descending from `ancestor`), if one of them only
    /// appended since; when both did, the one that leaves fewer pages to add is the base (`a`
    /// on a tie). Nil when neither did, or the history does not say which pages.
    static func plan(_ a: Side, _ b: Side, ancestor: String, history: DocumentHistory, documentID: String) -> AppendMerge? {
        let changesA = history.changes(since: ancestor, to: a.key, documentID: documentID)
        let changesB = history.changes(since: ancestor, to: b.key, documentID: documentID)
        var candidates: [AppendMerge] = []
        if changesB.appendsOnly, !changesB.appends.isEmpty {
            candidates.append(AppendMerge(base: a, other: b, missing: lacking(changesB.appends, in: changesA.appends)))
        }
        if changesA.appendsOnly, !changesA.appends.isEmpty {
            candidates.append(AppendMerge(base: b, other: a, missing: lacking(changesA.appends, in: changesB.appends)))
        }
        let usable = candidates.filter { $0.missing.allSatisfy { $0.source != nil && pageCount($0.pages) != nil } }
        return usable.min { $0.addedPages < $1.addedPages }
    }

    /// The appends of `appends` that `others` does not have.
    private static func lacking(_ appends: [HistoryEntry], in others: [HistoryEntry]) -> [HistoryEntry] {
        var others = others
        var missing: [HistoryEntry] = []
        for append in appends {
            let same = others.firstIndex {
                ($0.source != nil && $0.source == append.source) || ($0.letter != nil && $0.letter?.lowercased() == append.letter?.lowercased())
            }
            if let same { others.remove(at: same) } else { missing.append(append) }
        }
        return missing
    }

    /// How many pages a range of the history (`4-6`, `4`) names.
    private static func pageCount(_ range: String?) -> Int? {
        let bounds = (range ?? "").split(separator: "-").compactMap { Int($0) }
        switch bounds.count {
        case 1 where bounds[0] > 0: return 1
        case 2 where bounds[0] > 0 && bounds[1] >= bounds[0]: return bounds[1] - bounds[0] + 1
        default: return nil
        }
    }

    var addedPages: Int { missing.reduce(0) { $0 + (Self.pageCount($1.pages) ?? 0) } }

    var detail: String {
        let kept = "both appended since they parted; \(base.url.lastPathComponent)'s PDF is kept"
        guard !missing.isEmpty else { return "\(kept): it holds every page \(other.url.lastPathComponent) appended" }
        return "\(kept) with the \(addedPages) page\(addedPages == 1 ? "" : "s") \(other.url.lastPathComponent) appended that it lacks"
    }

    /// `merged` (the three-way merge of the metadata) with the base's OCR fields and page
    /// states; the added pages' states and the record of their appends come with the PDF.
    func metadata(_ merged: DocumentMetadata) -> DocumentMetadata {
        var result = merged
        let own = base.metadata
        MetadataMerge.takeOCR(from: own, into: &result)
        result.unknownFields[Appender.appendsKey] = own.unknownFields[Appender.appendsKey]
        result.pageCount = own.pageCount
        result.pdfHash = own.pdfHash
        return result
    }

    /// Writes the merged PDF into `output` (the base's PDF, then the pages it lacks from the
    /// other side's; `missing` is not empty) and returns `metadata` for it: a state for each page added (those
    /// without text need OCR) and the record of each append at the pages it became.
    func writePDF(to output: URL, metadata: DocumentMetadata, scratch: URL, now: Date) throws -> DocumentMetadata {
        let basePDF = scratch.appendingPathComponent("merge-base-\(UUID().uuidString).pdf")
        let otherPDF = scratch.appendingPathComponent("merge-other-\(UUID().uuidString).pdf")
        defer { [basePDF, otherPDF].forEach { Sys.removeIfPresent($0.path) } }
        try CoordinatedDocument.exportPDF(of: base.url.path, to: basePDF.path, overwrite: false, scratch: true)
        try CoordinatedDocument.exportPDF(of: other.url.path, to: otherPDF.path, overwrite: false, scratch: true)
        let before = try PDFDocument(path: basePDF.path).pageCount
        do {
            try PDFPages.append([(otherPDF, missing.compactMap(\.pages).joined(separator: ","))], to: basePDF, output: output)
        } catch {
            throw AppendError(description: "\(base.url.lastPathComponent): \(error.description); nothing was written.")
        }
        let joined = try PDFDocument(path: output.path)
        guard joined.pageCount == before + addedPages else {
            throw AppendError(description: "\(base.url.lastPathComponent): the merged PDF has \(joined.pageCount) pages, not \(before + addedPages); nothing was written.")
        }
        var result = Appender.withPagesAdded(metadata, before: before, pageCount: joined.pageCount,
                                             needOCR: Set(Appender.pagesWithoutText(joined, (before + 1)...joined.pageCount)), now: now)
        result.modified = metadata.modified
        var next = before
        Appender.record(missing.map { append in
            let first = next + 1
            next += Self.pageCount(append.pages) ?? 0
            return Appender.RecordedAppend(sha256: append.source ?? "", pages: first == next ? "\(first)" : "\(first)-\(next)", letter: append.letter)
        }, in: &result)
        return result
    }
}

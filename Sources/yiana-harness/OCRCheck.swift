import Foundation
import YianaArchive
import YianaLibrary

/// What `yiana ocr` must have left once a rerun has finished the job.
enum OCRCheck {
    /// The `ocr` scenario's starting library: the SampleDocs scans (one page each, no text)
    /// beside two documents with their own text.
    static func build(_ context: Context) throws -> [String] {
        try context.importPDFs(["text1", "text2"], into: "lib")
        let scans = context.samples.appendingPathComponent("scans")
        let pdfs = try FileManager.default.contentsOfDirectory(atPath: scans.path).filter { $0.hasSuffix(".pdf") }.sorted()
        guard pdfs.count >= 3 else { throw HarnessError("\(scans.path) has \(pdfs.count) scans, not 3: run Scripts/make-scans.py") }
        try context.runner.must(["import", "--library", context.path("lib")] + pdfs.map { scans.appendingPathComponent($0).path })
        // --retry: a document that failed under a fault is tried again by the rerun at once.
        return ["ocr", "--all", "--now", "--retry", "--jobs", "2", "--library", context.path("lib")]
    }

    /// Every document is done, with the keys the app's service sets, and its three results
    /// files are those of the recognition that landed (same document id and time); nothing
    /// else is in `.ocr_results` (no leftover temporary file).
    static func finished(_ library: URL) -> String? {
        var problems: [String] = []
        var expected = Set<String>()
        let items = (try? LibraryScanner.scan(library)) ?? []
        for item in items {
            let name = item.url.deletingPathExtension().lastPathComponent
            guard let reader = try? DocumentReader(path: item.url.path), let metadata = try? reader.metadata() else {
                problems.append("\(name): cannot be read")
                continue
            }
            guard metadata.ocrCompleted, let processed = metadata.ocrProcessedAt, let text = metadata.fullText, !text.isEmpty,
                  ["service", "embedded"].contains(metadata.ocrSource ?? ""),
                  metadata.pageProcessingStates.count == metadata.pageCount,
                  metadata.pageProcessingStates.allSatisfy({ !$0.needsOCR })
            else {
                problems.append("\(name): not done (ocrCompleted \(metadata.ocrCompleted), source \(metadata.ocrSource ?? "none"))")
                continue
            }
            for suffix in ["json", "xml", "hocr"] { expected.insert("\(name).\(suffix)") }
            let json = library.appendingPathComponent(".ocr_results/\(name).json")
            guard let data = FileManager.default.contents(atPath: json.path),
                  let result = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                problems.append("\(name): its results JSON is missing or unreadable")
                continue
            }
            let pages = (result["pages"] as? [Any])?.count ?? -1
            let resultTime = (result["processedAt"] as? String).flatMap { ISO8601DateFormatter().date(from: $0) }
            if result["documentId"] as? String != metadata.id.uuidString || pages != metadata.pageCount
                || resultTime.map({ abs($0.timeIntervalSince(processed)) >= 1 }) ?? true {
                problems.append("\(name): its results (\(pages) pages, \(result["processedAt"] ?? "no time")) are not those of the document (\(metadata.pageCount) pages, OCR at \(processed))")
            }
        }
        let present = Set(Checks.files(under: library.appendingPathComponent(".ocr_results"), skippingState: false).map(\.lastPathComponent))
        let stray = present.subtracting(expected)
        if !stray.isEmpty { problems.append(".ocr_results holds \(stray.sorted())") }
        let missing = expected.subtracting(present)
        if !missing.isEmpty { problems.append(".ocr_results lacks \(missing.sorted())") }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}

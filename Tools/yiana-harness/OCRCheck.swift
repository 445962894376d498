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
        guard pdfs.count >= 3 else { throw HarnessError("\(scans.path) has \(pdfs.count) scans, not 3: run Scripts/generate/scans.py") }
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

/// What `yiana watch --once --ocr --resolve identical` must have left once a rerun finished.
enum WatchCheck {
    static let identical = "text1 (Bob's conflicted copy 2026-11-23).yianazip"
    static let diverged = "text1.sync-conflict-20261123-101500-ABCDEF7.yianazip"

    /// Two scans and two documents with text, an identical copy and a diverged one of the first.
    static func build(_ context: Context) throws -> [String] {
        try context.importPDFs(["text1", "text2"], into: "lib")
        let scans = context.samples.appendingPathComponent("scans")
        try context.runner.must(["import", "--library", context.path("lib"), scans.appendingPathComponent("Clinic letter (scan).pdf").path,
                                 scans.appendingPathComponent("Hardware receipt (scan).pdf").path])
        try FileManager.default.copyItem(at: context.url("lib/text1.yianazip"), to: context.url("lib/\(identical)"))
        try FileManager.default.copyItem(at: context.url("lib/text1.yianazip"), to: context.url("lib/\(diverged)"))
        try context.edit("lib/\(diverged)") { $0.tags = ["other device"] }
        try context.folder("index")
        return ["watch", "--once", "--ocr", "--resolve", "identical", "--jobs", "2", "--library", context.path("lib"),
                "--index", context.path("index/index.sqlite")]
    }

    /// The identical copy collapsed, the diverged one left as it was, every other document
    /// recognised, or its failure (an injected fault) recorded for the watcher's next try
    /// after the back-off (the service's: it is not tried again at once).
    static func finished(_ library: URL) -> String? {
        var problems: [String] = []
        let failuresFile = (try? Library(root: library)).map { LocalState(library: $0).folder.appendingPathComponent("ocr-failures.json") }
        let failures = failuresFile.flatMap { FileManager.default.contents(atPath: $0.path) }
            .flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
        if FileManager.default.fileExists(atPath: library.appendingPathComponent(identical).path) { problems.append("the identical copy is still there") }
        let copy = library.appendingPathComponent(diverged)
        if (try? DocumentReader(path: copy.path).metadata())?.tags != ["other device"] { problems.append("the diverged copy was changed or removed") }
        for item in (try? LibraryScanner.scan(library)) ?? [] where item.url != copy {
            if (try? DocumentReader(path: item.url.path).metadata())?.ocrCompleted != true, failures[item.url.lastPathComponent] == nil {
                problems.append("\(item.url.lastPathComponent) neither recognised nor recorded as failed")
            }
        }
        return problems.isEmpty ? nil : problems.joined(separator: "; ")
    }
}

import Foundation
import YianaLibrary
import YianaOCR

/// The documents `yiana ocr` failed on and is backing off, for `status` and `index --problems`.
enum OCRProblems {
    static func print(for library: Library) {
        let failures = OCRFailures(library: library).all().sorted { $0.key < $1.key }
        guard !failures.isEmpty else { return }
        let dates = ISO8601DateFormatter()
        for (path, failure) in failures {
            let when = failure.retryAfter > Date() ? "next try after \(dates.string(from: failure.retryAfter))" : "will be tried on the next run"
            Swift.print("ocr-failed: \(path) — \(failure.reason) (\(Output.count(failure.count, "failure")), \(when))")
        }
    }
}

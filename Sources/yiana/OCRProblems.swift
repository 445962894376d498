import Foundation
import YianaSystem
import YianaLibrary
import YianaOCR

/// The documents `yiana ocr` failed on and is backing off, for `status` and `index --problems`.
enum OCRProblems {
    struct Entry: Encodable {
        let path: String
        let failures: Int
        let code: String
        let reason: String
        let lastAttempt: Date
        let retryAfter: Date
    }

    static func entries(for library: Library) -> [Entry] {
        OCRFailures(library: library).all().sorted { $0.key < $1.key }.map { path, failure in
            Entry(path: path, failures: failure.count, code: failure.code, reason: failure.reason,
                  lastAttempt: failure.lastAttempt, retryAfter: failure.retryAfter)
        }
    }

    static func print(for library: Library) {
        print(entries(for: library))
    }

    static func print(_ entries: [Entry]) {
        for entry in entries {
            let when = entry.retryAfter > Date() ? "next try after \(InternetTime.string(entry.retryAfter))" : "will be tried on the next run"
            Swift.print("ocr-failed: \(entry.path) — \(entry.reason) (\(Output.count(entry.failures, "failure")), \(when))")
        }
    }
}

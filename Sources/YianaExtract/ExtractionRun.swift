import Foundation
import Synchronization
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// What `yiana extract` did with one document.
public struct ExtractionResult: Codable, Sendable, Equatable {
    public enum Status: String, Codable, Sendable {
        /// Its address file was written (made, or its pages changed).
        case extracted
        /// Extracted again: the address file already held the same pages and was left alone.
        case unchanged
        /// Neither its text nor its address file changed since it was last extracted here.
        case upToDate = "up-to-date"
        /// `--dry-run`: its address file would be written.
        case wouldExtract = "would-extract"
        /// No page has text yet (`yiana ocr` recognises it).
        case noText = "no-text"
        case notDownloaded = "not-downloaded"
        case arriving
        case conflictCopy = "conflict-copy"
        case failed
    }

    public let path: String
    public var status: Status
    /// The address file, relative to the library.
    public var addressFile: String?
    /// Pages read, and the people found on them (page, name).
    public var pagesRead = 0
    public var people: [Person] = []
    public var error: String?

    public struct Person: Codable, Sendable, Equatable {
        public let page: Int
        public let name: String?
        public let postcode: String?
        public let method: String?
        /// The app's `address_type`: `patient`, or another recipient of a letter (`optician`, `specialist`).
        public let role: String?
    }

    public init(path: String, status: Status, error: String? = nil) {
        self.path = path
        self.status = status
        self.error = error
    }
}

/// Finds the people in documents and writes them where the app reads them
/// (`.addresses/<title>.json`), as the app's Mac extraction service does: from each
/// document's OCR results (`.ocr_results/`, the app's service's or `yiana ocr`'s), else its
/// PDF's text layer, page by page.
public struct ExtractionRun: Sendable {
    public let library: Library
    public let cascade: AddressCascade
    public var dryRun = false
    /// Documents read and written at once.
    public var jobs = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)

    /// Bumped when the rules change, so every document is extracted again by the new ones.
    public static let rulesVersion = 3

    public init(library: Library, cascade: AddressCascade = AddressCascade()) {
        self.library = library
        self.cascade = cascade
    }

    var stateFile: StateFile<[String: ExtractedState]> { LocalState(library: library).stateFile("extracted.json") }

    /// What was read and written for a document last time, to leave it alone while
    /// neither its text nor its address file changes.
    struct ExtractedState: Codable, Sendable, Equatable {
        var source: String
        /// The address file's name (empty when there was no text to extract).
        var key: String
        var addressFile: String
    }

    /// Extracts `items` on ``jobs`` threads (the text is read and the pages searched in
    /// parallel; each file's write waits on its disk, so more threads than cores help);
    /// `arriving` says why a document is still being written by a sync program.
    public func run(_ items: [LibraryItem], arriving: (URL) -> String? = { _ in nil },
                    progress: @Sendable (Int, Int) -> Void = { _, _ in }) -> [ExtractionResult] {
        let known = stateFile.load() ?? [:]
        // What is decided without reading the document, in order, on this thread.
        var pending: [(index: Int, url: URL, path: String)] = []
        var results = items.enumerated().map { index, item -> ExtractionResult in
            let path = library.documentPath(of: item) ?? item.documentFilePath
            if item.kind == .placeholder {
                return ExtractionResult(path: path, status: .notDownloaded,
                                        error: "not downloaded (an evicted placeholder): download it first (`yiana download \"\(path)\"`)")
            } else if ConflictName(fileName: item.documentURL.lastPathComponent).isSyncConflict {
                return ExtractionResult(path: path, status: .conflictCopy,
                                        error: "a sync program's conflict copy: left until the conflict is resolved (`yiana conflicts resolve`)")
            } else if let why = arriving(item.documentURL) {
                return ExtractionResult(path: path, status: .arriving, error: "still arriving (\(why)); run again later, or with --now")
            }
            pending.append((index, item.documentURL, path))
            return ExtractionResult(path: path, status: .failed)
        }
        let work = pending
        let done = Mutex((next: 0, finished: items.count - work.count, results: [(Int, ExtractionResult, ExtractedState?)]()))
        progress(items.count - work.count, items.count)
        if !work.isEmpty { PDFDocument.prepareForConcurrentUse() }
        DispatchQueue.concurrentPerform(iterations: max(1, min(jobs, work.count))) { _ in
            while true {
                guard let item = done.withLock({ state -> (index: Int, url: URL, path: String)? in
                    guard state.next < work.count else { return nil }
                    state.next += 1
                    return work[state.next - 1]
                }) else { return }
                let (result, state) = extract(item.url, path: item.path, known: known[item.path])
                let finished = done.withLock { shared -> Int in
                    shared.results.append((item.index, result, state))
                    shared.finished += 1
                    return shared.finished
                }
                progress(finished, items.count)
            }
        }
        var changes: [String: ExtractedState] = [:]
        for (index, result, state) in done.withLock({ $0.results }) {
            results[index] = result
            if let state, !dryRun { changes[result.path] = state }
        }
        if !changes.isEmpty {
            _ = try? stateFile.update(initial: [:]) { stored in stored.merge(changes) { $1 } }
        }
        return results
    }
}

import Foundation
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

    /// Bumped when the rules change, so every document is extracted again by the new ones.
    public static let rulesVersion = 1

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

    /// Extracts `items`; `arriving` says why a document is still being written by a sync program.
    public func run(_ items: [LibraryItem], arriving: (URL) -> String? = { _ in nil },
                    progress: (Int, Int) -> Void = { _, _ in }) -> [ExtractionResult] {
        var known = stateFile.load() ?? [:]
        var changes: [String: ExtractedState] = [:]
        var results: [ExtractionResult] = []
        for (index, item) in items.enumerated() {
            let path = item.documentPath ?? library.relativePath(of: item.documentURL) ?? item.documentURL.path
            progress(index, items.count)
            var result: ExtractionResult
            var state: ExtractedState?
            if item.kind == .placeholder {
                result = ExtractionResult(path: path, status: .notDownloaded,
                                          error: "not downloaded (an evicted placeholder): download it first (`yiana download \"\(path)\"`)")
            } else if ConflictName(fileName: item.documentURL.lastPathComponent).isSyncConflict {
                result = ExtractionResult(path: path, status: .conflictCopy,
                                          error: "a sync program's conflict copy: left until the conflict is resolved (`yiana conflicts resolve`)")
            } else if let why = arriving(item.documentURL) {
                result = ExtractionResult(path: path, status: .arriving, error: "still arriving (\(why)); run again later, or with --now")
            } else {
                (result, state) = extract(item.documentURL, path: path, known: known[path])
            }
            if let state, !dryRun { changes[path] = state }
            results.append(result)
        }
        progress(items.count, items.count)
        if !changes.isEmpty {
            _ = try? stateFile.update(initial: [:]) { stored in stored.merge(changes) { $1 } }
            known.merge(changes) { $1 }
        }
        return results
    }
}

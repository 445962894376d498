import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// How `yiana ocr` works.
public struct OCROptions: Sendable {
    /// tesseract's languages, `eng` or `eng+deu`.
    public var languages = "eng"
    /// Pages recognised at once (one tesseract engine each).
    public var jobs = ProcessInfo.processInfo.activeProcessorCount
    /// Recognise documents whose `ocrCompleted` is already true.
    public var force = false
    /// Say what would be done; change nothing.
    public var dryRun = false
    /// Resolution pages are drawn at for tesseract (see ``defaultDPI``).
    public var dpi = OCROptions.defaultDPI
    /// Add the invisible text layer to the PDF.
    public var textLayer = true
    /// Try documents that are backing off after failures too (documents named one by one always are).
    public var ignoreBackoff = false
    /// Called with the document just before it is rewritten (for the tests of another
    /// device's change arriving meanwhile).
    package var beforeWrite: (@Sendable (URL) -> Void)?

    /// 300 dpi, tesseract's own advice ("at least 300 dpi"): a 10-point letter's x-height is
    /// then about 20 pixels, and small print (8-point footnotes, receipts) stays legible to it.
    /// On ordinary 10–12-point print, Scripts/bench/ocr.sh measures the same recall at 150,
    /// 200 and 300 dpi; 300 is kept for the small print, and costs little (200 dpi saves
    /// about 7%: tesseract scales each line to a fixed height). (The app's service draws
    /// pages at 3× their size in points, 216 dpi.)
    public static let defaultDPI = 300

    public init() {}
}

/// What became of one document.
public struct OCRDocumentResult: Encodable, Sendable {
    public enum Status: String, Encodable, Sendable {
        /// Pages were recognised and the document rewritten.
        case recognized
        /// Every page had its own text; the document was marked done with it.
        case embedded
        /// `ocrCompleted` was already true (only missing results files were written).
        case alreadyDone = "already-done"
        /// With `--dry-run`: would be done.
        case wouldRecognize = "would-recognize"
        /// Not downloaded (an evicted placeholder): it is done once it is downloaded.
        case notDownloaded = "not-downloaded"
        /// A document without a PDF (metadata only): nothing to recognise.
        case noPDF = "no-pdf"
        /// A sync program is still writing it: left for a later run.
        case arriving
        /// Failed earlier and waiting before the next try.
        case backingOff = "backing-off"
        /// A sync program's conflict copy: left as it is until the conflict is resolved.
        case conflictCopy = "conflict-copy"
        case failed
    }

    public let path: String
    public let status: Status
    public var pagesRecognized = 0
    public var pagesWithText = 0
    public var confidence: Double?
    public var code: String?
    public var error: String?
    /// When a document backing off will be tried again.
    public var retryAfter: Date?
    /// Conflict copies of its results files a sync program made, removed once settled.
    public var resultCopiesRemoved = 0
    public var seconds: Double?
    /// Pages recognised on which tesseract found no word (a photo, a blank page, a pattern):
    /// nothing on them can be found by search.
    public var pagesWithoutWords: [Int] = []

    public init(path: String, status: Status, pagesRecognized: Int = 0, pagesWithText: Int = 0, confidence: Double? = nil,
                code: String? = nil, error: String? = nil, retryAfter: Date? = nil, resultCopiesRemoved: Int = 0) {
        self.path = path
        self.status = status
        self.pagesRecognized = pagesRecognized
        self.pagesWithText = pagesWithText
        self.confidence = confidence
        self.code = code
        self.error = error
        self.retryAfter = retryAfter
        self.resultCopiesRemoved = resultCopiesRemoved
    }
}

public struct OCRReport: Encodable, Sendable {
    public var documents: [OCRDocumentResult] = []
    public var failed: Bool { documents.contains { $0.status == .failed } }

    public func count(_ status: OCRDocumentResult.Status) -> Int { documents.filter { $0.status == status }.count }
}

/// `yiana ocr`: the app's OCR service's job (lh/Yiana, `YianaOCRService`), on tesseract.
///
/// For each document not yet done: pages with their own text keep it; the others are drawn
/// and recognised, on `jobs` workers across pages and documents. The document is rewritten
/// through the coordinated writer, replacing only the version that was read (a document
/// another device changed meanwhile is read and recognised again, never overwritten), after
/// that version is kept in the version store. The results files are written beside the
/// library as the service writes them (``ResultFiles``), just before the document.
public final class OCRRunner {
    public let library: Library
    public let options: OCROptions
    private let failures: OCRFailures
    /// Conflict copies of results files, per results folder, listed once per run.
    private var resultConflicts: [String: [String: [String]]] = [:]

    public init(library: Library, options: OCROptions) {
        self.library = library
        self.options = options
        self.failures = OCRFailures(library: library)
    }

    /// Runs on `documents` (documents and placeholders, as the scan found them); `named`:
    /// they were named one by one (back-off does not hold them back). `progress` is called
    /// after each document with the number done.
    /// `arriving` tells why a document is still being written by a sync program (it is then left alone).
    public func run(_ items: [LibraryItem], named: Bool, arriving: (URL) -> String? = { _ in nil },
                    progress: (Int, Int) -> Void = { _, _ in }) throws -> OCRReport {
        var report = OCRReport()
        if !options.dryRun {
            // Fail early, once, when the engine or a language is missing.
            _ = try TesseractEngine(languages: options.languages)
        }
        let workers = options.dryRun ? nil : PageWorkers(count: options.jobs, languages: options.languages)
        defer { workers?.close() }
        let scratch = try LocalState(library: library).scratch()
        var inFlight: [PreparedDocument] = []

        func finishOldest() {
            let prepared = inFlight.removeFirst()
            report.documents.append(complete(prepared, workers: workers!))
            progress(report.documents.count, items.count)
        }

        for item in items {
            let path = library.relativePath(of: item.documentURL) ?? item.documentURL.path
            let preparation: Preparation
            if item.kind == .document, let why = arriving(item.documentURL) {
                preparation = .done(OCRDocumentResult(path: path, status: .arriving, error: why))
            } else {
                preparation = prepare(item, path: path, named: named, scratch: scratch)
            }
            switch preparation {
            case .done(let result):
                if [.alreadyDone, .noPDF].contains(result.status) { failures.clear(path) }
                while !inFlight.isEmpty { finishOldest() }  // keep the report in the order given
                report.documents.append(result)
                progress(report.documents.count, items.count)
            case .prepared(let prepared):
                prepared.submit(to: workers!)
                inFlight.append(prepared)
                // Enough documents ahead to keep every worker busy, few enough to bound scratch space.
                while inFlight.count > options.jobs { finishOldest() }
            }
        }
        while !inFlight.isEmpty { finishOldest() }
        return report
    }

    private enum Preparation {
        case done(OCRDocumentResult)
        case prepared(PreparedDocument)
    }

    private func prepare(_ item: LibraryItem, path: String, named: Bool, scratch: URL) -> Preparation {
        if item.kind == .placeholder {
            return .done(OCRDocumentResult(path: path, status: .notDownloaded,
                                           error: "not downloaded (an evicted placeholder): download it first (`yiana download \"\(path)\"`)"))
        }
        let url = item.documentURL
        let conflict = ConflictName(fileName: url.lastPathComponent)
        if conflict.isSyncConflict {
            return .done(OCRDocumentResult(path: path, status: .conflictCopy,
                                           error: "a sync program's conflict copy of \(conflict.withoutSyncMarks): left as it is until the conflict is resolved (`yiana conflicts resolve`), then the document is recognised"))
        }
        if !named, !options.ignoreBackoff, let retry = failures.backingOff(path) {
            return .done(OCRDocumentResult(path: path, status: .backingOff, code: retry.code, error: retry.reason, retryAfter: retry.until))
        }
        do {
            guard let identity = FileIdentity(path: url.path) else { throw ArchiveError(.fileNotFound, path: url.path) }
            let reader = try DocumentReader(path: url.path)
            let metadata = try reader.metadata()
            let done = metadata.ocrCompleted && !options.force
            let settled = done && !options.dryRun ? try settleResultConflicts(of: url, processedAt: metadata.ocrProcessedAt) : 0
            if done && (options.dryRun || ResultFiles(library: library).exist(for: url) || reader.pdf == nil) {
                return .done(OCRDocumentResult(path: path, status: .alreadyDone, resultCopiesRemoved: settled))
            }
            guard reader.pdf != nil else {
                return .done(OCRDocumentResult(path: path, status: .noPDF, error: "the document has no PDF (metadata only): nothing to recognise"))
            }
            let pdf = scratch.appendingPathComponent("ocr-\(UUID().uuidString).pdf")
            try CoordinatedDocument.exportPDF(of: url.path, to: pdf.path, overwrite: false, scratch: true)
            let prepared = try PreparedDocument(url: url, path: path, identity: identity, parent: reader.contentKey,
                                                metadata: metadata, pdf: pdf, options: options)
            if done {
                // Done, but its results files are missing: written from its text.
                defer { prepared.discard() }
                try writeMissingResults(prepared)
                return .done(OCRDocumentResult(path: path, status: .alreadyDone, resultCopiesRemoved: settled))
            }
            if options.dryRun {
                prepared.discard()
                let status: OCRDocumentResult.Status = prepared.toRecognize.isEmpty ? .embedded : .wouldRecognize
                return .done(OCRDocumentResult(path: path, status: status, pagesRecognized: prepared.toRecognize.count,
                                               pagesWithText: prepared.ownText.count))
            }
            return .prepared(prepared)
        } catch {
            return .done(failure(path, error))
        }
    }

    /// Conflict copies a sync program made of `document`'s results files (two devices
    /// recognised it while apart), settled on the files of the recognition it holds now.
    private func settleResultConflicts(of document: URL, processedAt: Date?) throws -> Int {
        let files = ResultFiles(library: library)
        guard let folder = files.base(for: document)?.deletingLastPathComponent().path else { return 0 }
        if resultConflicts[folder] == nil { resultConflicts[folder] = files.conflictCopies(besideResultsOf: document) }
        let conflicts = files.conflicts(for: document, in: resultConflicts[folder]!)
        return try files.settle(conflicts, for: document, processedAt: processedAt)
    }

    private func failure(_ path: String, _ error: Error) -> OCRDocumentResult {
        let code = Self.code(of: error)
        let retry = options.dryRun ? nil : failures.record(path, code: code, reason: "\(error)")
        return OCRDocumentResult(path: path, status: .failed, code: code, error: "\(error)", retryAfter: retry)
    }

    static func code(of error: Error) -> String {
        switch error {
        case let error as OCRError: error.code
        case let error as PDFError: error.code
        case let error as ArchiveError: error.code.rawValue
        default: "failed"
        }
    }

    /// Waits for a prepared document's pages, then writes it; once more from the start when
    /// another process changed the document meanwhile.
    private func complete(_ prepared: PreparedDocument, workers: PageWorkers) -> OCRDocumentResult {
        defer { prepared.discard() }
        let started = prepared.started
        do {
            let pages = try prepared.waitForPages()
            var result = try write(prepared, recognized: pages)
            result.seconds = Date().timeIntervalSince(started)
            failures.clear(prepared.path)
            return result
        } catch let error as ArchiveError where error.kind == .documentChanged {
            return again(prepared, workers: workers)
        } catch {
            return failure(prepared.path, error)
        }
    }

    /// The document changed while it was being recognised: recognise what is there now.
    private func again(_ prepared: PreparedDocument, workers: PageWorkers) -> OCRDocumentResult {
        guard prepared.attempt < 3 else {
            return failure(prepared.path, OCRError(.recognition, "the document kept changing while it was recognised (another device is editing it); it will be tried again"))
        }
        let item = LibraryItem(kind: .document, url: prepared.url, documentURL: prepared.url)
        guard let scratch = try? LocalState(library: library).scratch() else {
            return failure(prepared.path, OCRError(.recognition, "no scratch folder"))
        }
        switch prepare(item, path: prepared.path, named: true, scratch: scratch) {
        case .done(let result): return result
        case .prepared(let next):
            next.attempt = prepared.attempt + 1
            next.submit(to: workers)
            return complete(next, workers: workers)
        }
    }
}

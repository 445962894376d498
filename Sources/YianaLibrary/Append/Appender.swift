import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

/// How `yiana append` goes.
public struct AppendOptions: Sendable {
    /// Say what would be appended; write nothing.
    public var dryRun = false
    /// Append a PDF this document's history says was appended to it before.
    public var allowDuplicates = false
    /// The id of the rendered letter being appended (`yiana inject`), recorded with it.
    public var letterID: String?

    public init() {}
}

/// What appending did (or, with `dryRun`, would do).
public struct AppendReport: Codable, Sendable {
    public struct Source: Codable, Sendable, Equatable {
        /// As given.
        public let path: String
        public let sha256: String
        public let pages: Int
        /// The pages it became in the document (`4-6`).
        public var range: String
        /// Of those, the pages without text, which OCR recognises.
        public var needOCR: [Int]
    }

    public struct Refusal: Error, Codable, Sendable, Equatable {
        public let path: String
        public let code: AppendRefusalCode
        public let reason: String
    }

    /// The document, relative to the library.
    public let document: String
    public var pagesBefore = 0
    public var pagesAfter = 0
    public var appended: [Source] = []
    public var refused: [Refusal] = []
    /// The version-store id the document before the append was kept as.
    public var keptAs: String?
    public var dryRun = false
}

/// Why a PDF was not appended: a stable code for scripts, written in JSON as its string.
public struct AppendRefusalCode: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let notFound = AppendRefusalCode(rawValue: "not-found")
    public static let notARegularFile = AppendRefusalCode(rawValue: "not-a-regular-file")
    public static let unreadable = AppendRefusalCode(rawValue: "unreadable")
    /// PDFError's codes.
    public static let notAPDF = AppendRefusalCode(rawValue: "not-a-pdf")
    public static let encryptedPDF = AppendRefusalCode(rawValue: "encrypted-pdf")
    public static let damagedPDF = AppendRefusalCode(rawValue: "damaged-pdf")
    /// The document's history or its own record says it was appended before.
    public static let alreadyAppended = AppendRefusalCode(rawValue: "already-appended")
}

/// Why a document cannot take pages.
public struct AppendError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

/// Adds the pages of PDFs to the end of a document: the document's own pages keep their
/// content, its metadata is kept whole (unknown keys too) with what changes set (`modified`,
/// `pageCount`, `pdfHash`, a state for each new page, `ocrCompleted` false only when a new
/// page needs OCR; `fullText` is left for OCR to extend), through the coordinated writer,
/// only over the version that was read, with that version kept first and a history record
/// naming each PDF's SHA-256 and the pages it became.
public struct Appender: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Appends `sources` (in order) to the document at `document`. A source that is not a
    /// readable, unencrypted PDF with pages, or (without `allowDuplicates`) was appended to
    /// this document before, is refused by name with the reason; the others are appended.
    /// - Throws: ``AppendError`` when the document cannot take pages (not downloaded, damaged,
    ///   changed by other processes again and again); ``ArchiveError`` on a failed write, the
    ///   document then as it was.
    public func append(_ sources: [URL], to document: URL, options: AppendOptions = AppendOptions(), now: Date = Date()) throws -> AppendReport {
        let path = library.relativePath(of: document) ?? document.path
        try checkTarget(document, path: path)
        var attempt = 0
        while true {
            attempt += 1
            do {
                return try appendOnce(sources, to: document, path: path, options: options, now: now)
            } catch let error as ArchiveError where error.kind == .documentChanged && attempt < 5 {
                continue  // another process wrote it meanwhile: append to what it wrote
            }
        }
    }

    private func checkTarget(_ document: URL, path: String) throws {
        guard FileKind.at(document.path) == .regular else {
            throw AppendError(description: "\(path): no such document; `yiana status` lists what the library holds.")
        }
        if DatalessFiles.paths(in: library).contains(path) {
            throw AppendError(description: "\(path): not downloaded (evicted to the cloud); `yiana download '\(path)'` first, then append.")
        }
        let damage = DocumentCheck.damage(at: document.path)
        guard damage.isEmpty else {
            throw AppendError(description: "\(path): damaged (\(damage.map(\.rawValue).joined(separator: ", "))); `yiana repair '\(path)'` first, then append.")
        }
    }

    private func appendOnce(_ sources: [URL], to document: URL, path: String, options: AppendOptions, now: Date) throws -> AppendReport {
        let identity = FileIdentity.current(at: document.path)
        let reader = try DocumentReader(path: document.path)
        let metadata = try reader.metadata()
        let parent = reader.contentKey
        // The PDF's own page count (the metadata's may be wrong: the append then sets it right).
        let before: Int
        do {
            before = reader.pdf == nil ? 0 : try reader.pdfBytes().document(source: path).pageCount
        } catch let error as PDFError {
            throw AppendError(description: "\(error.description) Nothing was appended.")
        }
        var report = AppendReport(document: path, pagesBefore: before, pagesAfter: before, dryRun: options.dryRun)
        let history = DocumentHistory(library: library)
        var accepted: [(url: URL, source: AppendReport.Source)] = []
        for url in sources {
            switch inspect(url) {
            case .failure(let refusal):
                report.refused.append(refusal)
            case .success(var source):
                if !options.allowDuplicates {
                    let earlier = history.appends(of: source.sha256, to: metadata.id.uuidString).first
                    let when = earlier.map { "as pages \($0.pages ?? "?") on \(InternetTime.string($0.at))" }
                        ?? Self.recordedAppends(metadata).first { $0.sha256 == source.sha256 }.map { "as pages \($0.pages)" }
                        ?? (accepted.contains { $0.source.sha256 == source.sha256 } ? "earlier in this command" : nil)
                    if let when {
                        report.refused.append(.init(path: source.path, code: .alreadyAppended,
                                                    reason: "\(source.path): already appended to \(path) (\(when)); --allow-duplicates appends it again."))
                        continue
                    }
                }
                let first = report.pagesAfter + 1
                report.pagesAfter += source.pages
                source.range = first == report.pagesAfter ? "\(first)" : "\(first)-\(report.pagesAfter)"
                source.needOCR = source.needOCR.map { $0 + first - 1 }
                accepted.append((url, source))
            }
        }
        report.appended = accepted.map(\.source)
        guard !accepted.isEmpty, !options.dryRun else { return report }

        let rewrite = DocumentRewrite(library: library)
        let scratch = try rewrite.scratchFolder()
        let joined = scratch.appendingPathComponent("append-\(UUID().uuidString).pdf")
        defer { Sys.removeIfPresent(joined.path) }
        try join(accepted.map(\.url), after: reader.pdf == nil ? nil : document, into: joined, scratch: scratch)
        let pageCount = try PDFDocument(path: joined.path).pageCount
        guard pageCount == report.pagesAfter else {
            throw AppendError(description: "\(path): the joined PDF has \(pageCount) pages, not \(report.pagesAfter); nothing was written.")
        }
        var written = Self.withPagesAdded(metadata, before: before, pageCount: pageCount, needOCR: Set(accepted.flatMap(\.source.needOCR)), now: now)
        Self.record(accepted.map(\.source), letter: options.letterID, in: &written)
        report.keptAs = try VersionStore(library: library).keep(document, reason: "before an append").shortID
        // pdfHash is the SHA-256 of the joined PDF, computed as the writer copies it (one read).
        try rewrite.write(written, pdfFile: joined, to: document, replacing: true, expecting: identity, hashingPDF: true)
        if let key = try? DocumentReader(path: document.path).contentKey {
            for (_, source) in accepted {
                try history.record(documentID: metadata.id.uuidString, key: key, parents: parent.map { [$0] } ?? [], what: "append",
                                   at: now, source: source.sha256, pages: source.range, letter: options.letterID)
            }
        }
        return report
    }

    /// The key of the document's metadata that lists what the toolkit appended to it: written
    /// in the same atomic write as the pages, so that a run killed after the write and before
    /// the history record still knows (and a rerun never appends twice), and carried to every
    /// device with the document. The app ignores it, and drops it when it saves; the history
    /// keeps the record then.
    public static let appendsKey = "yianaToolsAppends"

    /// One PDF the document's metadata says was appended to it.
    public struct RecordedAppend: Sendable, Equatable {
        public let sha256: String
        public let pages: String
        /// The rendered letter's id, for a letter injected.
        public var letter: String?

        public init(sha256: String, pages: String, letter: String? = nil) {
            self.sha256 = sha256
            self.pages = pages
            self.letter = letter
        }
    }

    /// What the document's metadata says was appended to it (``appendsKey``).
    public static func recordedAppends(_ metadata: DocumentMetadata) -> [RecordedAppend] {
        guard case .array(let items)? = metadata.unknownFields[appendsKey] else { return [] }
        return items.compactMap { item in
            guard case .object(let fields) = item, case .string(let sha)? = fields["sha256"], case .string(let pages)? = fields["pages"] else { return nil }
            var letter: String?
            if case .string(let id)? = fields["letter"] { letter = id }
            return RecordedAppend(sha256: sha, pages: pages, letter: letter)
        }
    }

    static func record(_ sources: [AppendReport.Source], letter: String?, in metadata: inout DocumentMetadata) {
        record(sources.map { RecordedAppend(sha256: $0.sha256, pages: $0.range, letter: letter) }, in: &metadata)
    }

    /// Adds `appends` to the document's own record of what was appended to it (``appendsKey``).
    public static func record(_ appends: [RecordedAppend], in metadata: inout DocumentMetadata) {
        var items: [JSONValue] = []
        if case .array(let existing)? = metadata.unknownFields[appendsKey] { items = existing }
        for append in appends {
            // No time: two devices appending the same letter to the same version write the same
            // PDF (qpdf's output is deterministic) and the same record, so their conflict is one
            // of `modified` alone, which merges. The history keeps when.
            var item: [String: JSONValue] = ["sha256": .string(append.sha256), "pages": .string(append.pages)]
            if let letter = append.letter { item["letter"] = .string(letter) }
            items.append(.object(item))
        }
        metadata.unknownFields[appendsKey] = .array(items)
    }

    /// The PDF's facts, or why it is refused.
    private func inspect(_ url: URL) -> Result<AppendReport.Source, AppendReport.Refusal> {
        let shown = url.path
        func refuse(_ code: AppendRefusalCode, _ reason: String) -> Result<AppendReport.Source, AppendReport.Refusal> {
            .failure(.init(path: shown, code: code, reason: reason))
        }
        let fd: Int32
        do {
            fd = try RegularFile.openForReading(url.path)
        } catch {
            switch error.kind {
            case .fileNotFound: return refuse(.notFound, "\(shown): no such file.")
            case .notARegularFile(let reason): return refuse(.notARegularFile, "\(shown): \(reason).")
            default: return refuse(.unreadable, error.description)
            }
        }
        defer { Sys.close(fd) }
        do {
            let pdf = try PDFDocument(fileDescriptor: fd, path: shown)
            guard pdf.pageCount > 0 else { return refuse(.damagedPDF, "\(shown): the PDF has no pages.") }
            let needOCR = Self.pagesWithoutText(pdf, 1...pdf.pageCount)
            let sha = try FileHash.sha256(fd: fd, path: shown)
            return .success(.init(path: shown, sha256: sha, pages: pdf.pageCount, range: "", needOCR: needOCR))
        } catch let error as PDFError {
            return refuse(AppendRefusalCode(rawValue: error.code), error.description)
        } catch {
            return refuse(.unreadable, "\(shown): \(error)")
        }
    }

    /// Writes the document's PDF (read out of `document` through libzip, CRC-checked) with
    /// every page of `sources` after its own into `output`; with no document PDF, the sources alone.
    private func join(_ sources: [URL], after document: URL?, into output: URL, scratch: URL) throws {
        var base = sources[0], rest = Array(sources.dropFirst())
        var exported: URL?
        if let document {
            let pdf = scratch.appendingPathComponent("append-base-\(UUID().uuidString).pdf")
            try CoordinatedDocument.exportPDF(of: document.path, to: pdf.path, overwrite: false, scratch: true)
            exported = pdf
            base = pdf
            rest = sources
        }
        defer { exported.map { Sys.removeIfPresent($0.path) } }
        do {
            if rest.isEmpty {
                try FileManager.default.copyItem(at: base, to: output)
            } else {
                try PDFPages.append(rest, to: base, output: output)
            }
        } catch let error as PDFPages.Failure {
            throw AppendError(description: "\(library.relativePath(of: document ?? base) ?? base.path): \(error.description); nothing was written.")
        }
    }

    /// Of `pages` (1-based), those of `pdf` that have no text, which OCR recognises.
    public static func pagesWithoutText(_ pdf: PDFDocument, _ pages: ClosedRange<Int>) -> [Int] {
        pages.filter { pdf.text(ofPage: $0 - 1).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// `metadata` of a document whose PDF had `before` pages with what adding pages up to
    /// `pageCount` changes (of them, `needOCR` have no text), the rest (unknown keys too) as it
    /// was; `pdfHash` is cleared for the writer to set (`hashingPDF`).
    public static func withPagesAdded(_ metadata: DocumentMetadata, before: Int, pageCount: Int, needOCR: Set<Int>, now: Date) -> DocumentMetadata {
        var result = metadata
        // The app derives one state per page when there are none; they are written out now,
        // as it would, so that the new pages can have states of their own.
        var states = Dictionary(metadata.pageProcessingStates.map { ($0.pageNumber, $0) }, uniquingKeysWith: { first, _ in first })
        for number in stride(from: 1, through: before, by: 1) where states[number] == nil {
            states[number] = PageProcessingState(pageNumber: number, needsOCR: !metadata.ocrCompleted, needsExtraction: false,
                                                 ocrProcessedAt: metadata.ocrCompleted ? metadata.ocrProcessedAt : nil)
        }
        for number in (before + 1)...pageCount {
            states[number] = PageProcessingState(pageNumber: number, needsOCR: needOCR.contains(number), needsExtraction: true)
        }
        result.pageProcessingStates = states.values.filter { $0.pageNumber <= pageCount }.sorted { $0.pageNumber < $1.pageNumber }
        result.pageCount = pageCount
        result.pdfHash = nil  // set by the writer (hashingPDF)
        result.modified = now
        if !needOCR.isEmpty { result.ocrCompleted = false }
        return result
    }
}

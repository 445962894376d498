import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

/// What repair did (or would do) to one file.
public struct RepairAction: Codable, Sendable {
    public let path: String
    /// `rewrite`, `migrate`, `new-id`, `salvage`, `from-version`, `partial-pdf`, `take-temp`,
    /// `remove-temp`, `tidy-state` (copies of the shared state folded in), `wrap` (a bare PDF
    /// made a document), or `none`.
    public let action: RepairActionKind
    public let detail: String
    /// The version-store id of the original, kept before anything was written.
    public var keptAs: String?
    /// The document a temporary file was (or would be) put in place as, relative to the library.
    public var document: String?

    public init(path: String, action: RepairActionKind, detail: String, keptAs: String? = nil) {
        self.path = path
        self.action = action
        self.detail = detail
        self.keptAs = keptAs
    }
}

public struct RepairReport: Codable, Sendable {
    public var repaired: [RepairAction] = []
    /// Files that could not be repaired, and why (with what to do).
    public var notRepaired: [RepairAction] = []
    /// Complete documents left in temporary files by interrupted writes, offered for
    /// `--take-temp` (never taken, never deleted, without being asked).
    public var offered: [RepairAction] = []
    /// Documents a sync program is still writing: left for a later run (`--now` overrides).
    public var waiting: [RepairAction] = []
    public var dryRun = false

    public init(dryRun: Bool = false) {
        self.dryRun = dryRun
    }
}

public struct RepairOptions: Sendable {
    public var dryRun = false
    /// For a document nothing can be recovered from: put back its newest kept version that verifies.
    public var fromVersion = false
    /// Leftover temporary files: keep each in the version store, then remove it.
    public var removeTemps = false
    /// Seconds a damaged file must have been left alone before it is repaired (``Arrival``);
    /// 0 repairs files still arriving too (`--now`).
    public var settle = Arrival.defaultWindow
    public init() {}
}

/// Problems a repair refuses to write past: the result must pass `verify`.
public enum RepairError: Error, CustomStringConvertible {
    case wouldNotVerify([ProblemCode])

    public var description: String {
        switch self {
        case .wouldNotVerify(let codes): "the repaired document would still fail verify (\(codes.map(\.rawValue).joined(separator: ", "))); nothing was written."
        }
    }
}

/// Repairs documents from the evidence they hold; never loses data: the original is kept in
/// the version store before anything is written, and the result must pass `verify`.
public struct Repairer: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Repairs the problems `verify` finds in `paths` (the whole library when empty).
    public func repair(_ paths: [URL] = [], options: RepairOptions = RepairOptions()) async -> RepairReport {
        var report = RepairReport(dryRun: options.dryRun)
        if paths.isEmpty {
            // What sync programs made of the shared state, folded back into this device's logs.
            let strays = SharedState.strays(library)
            if !strays.isEmpty {
                do {
                    let folded = options.dryRun ? strays : try SharedState.tidy(library)
                    if !folded.isEmpty {
                        report.repaired.append(RepairAction(path: Library.stateFolderName, action: .tidyState,
                                                            detail: "folded in \(folded.count) copies of the shared state (\(folded.prefix(3).joined(separator: ", ")))"))
                    }
                } catch {
                    report.notRepaired.append(RepairAction(path: Library.stateFolderName, action: .none, detail: "\(error)"))
                }
            }
        }
        let verified = await Verifier(library: library).verify(paths, settle: options.settle)
        let duplicates = duplicateCopies(verified)
        for file in verified.files {
            for problem in file.problems where problem.code == .stillArriving {
                report.waiting.append(RepairAction(path: file.path, action: .wait, detail: problem.message))
            }
        }
        var temps: [(url: URL, path: String)] = []
        for file in verified.files where !file.ok {
            let url = url(of: file.path)
            let codes = Set(file.problems.filter { !$0.isNotice }.map(\.code))
            if codes == [.leftoverTempFile] {
                temps.append((url, file.path))
                continue
            }
            if let never = file.problems.first(where: { [ProblemCode.notARegularFile, .nameNotUTF8].contains($0.code) }) {
                // Named like a document, never opened (a link, a FIFO, a name that is not UTF-8).
                report.notRepaired.append(RepairAction(path: file.path, action: .none, detail: "\(never.message.dropFirst(file.path.count + 2)) Left as it is."))
                continue
            }
            do {
                if let action = try repairOne(url, path: file.path, codes: codes, duplicate: duplicates[file.path], options: options) {
                    report.repaired.append(action)
                }
            } catch {
                report.notRepaired.append(RepairAction(path: file.path, action: .none, detail: "\(error)"))
            }
        }
        let leftovers = leftoverTemps(temps)
        for (temp, offer) in zip(leftovers, offers(for: leftovers)) {
            if options.removeTemps {
                do {
                    report.repaired.append(try removeTemp(temp, offered: offer.action == .offerTemp, dryRun: options.dryRun))
                } catch {
                    report.notRepaired.append(RepairAction(path: temp.path, action: .none, detail: "\(error)"))
                }
            } else if offer.action == .offerTemp {
                report.offered.append(offer)
            } else {
                report.notRepaired.append(offer)
            }
        }
        return report
    }

    private func url(of path: String) -> URL {
        path.hasPrefix("/") ? URL(fileURLWithPath: path) : library.root.appendingPathComponent(path)
    }

    private func repairOne(_ url: URL, path: String, codes: Set<ProblemCode>, duplicate: Duplicate?, options: RepairOptions) throws -> RepairAction? {
        let newID = duplicate?.role == .copy
        // The version of the file repair works from: it never writes over a newer one.
        let identity = FileIdentity(path: url.path)
        if let advice = Self.beyondRepair(codes) { throw RepairIssue(advice) }
        if codes == [.barePDF] { return try wrap(url, path: path, identity: identity, options: options) }
        let rewritable: Set<ProblemCode> = [.legacyFormat, .formatMissing, .pageCountMismatch, .pdfHashMismatch, .duplicateID, .metadataAppRefuses]
        guard codes.isSubset(of: rewritable) else {
            return try salvage(url, path: path, identity: identity, options: options)
        }
        let reader = try DocumentReader(path: url.path)
        var metadata = try reader.metadata()
        var changes: [String] = []
        if codes.contains(.legacyFormat) { changes.append("migrated from the \(reader.format.name) format") }
        if codes.contains(.formatMissing) { changes.append("format.json rebuilt") }
        if codes.contains(.metadataAppRefuses) {
            // Dates are written as the app's numbers by any rewrite; a value the app has no
            // case for is dropped (the original is kept in the version store).
            var mended = metadata.appRefusals
            if let source = metadata.ocrSource, !DocumentMetadata.ocrSources.contains(source) {
                metadata.ocrSource = nil
                mended = mended.map { $0.hasPrefix("ocrSource") ? $0 + "; dropped" : $0 }
            }
            changes.append("rewritten as the app reads it (\(mended.joined(separator: "; ")))")
        }
        if newID {
            metadata.id = UUID()
            changes.append("new id \(metadata.id.uuidString) (it shared one with another document)")
        }
        if reader.pdf != nil {
            let (bytes, hash) = try reader.pdfBytesAndSHA256()
            if metadata.pdfHash != hash {
                metadata.pdfHash = hash
                if codes.contains(.pdfHashMismatch) { changes.append("pdfHash recomputed") }
            }
            if let pages = try? bytes.document(source: path).pageCount, pages != metadata.pageCount {
                changes.append("pageCount \(metadata.pageCount) → \(pages)")
                metadata.pageCount = pages
            }
        }
        if let duplicate, duplicate.role == .conflictCopy, changes.isEmpty {
            throw RepairIssue("a sync conflict copy of \(duplicate.original) (same id): it keeps its id; choose between them with `yiana conflicts resolve`")
        }
        guard !changes.isEmpty else { return nil }
        var action = RepairAction(path: path, action: codes.contains(.legacyFormat) ? .migrate : newID ? .newID : .rewrite,
                                  detail: changes.joined(separator: "; "))
        action.keptAs = try write(metadata, pdfFrom: url, to: url, expecting: identity, reason: "before repair: \(action.detail)", dryRun: options.dryRun)
        return action
    }

    /// Writes the repaired document (the PDF from the document `pdfFrom`, or the file
    /// `pdfFile`) in place of `url`, after keeping the original; it must pass verify. A dry
    /// run writes it to scratch space and checks it there, so that it says what would happen.
    /// Only if `url` is still the version `expecting` (else nothing is written).
    ///
    /// The original is kept only once the repaired document has passed verify, under the
    /// document's lock, just before it takes the name: a repair that fails writes nothing,
    /// not even a version record.
    /// - Returns: the short id the original was kept as (nil in a dry run).
    func write(_ metadata: DocumentMetadata, pdfFrom document: URL? = nil, pdfFile: URL? = nil, to url: URL, expecting: FileIdentity?,
               reason: String, dryRun: Bool) throws -> String? {
        let rewrite = DocumentRewrite(library: library)
        let target = dryRun ? try rewrite.scratchFolder().appendingPathComponent("dry-run-\(UUID().uuidString).yianazip") : url
        defer { if dryRun { try? FileManager.default.removeItem(at: target) } }
        var kept: String? = nil
        let check = { (tempPath: String) throws in
            try mustVerify(tempPath)
            if !dryRun { kept = try VersionStore(library: self.library).keep(url, reason: reason).shortID }
        }
        let expecting = dryRun ? nil : expecting
        if let document {
            try rewrite.write(metadata, pdfFrom: document, to: target, replacing: !dryRun, expecting: expecting, scratch: dryRun, check: check)
        } else {
            try rewrite.write(metadata, pdfFile: pdfFile, to: target, replacing: !dryRun, expecting: expecting, scratch: dryRun, check: check)
        }
        return kept
    }

    /// Why a document with `codes` is left as it is, when repair cannot make it better: the
    /// PDF itself is bad, or a newer app wrote the file (rewriting it would lose what it added).
    static func beyondRepair(_ codes: Set<ProblemCode>) -> String? {
        if codes.contains(.unreadable) || codes.contains(.notFound) {
            return "it could not be read just now (an I/O error, or it went away), which says nothing about its bytes; left as it is: check the disk, and run repair again"
        }
        if codes.contains(.formatUnknownVersion) {
            return "written by a newer version of the Yiana app (its format.json announces a version this toolkit does not know); left as it is: update yiana-tools"
        }
        let pdfProblems: [(ProblemCode, String)] = [(.pdfDamaged, "the PDF itself is damaged"), (.pdfEncrypted, "the PDF is encrypted with a password"),
                                                    (.pdfNoPages, "the PDF has no pages")]
        guard let what = pdfProblems.first(where: { codes.contains($0.0) })?.1 else { return nil }
        return "\(what), and repair does not rewrite PDFs; left as it is: take it out with `yiana export`, fix it with a PDF tool (e.g. `qpdf --decrypt` or `qpdf` to rebuild it), and import the result"
    }

    /// Throws unless the file at `tempPath` passes verify (as a document on its own).
    func mustVerify(_ tempPath: String) throws {
        let problems = DocumentCheck.damage(at: tempPath)
        if !problems.isEmpty { throw RepairError.wouldNotVerify(problems) }
    }

    /// A document sharing its id with others, and what repair does about it.
    struct Duplicate {
        enum Role { case original, copy, conflictCopy }
        let role: Role
        /// The one that keeps the id.
        let original: String
    }

    /// Of the documents sharing an id, the one whose name has the fewest marks (then the
    /// first by path) keeps it; a sync service's conflict copy keeps it too, for
    /// `yiana conflicts`; any other copy (the app's ` Copy`, a renamed copy) gets a new one.
    private func duplicateCopies(_ report: VerifyReport) -> [String: Duplicate] {
        var byID: [String: [String]] = [:]
        for file in report.files where file.problems.contains(where: { $0.code == .duplicateID }) {
            if let id = try? DocumentReader(path: url(of: file.path).path).metadata().id.uuidString { byID[id, default: []].append(file.path) }
        }
        var roles: [String: Duplicate] = [:]
        for paths in byID.values where paths.count > 1 {
            let names = Dictionary(uniqueKeysWithValues: paths.map { ($0, ConflictName(fileName: URL(fileURLWithPath: $0).lastPathComponent)) })
            let ordered = paths.sorted { (names[$0]!.marks.count, $0) < (names[$1]!.marks.count, $1) }
            let original = ordered[0]
            roles[original] = Duplicate(role: .original, original: original)
            for path in ordered.dropFirst() {
                let conflict = names[path]!.marks.contains { mark in
                    if case .numbered = mark { return true }  // iCloud's ` 2` with the same id
                    return mark.isSyncConflict
                }
                roles[path] = Duplicate(role: conflict ? .conflictCopy : .copy, original: original)
            }
        }
        return roles
    }
}

/// Why a file was left as it is.
struct RepairIssue: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

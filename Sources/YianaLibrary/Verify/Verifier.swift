import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

public struct VerifyReport: Codable, Sendable {
    public var files: [VerifiedFile] = []
    /// What the library holds that is not its documents, one sentence per kind
    /// ("Syncthing's old versions (.stversions) hold 3 old copies of documents …").
    public var notes: [String] = []
    public var problemCount: Int { files.reduce(0) { $0 + $1.problems.filter { !$0.isNotice }.count } }
    public var clean: Bool { problemCount == 0 }
}

/// Checks documents strictly: ZIP structure, every CRC, metadata, format, the PDF.
public struct Verifier: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Verifies `paths` (files or folders; the whole library when empty), `jobs` files at
    /// once. Each file is read once, in constant memory. A damaged file that changed within
    /// the last `settle` seconds (or that a sync program is writing) is reported as still
    /// arriving, a notice (``Arrival``).
    /// `progress` hears how many files are done, of how many, and the one just done.
    public func verify(_ paths: [URL] = [], jobs: Int = ProcessInfo.processInfo.activeProcessorCount,
                       settle: Double = Arrival.defaultWindow, now: Date = Date(),
                       progress: (_ completed: Int, _ total: Int, _ current: String) -> Void = { _, _, _ in }) async -> VerifyReport {
        let scan = (try? LibraryScanner.scan(library, below: paths)) ?? LibraryScan()
        let targets = Self.targets(of: scan)
        let arrival = Arrival(scan: scan, now: now, window: settle)
        let files = await boundedMap(targets, width: jobs, progress: { done, target in
            progress(done, targets.count, display(target.url))
        }) { self.check($0, arrival: arrival) }
        var report = VerifyReport(files: files)
        if Keeper.isEnabled() {
            // Every state seen is kept; a document now damaged is named with its last good one.
            let keeper = Keeper(library: library)
            if paths.isEmpty {
                _ = await keeper.look(scan, arrival: arrival, now: now)
            } else {
                await keeper.observe(scan.items.filter { $0.kind == .document }.map(\.url), now: now)
            }
            for index in report.files.indices where !report.files[index].ok {
                // Damage only (an I/O error is not), and a state other than the bytes there now.
                let codes = report.files[index].problems.filter { !$0.isNotice }.map(\.code)
                guard !codes.contains(.unreadable), let good = keeper.lastGoodState(path: report.files[index].path),
                      (try? FileHash.sha256(of: library.root.appendingPathComponent(report.files[index].path))) != good.sha256 else { continue }
                var notice = VerifyProblem(code: .goodStateKept, message: Self.goodStateMessage(report.files[index].path, good))
                notice.isNotice = true
                report.files[index].problems.append(notice)
            }
        }
        report.notes = scan.notes + SharedState.notes(library)
        markDuplicateIDs(&report, targets: targets)
        // The app's companion files (.addresses, .letters, the work list), as the app reads them.
        report.files += CompanionCheck(library: library).check(scan, wholeLibrary: paths.isEmpty, arrival: arrival)
        // Named like documents, never opened: a link, a FIFO, a folder, a name that is not UTF-8.
        report.files += scan.irregular.map { VerifiedFile(path: $0.path, problems: [VerifyProblem(code: $0.code, message: $0.message)]) }
        report.files.sort { $0.path < $1.path }
        return report
    }

    /// What `verify` says of a damaged document whose good state `good` the keeper holds.
    public static func goodStateMessage(_ path: String, _ good: VersionRecord) -> String {
        let name = path.hasSuffix(".\(Library.documentExtension)") ? String(path.dropLast(Library.documentExtension.count + 1)) : path
        return "\(path): its last good state, seen here at \(LocalTime(good.keptAt).text), is kept (version \(good.shortID)): "
            + "`yiana versions restore \"\(name)\" \(good.shortID)` puts it back."
    }

    /// A file to check and what it is.
    struct Target: Sendable {
        enum Kind: Sendable { case document, placeholder, leftoverTemp }
        let url: URL
        let kind: Kind
    }

    /// Documents, placeholders and leftover temporary files, as the library scanner found them.
    static func targets(of scan: LibraryScan) -> [Target] {
        let items = scan.items.map { Target(url: $0.url, kind: $0.kind == .document ? .document : .placeholder) }
        let temps = scan.leftoverTemps.map { Target(url: $0, kind: .leftoverTemp) }
        return (items + temps).sorted { $0.url.path < $1.url.path }
    }

    /// The toolkit's own temporary files (`.Name.yianazip.yiana-tmp-XXXXXXXX`), which a writer
    /// creates and renames away while it holds its document's lock.
    static func isToolkitTemp(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(CoordinatedDocument.temporaryMarker)
    }

    func display(_ url: URL) -> String { library.relativePath(of: url) ?? url.path }

    func check(_ target: Target, arrival: Arrival) -> VerifiedFile {
        let path = display(target.url)
        switch target.kind {
        case .placeholder:
            let size = (try? Placeholder(stubAt: target.url)).map { " (\($0.documentSize) bytes in the cloud)" } ?? ""
            var notice = VerifyProblem(code: .notDownloaded, message: "\(path): evicted to the cloud, not downloaded\(size); not damage.")
            notice.isNotice = true
            return VerifiedFile(path: path, problems: [notice])
        case .leftoverTemp:
            let valid = DocumentCheck.damage(at: target.url.path).isEmpty
            return VerifiedFile(path: path, problems: [VerifyProblem(
                code: .leftoverTempFile,
                message: "\(path): a temporary file left by an interrupted write\(valid ? "; it holds a complete document (`yiana repair` can offer it)" : "; it is incomplete").")])
        case .document:
            let problems = DocumentCheck(url: target.url, path: path).problems()
            // A file a sync program is still writing is not damaged yet: look again later.
            let whole = !problems.contains { !$0.isNotice }
            if let why = arrival.stillArriving(target.url, whole: whole) {
                return VerifiedFile(path: path, problems: (whole ? problems : []) + [Arrival.notice(path, why)])
            }
            return VerifiedFile(path: path, problems: problems)
        }
    }

    /// Documents sharing an id, among all whose metadata reads (damaged or legacy ones too:
    /// repair should give a copy its own id in the same run that mends it).
    private func markDuplicateIDs(_ report: inout VerifyReport, targets: [Target]) {
        var byID: [String: [Int]] = [:]
        for index in report.files.indices where targets[index].kind == .document {
            if let id = try? DocumentReader(path: targets[index].url.path).metadata().id.uuidString {
                byID[id, default: []].append(index)
            }
        }
        for (id, indices) in byID where indices.count > 1 {
            let paths = indices.map { report.files[$0].path }
            for index in indices {
                report.files[index].problems.append(VerifyProblem(
                    code: .duplicateID,
                    message: "\(report.files[index].path): shares its id \(id) with \(paths.filter { $0 != report.files[index].path }.joined(separator: ", ")); `yiana repair` gives a copy its own id, and `yiana conflicts list` shows sync conflict copies."))
            }
        }
    }
}

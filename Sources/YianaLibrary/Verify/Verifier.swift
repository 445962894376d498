import Foundation
import YianaArchive
import YianaPDF
#if canImport(Glibc)
import Glibc
#endif

/// One thing wrong with one file.
public struct VerifyProblem: Codable, Sendable, Equatable {
    /// A stable code for scripts (`crc-mismatch`, `truncated`, `metadata-bad-key`, …).
    public let code: String
    /// What is wrong, in a sentence a person understands.
    public let message: String
    /// True for what is not damage (an evicted placeholder): it does not fail `verify`.
    public var isNotice = false
}

/// The verification of one file.
public struct VerifiedFile: Codable, Sendable {
    /// Relative to the library (or as given).
    public let path: String
    public var problems: [VerifyProblem]
    public var ok: Bool { problems.allSatisfy(\.isNotice) }
}

public struct VerifyReport: Codable, Sendable {
    public var files: [VerifiedFile] = []
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
    /// once. Each file is read once, in constant memory.
    public func verify(_ paths: [URL] = [], jobs: Int = ProcessInfo.processInfo.activeProcessorCount) async -> VerifyReport {
        let targets = collect(paths.isEmpty ? [library.root] : paths)
        var report = VerifyReport(files: await boundedMap(targets, width: jobs) { self.check($0) })
        markDuplicateIDs(&report, targets: targets)
        return report
    }

    /// A file to check and what it is.
    struct Target: Sendable {
        enum Kind: Sendable { case document, placeholder, leftoverTemp }
        let url: URL
        let kind: Kind
    }

    /// Documents, placeholders and leftover temporary files below `paths`.
    func collect(_ paths: [URL]) -> [Target] {
        var targets: [Target] = []
        let dataless = DatalessFiles.paths(in: library.root)
        func visit(_ url: URL) {
            var st = stat()
            guard lstat(url.path, &st) == 0 else {
                targets.append(Target(url: url, kind: .document))  // reported as not found
                return
            }
            let name = url.lastPathComponent
            if st.st_mode & S_IFMT == S_IFDIR {
                guard name != Library.stateFolderName && name != ".ocr_results" || url == library.root else { return }
                for child in ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted() {
                    visit(url.appendingPathComponent(child))
                }
                return
            }
            guard st.st_mode & S_IFMT == S_IFREG else { return }
            if PlaceholderName.documentName(forStub: name) != nil {
                targets.append(Target(url: url, kind: .placeholder))
            } else if Self.isLeftoverTemp(name) {
                targets.append(Target(url: url, kind: .leftoverTemp))
            } else if !name.hasPrefix("."), url.pathExtension.lowercased() == Library.documentExtension {
                let relative = library.relativePath(of: url) ?? ""
                targets.append(Target(url: url, kind: dataless.contains(relative) ? .placeholder : .document))
            }
        }
        for path in paths { visit(path) }
        return targets
    }

    /// The toolkit's own temporary files (`.Name.yianazip.yiana-tmp-XXXXXXXX`), which a writer
    /// creates and renames away while it holds its document's lock.
    static func isToolkitTemp(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(CoordinatedDocument.temporaryMarker)
    }

    /// The toolkit's own (`.Name.yianazip.yiana-tmp-XXXXXXXX`), libzip's
    /// (`Name.yianazip.XXXXXX`) and the app's (`<UUID>.tmp`) temporary files.
    public static func isLeftoverTemp(_ name: String) -> Bool {
        if isToolkitTemp(name) { return true }
        // libzip's are named after the archive (never hidden) plus six mkstemp characters.
        if !name.hasPrefix("."), let range = name.range(of: ".\(Library.documentExtension).", options: .backwards) {
            let suffix = name[range.upperBound...]
            if suffix.count == 6, suffix.allSatisfy({ $0.isLetter || $0.isNumber }) { return true }
        }
        if name.hasSuffix(".tmp"), UUID(uuidString: String(name.dropLast(4))) != nil { return true }
        return false
    }

    func display(_ url: URL) -> String { library.relativePath(of: url) ?? url.path }

    func check(_ target: Target) -> VerifiedFile {
        let path = display(target.url)
        switch target.kind {
        case .placeholder:
            let size = (try? Placeholder(stubAt: target.url)).map { " (\($0.documentSize) bytes in the cloud)" } ?? ""
            var notice = VerifyProblem(code: "not-downloaded", message: "\(path): evicted to the cloud, not downloaded\(size); not damage.")
            notice.isNotice = true
            return VerifiedFile(path: path, problems: [notice])
        case .leftoverTemp:
            let valid = DocumentCheck.damage(at: target.url.path).isEmpty
            return VerifiedFile(path: path, problems: [VerifyProblem(
                code: "leftover-temp-file",
                message: "\(path): a temporary file left by an interrupted write\(valid ? "; it holds a complete document (`yiana repair` can offer it)" : "; it is incomplete").")])
        case .document:
            return VerifiedFile(path: path, problems: DocumentCheck(url: target.url, path: path).problems())
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
                    code: "duplicate-id",
                    message: "\(report.files[index].path): shares its id \(id) with \(paths.filter { $0 != report.files[index].path }.joined(separator: ", ")); `yiana repair` gives a copy its own id, and `yiana conflicts list` shows sync conflict copies."))
            }
        }
    }
}

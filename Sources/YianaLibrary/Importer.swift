import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

/// Imports PDFs into a library as new documents, several at once.
public struct Importer: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// A PDF to import and the folder its document goes to.
    struct Candidate: Sendable {
        let source: URL
        let display: String
        let folder: URL
    }

    /// Imports every PDF in `paths` (files, and folders searched recursively with their
    /// sub-folder structure kept under the library). Bad inputs are reported, never fatal.
    /// - Throws: ``LibraryError`` only when `options.into` is not a folder inside the library.
    public func run(_ paths: [String], options: ImportOptions,
                    progress: @escaping @Sendable (ImportProgress) -> Void = { _ in }) async throws -> ImportReport {
        let destination = try library.folder(options.into)
        var report = ImportReport()
        var candidates: [Candidate] = []
        for path in paths {
            expand(path, into: destination, candidates: &candidates, failures: &report.failed)
        }

        var sizeCounts: [UInt64: Int] = [:]
        for candidate in candidates {
            if let status = try? Sys.stat(candidate.source.path) { sizeCounts[UInt64(status.st_size), default: 0] += 1 }
        }
        let known = options.allowDuplicates ? KnownPDFs() : KnownPDFs.scan(library, sizesOfInterest: Set(sizeCounts.keys))
        let registry = HashRegistry(known.holders)
        // A PDF whose size no other PDF of this run or of the library has cannot be a
        // duplicate: it is hashed while it is copied, in one read. The others are hashed
        // first, to be checked before anything is written.
        let hashWhileCopying = options.allowDuplicates ? nil
            : Set(sizeCounts.filter { $0.value == 1 && !known.sizes.contains($0.key) }.keys)
        // Several PDFs may be opened at once on several threads: poppler must be set up on
        // one first. A single PDF is the only one this process opens (the new document is
        // checked without poppler), so it sets poppler up itself, 1.5 ms sooner.
        if candidates.count > 1 { PDFDocument.prepareForConcurrentUse() }
        let names = DocumentNaming.TakenNames()

        let outcomes = await boundedMap(candidates, width: options.jobs, progress: { done, candidate in
            progress(ImportProgress(completed: done, total: candidates.count, current: candidate.display))
        }) { candidate in
            await importOne(candidate, options: options, registry: registry, hashWhileCopying: hashWhileCopying, names: names)
        }
        for outcome in outcomes {
            switch outcome {
            case .imported(let item): report.imported.append(item)
            case .skipped(let item): report.skipped.append(item)
            case .failed(let item): report.failed.append(item)
            }
        }
        return report
    }

    enum Outcome: Sendable {
        case imported(ImportReport.Imported)
        case skipped(ImportReport.Skipped)
        case failed(ImportReport.Failed)
    }

    /// Turns one input path into candidates: a file as itself, a folder as every `*.pdf`
    /// below it (hidden entries skipped), kept under the folder's name. Links are never
    /// followed, named or found: each is reported as failed, as is a PDF whose name is not
    /// UTF-8; nothing is skipped in silence.
    private func expand(_ path: String, into destination: URL, candidates: inout [Candidate], failures: inout [ImportReport.Failed]) {
        let url = URL(fileURLWithPath: path).standardizedFileURL
        switch FileKind.at(url.path) {
        case .regular:
            candidates.append(Candidate(source: url, display: path, folder: destination))
        case .folder:
            let base = destination.appendingPathComponent(url.lastPathComponent, isDirectory: true)
            let (found, refused) = Self.pdfs(below: url, display: path)
            for (file, relativeFolder) in found {
                let folder = relativeFolder.reduce(base) { $0.appendingPathComponent($1, isDirectory: true) }
                let display = ([path] + relativeFolder + [file.lastPathComponent]).joined(separator: "/")
                candidates.append(Candidate(source: file, display: display, folder: folder))
            }
            failures += refused
        case .missing:
            failures.append(Self.unreadable(path, .notFound))
        case let kind:
            failures.append(.init(source: path, code: "not-a-regular-file", reason: "\(path): \(kind.refusal ?? "not a regular file or folder")."))
        }
    }

    /// A failure row for an input that cannot be opened or examined.
    static func unreadable(_ source: String, _ code: SystemError.Code) -> ImportReport.Failed {
        if code == .notFound || code == .notADirectory {
            return .init(source: source, code: "not-found", reason: "\(source): no such file or folder.")
        }
        return .init(source: source, code: "unreadable", reason: "\(source): cannot be read (\(code)).")
    }

    /// `*.pdf` files below `folder` with the sub-folder path of each, in a stable order; and
    /// what looks like a PDF (or a folder of them) but cannot be imported: a symbolic link,
    /// a FIFO, a name that is not UTF-8, a folder that cannot be listed.
    static func pdfs(below folder: URL, display: String, relative: [String] = []) -> (found: [(URL, [String])], refused: [ImportReport.Failed]) {
        let shown = ([display] + relative).joined(separator: "/")
        let entries: [DirectoryEntry]
        do {
            entries = try DirectoryEntry.list(folder.path)
        } catch {
            return ([], [.init(source: shown, code: "unreadable", reason: "\(shown): cannot be listed (\(error.code)).")])
        }
        var found: [(URL, [String])] = []
        var refused: [ImportReport.Failed] = []
        for entry in entries where entry.bytes.first != UInt8(ascii: ".") {
            let looksLikePDF = entry.escapedName.lowercased().hasSuffix(".pdf")
            let source = shown + "/" + entry.escapedName
            guard let name = entry.name else {
                if looksLikePDF || entry.kind == .folder {
                    refused.append(.init(source: source, code: "name-not-utf8",
                                         reason: "\(source): its name is not valid UTF-8 (the bytes shown as \\x); rename it to UTF-8 (e.g. `convmv -f latin1 -t utf8 --notest`) and import it again."))
                }
                continue
            }
            switch entry.kind {
            case .folder:
                let inner = pdfs(below: folder.appendingPathComponent(name), display: display, relative: relative + [name])
                found += inner.found
                refused += inner.refused
            case .regular where looksLikePDF:
                found.append((folder.appendingPathComponent(name), relative))
            case .regular, .missing:
                break
            case let kind:
                if looksLikePDF || kind != .fifo && kind != .socket && kind != .device {
                    let why = FileKind.at(folder.appendingPathComponent(name).path).refusal ?? "not a regular file"
                    refused.append(.init(source: source, code: "not-a-regular-file", reason: "\(source): \(why)."))
                }
            }
        }
        return (found, refused)
    }

    /// Imports one PDF. `hashWhileCopying`: the sizes of PDFs that are hashed during their
    /// copy; nil for all of them.
    private func importOne(_ candidate: Candidate, options: ImportOptions, registry: HashRegistry,
                           hashWhileCopying: Set<UInt64>?, names: DocumentNaming.TakenNames) async -> Outcome {
        let path = candidate.source.path
        func failed(_ code: String, _ reason: String) -> Outcome {
            .failed(.init(source: candidate.display, code: code, reason: reason))
        }
        let fd: Int32
        do {
            fd = try RegularFile.openForReading(path)
        } catch {
            switch error.kind {
            case .fileNotFound: return .failed(Self.unreadable(candidate.display, .notFound))
            case .notARegularFile(let reason): return failed("not-a-regular-file", "\(candidate.display): \(reason).")
            default: return failed("unreadable", error.description)
            }
        }
        defer { Sys.close(fd) }

        let source: SourceFile
        let pageCount: Int
        let claimed: String?
        do {
            source = try SourceFile(fd: fd, path: path)
            pageCount = try PDFDocument(fileDescriptor: fd, path: candidate.display).pageCount
            let hashFirst = hashWhileCopying.map { !$0.contains(source.size) } ?? false
            claimed = hashFirst ? try FileHash.sha256(fd: fd, path: candidate.display) : nil
        } catch let error as PDFError {
            return failed(error.code, error.description)
        } catch let error as SystemError {
            return failed("unreadable", "\(candidate.display): cannot be read (\(error.code)).")
        } catch {
            return failed("unreadable", "\(candidate.display): \(error)")
        }

        if let claimed, let holder = await registry.claim(claimed, for: candidate.display) {
            return .skipped(.init(source: candidate.display, code: "duplicate",
                                  reason: "\(candidate.display): the library already has this PDF (\(holder)); use --allow-duplicates to import it again.",
                                  existing: holder))
        }

        let title = candidate.source.deletingPathExtension().lastPathComponent
        let metadata = DocumentMetadata(title: title, pageCount: pageCount, tags: options.tags, pdfHash: claimed)
        do {
            try FileManager.default.createDirectory(at: candidate.folder, withIntermediateDirectories: true)
            let (document, written) = try place(metadata, pdf: source, hashing: claimed == nil, in: candidate.folder,
                                                stem: DocumentNaming.stem(forTitle: title), names: names)
            let hash = written.pdfHash ?? ""
            let relative = library.relativePath(of: document) ?? document.path
            await registry.record(hash, holder: relative)
            // The first step of the document's history, for conflict resolution later.
            if let key = try? DocumentReader(path: document.path).contentKey {
                try? DocumentHistory(library: library).record(documentID: metadata.id.uuidString, key: key, parents: [], what: "import")
            }
            return .imported(.init(source: candidate.display, document: relative, id: metadata.id.uuidString,
                                   title: title, pageCount: pageCount, pdfHash: hash, bytes: source.size))
        } catch let error as ArchiveError {
            if let claimed { await registry.release(claimed) }
            return failed(error.code.rawValue, error.description)
        } catch {
            if let claimed { await registry.release(claimed) }
            return failed("write-failed", "\(candidate.display): \(error)")
        }
    }

    /// Writes the document under the first free name, `Title`, `Title 1`, `Title 2`, … A name
    /// another process takes first (between our check and our write) is simply passed over.
    /// With `hashing`, `pdfHash` is computed during the copy. Returns where it went and the
    /// metadata written.
    private func place(_ metadata: DocumentMetadata, pdf: SourceFile, hashing: Bool, in folder: URL, stem: String,
                       names: DocumentNaming.TakenNames) throws -> (URL, DocumentMetadata) {
        for number in 0..<100_000 {
            let name = DocumentNaming.fileName(stem: stem, number: number)
            if names.isTaken(name, in: folder) { continue }
            // Taken before the write, so a parallel import of the same title moves on at once.
            names.take(name, in: folder)
            let url = folder.appendingPathComponent(name)
            do {
                return (url, try CoordinatedDocument.create(at: url.path, metadata: metadata, pdf: .file(pdf), hashingPDF: hashing))
            } catch ArchiveError.Code.alreadyExists {
                continue
            }
        }
        throw ArchiveError(.alreadyExists, path: folder.appendingPathComponent(stem).path)
    }
}

/// The PDF hashes already in the library (or claimed earlier in this run), so a PDF is
/// imported once.
actor HashRegistry {
    private var holders: [String: String]
    private var pending: Set<String> = []

    init(_ known: [String: String]) {
        holders = known
    }

    /// Claims `hash` for `source`; returns who holds it already, or nil if the claim is granted.
    func claim(_ hash: String, for source: String) -> String? {
        if let holder = holders[hash] { return holder }
        holders[hash] = source
        pending.insert(hash)
        return nil
    }

    /// Records the document that now holds a claimed hash.
    func record(_ hash: String, holder: String) {
        holders[hash] = holder
        pending.remove(hash)
    }

    /// Gives a claim back after a failed import.
    func release(_ hash: String) {
        if pending.remove(hash) != nil { holders[hash] = nil }
    }
}

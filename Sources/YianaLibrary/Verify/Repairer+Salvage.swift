import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

extension Repairer {
    /// Rebuilds a document whose ZIP structure is damaged from the evidence the file holds.
    func salvage(_ url: URL, path: String, identity: FileIdentity?, options: RepairOptions) throws -> RepairAction {
        let (fd, st) = try Self.openDamaged(url)
        defer { Sys.close(fd) }
        let size = st.size
        let found = ZipEvidence(fd: fd, size: size)
        let evidence = found.entries
        func bytes(_ entry: EntryEvidence) -> Data? {
            found.bytes(at: entry.dataOffset, count: Int(min(entry.size, DocumentReader.metadataLimit))).map { Data($0) }
        }
        // Of several intact metadata.json (a duplicate name), the first that reads.
        let metadataCandidates = found.intact("metadata.json")
        let metadataEntry = metadataCandidates.first { bytes($0).flatMap { try? DocumentMetadata(jsonData: $0, file: path) } != nil } ?? metadataCandidates.first
        let metadataBytes = metadataEntry.flatMap(bytes)
        let pdfEntry = found.intact("content.pdf").first
        var metadata: DocumentMetadata
        var notes: [String]
        if let metadataEntry, let metadataBytes, let read = try? DocumentMetadata(jsonData: metadataBytes, file: path) {
            metadata = read
            notes = ["metadata.json from the \(metadataEntry.source)"]
        } else if let metadataEntry, let metadataBytes,
                  let (read, fixes) = MetadataRecovery.recover(metadataBytes, fallback: fallbackMetadata(for: url, size: st), file: path) {
            metadata = read
            notes = ["metadata.json from the \(metadataEntry.source), where \(fixes.joined(separator: ", "))"]
        } else if pdfEntry != nil {
            // The PDF is the user's document: it gets new metadata rather than being lost.
            metadata = fallbackMetadata(for: url, size: st)
            notes = ["metadata.json \(metadataEntry == nil ? "is missing or damaged" : "is not a JSON object"): rebuilt as \"\(metadata.title)\" with id \(metadata.id.uuidString)"]
        } else {
            return try fromVersion(url, path: path, options: options)
        }
        notes.append("format.json rebuilt")
        let others = found.otherNames
        if others.count > 0 {
            // Named, the first few: a hostile file may hold a hundred thousand.
            let names = others.first.map { "\"\($0)\"" }.joined(separator: ", ")
            let what = others.count == others.first.count ? names : "\(others.count) other entries (the first: \(names), …)"
            notes.append("left out \(what) (not part of a document; still in the original, kept in the version store)")
        }
        let scratch = try DocumentRewrite(library: library).scratchFolder()
        var pdfFile: URL? = nil
        var side: (title: String, offset: UInt64, count: UInt64)? = nil
        let sideMarker = "\u{0}side-file\u{0}"
        defer { if let pdfFile { try? FileManager.default.removeItem(at: pdfFile) } }
        if let pdfEntry {
            pdfFile = scratch.appendingPathComponent("salvage-\(UUID().uuidString).pdf")
            try Self.copy(fd: fd, pdfEntry.dataOffset, pdfEntry.size, to: pdfFile!)
            notes.append("content.pdf from the \(pdfEntry.source) (its CRC matches)")
        } else if let partial = evidence.first(where: { $0.name == "content.pdf" && $0.dataOffset < size }) {
            // Damaged or cut off: the user gets what is there, beside the document, never in it.
            // Up to where the next entry or the central directory starts, when that comes first.
            let next = found.nextEntryStart(after: partial.dataOffset)
            let available = min(partial.size, min(size, next) - partial.dataOffset)
            side = ("\(metadata.title) (partial PDF)", partial.dataOffset, available)
            notes.append("content.pdf is damaged or incomplete: its \(available) bytes go to \(sideMarker) (a new file; nothing is replaced); the document keeps its metadata")
        } else {
            notes.append("no content.pdf found anywhere in the file: the document keeps only its metadata (the whole original is kept in the version store)")
        }
        if let pdfFile {
            metadata.pdfHash = try FileHash.sha256(of: pdfFile)
            if let pages = try? PDFDocument(path: pdfFile.path).pageCount { metadata.pageCount = pages }
        } else {
            metadata.pdfHash = nil
        }
        let folder = url.deletingLastPathComponent()
        var detail = notes.joined(separator: "; ")
        if let side, options.dryRun {
            detail = detail.replacingOccurrences(of: sideMarker, with: DocumentNaming.freeSideName(for: side.title, extension: "pdf", in: folder))
        }
        var action = RepairAction(path: path, action: .salvage, detail: detail)
        action.keptAs = try write(metadata, pdfFile: pdfFile, to: url, expecting: identity, reason: "before repair (salvage)", dryRun: options.dryRun)
        // Once the document is safe: the partial PDF beside it, in a file of its own that
        // never replaces one (the name is the one it really got).
        if let side, !options.dryRun {
            let name = try Self.writeSideFile(side, from: fd, in: folder, keptAs: action.keptAs)
            action = RepairAction(path: path, action: .salvage, detail: detail.replacingOccurrences(of: sideMarker, with: name), keptAs: action.keptAs)
        }
        return action
    }

    /// Writes `count` bytes from `offset` of the damaged file to a new file named for
    /// `title` beside the document (never replacing one).
    /// - Returns: the name it really got.
    private static func writeSideFile(_ side: (title: String, offset: UInt64, count: UInt64), from fd: Int32, in folder: URL,
                                      keptAs: String?) throws -> String {
        let (sideURL, sideFD) = try DocumentNaming.createSideFile(for: side.title, extension: "pdf", in: folder)
        defer { Sys.close(sideFD) }
        do {
            try copy(fd: fd, side.offset, side.count, to: sideFD, path: sideURL.path)
        } catch {
            Sys.removeIfPresent(sideURL.path)
            throw RepairIssue("the document was repaired (its original is kept as \(keptAs ?? "?")), but its partial PDF could not be written to \(sideURL.lastPathComponent): \(error)")
        }
        return sideURL.lastPathComponent
    }

    /// Metadata for a document whose own is lost: the id and title its newest kept version
    /// had, else the id the history gives content with this PDF (`pdfKey`: its CRC-32 and
    /// size, as in ``DocumentReader/contentKey``) and that id's newest kept title, else a new
    /// id and the file's name; its dates from the file.
    func fallbackMetadata(for url: URL, size st: FileStatus, pdfKey: String? = nil) -> DocumentMetadata {
        let store = VersionStore(library: library)
        var kept = (try? store.versions(of: url))?.first { $0.documentID != nil }
        var id = kept?.documentID
        if id == nil, let pdfKey {
            id = DocumentHistory(library: library).log.read().filter { $0.key.hasSuffix("-" + pdfKey) }.max { $0.at < $1.at }?.documentID
            kept = id.flatMap { id in (try? store.records())?.last { $0.documentID == id && $0.title != nil } }
        }
        let date = Date(timeIntervalSince1970: st.modifiedSeconds.rounded(.down))
        let title = kept?.title ?? (ConflictName(fileName: url.lastPathComponent).original as NSString).deletingPathExtension
        return DocumentMetadata(id: id.flatMap(UUID.init(uuidString:)) ?? UUID(), title: title, created: date, modified: date, pageCount: 0)
    }

    /// The damaged file open for reading (a regular file only), and its state.
    static func openDamaged(_ url: URL) throws -> (Int32, FileStatus) {
        do {
            let fd = try RegularFile.openForReading(url.path)
            do { return (fd, try Sys.fstat(fd, path: url.path)) } catch {
                Sys.close(fd)
                throw ArchiveError(.system(error), path: url.path)
            }
        } catch {
            throw RepairIssue("cannot be read (\(error))")
        }
    }

    /// A bare PDF where a document should be: wrapped into a document, the PDF byte for
    /// byte, with the id and title its kept versions or history give (else from the name).
    func wrap(_ url: URL, path: String, identity: FileIdentity?, options: RepairOptions) throws -> RepairAction {
        let (fd, st) = try Self.openDamaged(url)
        defer { Sys.close(fd) }
        let size = st.size
        let crc = ZipEvidence.crc(fd: fd, 0, size) ?? 0
        var metadata = fallbackMetadata(for: url, size: st, pdfKey: DocumentReader.pdfKey(crc32: crc, size: size))
        metadata.pdfHash = try FileHash.sha256(fd: fd, path: url.path)
        do {
            metadata.pageCount = try PDFDocument(fileDescriptor: fd, path: path).pageCount
        } catch {
            throw RepairIssue("a bare PDF that cannot be read as a PDF (\(error)); left as it is: take it out, fix it with a PDF tool, and import it")
        }
        var action = RepairAction(path: path, action: .wrap,
                                  detail: "a bare PDF wrapped into a document, the PDF byte for byte: \"\(metadata.title)\", id \(metadata.id.uuidString), \(metadata.pageCount) page\(metadata.pageCount == 1 ? "" : "s")")
        action.keptAs = try write(metadata, pdfFile: url, to: url, expecting: identity, reason: "before repair (a bare PDF wrapped)", dryRun: options.dryRun)
        return action
    }

    /// Nothing recoverable: with `--from-version`, the newest kept version that verifies.
    private func fromVersion(_ url: URL, path: String, options: RepairOptions) throws -> RepairAction {
        let store = VersionStore(library: library)
        let candidate = try store.versions(of: url).first { record in
            (try? DocumentReader(path: store.objectURL(record).path).verifyContents()) != nil
        }
        guard let candidate else {
            throw RepairIssue("nothing recoverable (no intact metadata.json), and no good version of it is kept; the file is left as it is")
        }
        guard options.fromVersion else {
            throw RepairIssue("nothing recoverable (no intact metadata.json); `yiana repair --from-version` puts back its newest good version, \(candidate.shortID) from \(candidate.keptAt)")
        }
        var action = RepairAction(path: path, action: .fromVersion, detail: "put back version \(candidate.shortID) (\(candidate.reason))")
        guard !options.dryRun else { return action }
        action.keptAs = try store.restore(candidate, to: url)?.shortID
        return action
    }

    /// Copies `count` bytes from `offset` of `fd` to the file open as `out`, and syncs it.
    static func copy(fd: Int32, _ offset: UInt64, _ count: UInt64, to out: Int32, path: String) throws(SystemError) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var done: UInt64 = 0
        while done < count {
            let n = try Sys.pread(fd, buffer, Int(min(1 << 20, count - done)), offset + done, path: path)
            if n == 0 { break }
            try Sys.writeAll(out, buffer, n, path: path)
            done += UInt64(n)
        }
        try Sys.fsync(out, path: path)
    }

    /// Copies `count` bytes from `offset` of `fd` to a new file at `url` (never replacing one).
    static func copy(fd: Int32, _ offset: UInt64, _ count: UInt64, to url: URL) throws(SystemError) {
        try Sys.closeAfter(try Sys.open(url.path, [.writeOnly, .create, .exclusive])) { out throws(SystemError) in
            try copy(fd: fd, offset, count, to: out, path: url.path)
        }
    }
}

import Foundation
import YianaArchive
import YianaPDF
#if canImport(Glibc)
import Glibc
#endif

/// An entry's bytes as some piece of evidence locates them.
struct EntryEvidence {
    let name: String
    /// Where its local header is (or should be).
    let headerOffset: UInt64
    let dataOffset: UInt64
    let size: UInt64
    let method: UInt16
    let crc: UInt32
    /// Where the evidence came from, for the report.
    let source: String
}

extension Repairer {
    /// Rebuilds a document whose ZIP structure is damaged from the evidence the file holds.
    func salvage(_ url: URL, path: String, identity: FileIdentity?, options: RepairOptions) throws -> RepairAction {
        let (fd, st) = try Self.openDamaged(url)
        defer { close(fd) }
        let size = UInt64(st.st_size)
        let directory = Self.centralDirectoryEvidence(fd: fd, size: size)
        let evidence = directory.entries + Self.localHeaderChain(fd: fd, size: size) + Self.localHeaderEvidence(fd: fd, size: size)

        /// The entries named `name` whose bytes pass their CRC, best evidence first.
        func intact(_ name: String) -> [EntryEvidence] {
            evidence.filter { $0.name == name && $0.method == 0 && $0.dataOffset + $0.size <= size && Self.crc(fd: fd, $0.dataOffset, $0.size) == $0.crc }
        }
        func bytes(_ entry: EntryEvidence) -> Data? {
            Self.read(fd: fd, entry.dataOffset, Int(min(entry.size, DocumentReader.metadataLimit))).map { Data($0) }
        }
        // Of several intact metadata.json (a duplicate name), the first that reads.
        let metadataCandidates = intact("metadata.json")
        let metadataEntry = metadataCandidates.first { bytes($0).flatMap { try? DocumentMetadata(jsonData: $0, file: path) } != nil } ?? metadataCandidates.first
        let metadataBytes = metadataEntry.flatMap(bytes)
        let pdfEntry = intact("content.pdf").first
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
        let others = Set(evidence.map(\.name)).subtracting(["metadata.json", "content.pdf", "format.json"])
        if !others.isEmpty {
            notes.append("left out \(others.sorted().map { "\"\($0)\"" }.joined(separator: ", ")) (not part of a document; still in the original, kept in the version store)")
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
            let next = (evidence.map(\.headerOffset) + directory.starts).filter { $0 > partial.dataOffset }.min() ?? size
            let available = min(partial.size, min(size, next) - partial.dataOffset)
            side = ("\(metadata.title) (partial PDF)", partial.dataOffset, available)
            notes.append("content.pdf is damaged or incomplete: its \(available) bytes go to \(sideMarker) (a new file; nothing is replaced); the document keeps its metadata")
        } else {
            notes.append("no content.pdf found anywhere in the file: the document keeps only its metadata (the whole original is kept in the version store)")
        }
        if let pdfFile {
            let pdfFD = open(pdfFile.path, O_RDONLY | O_CLOEXEC)
            defer { close(pdfFD) }
            metadata.pdfHash = try FileHash.sha256(fd: pdfFD, path: pdfFile.path)
            if let pages = try? PDFDocument(path: pdfFile.path).pageCount { metadata.pageCount = pages }
        } else {
            metadata.pdfHash = nil
        }
        let folder = url.deletingLastPathComponent()
        var detail = notes.joined(separator: "; ")
        if let side, options.dryRun {
            detail = detail.replacingOccurrences(of: sideMarker, with: DocumentNaming.freeSideName(for: side.title, extension: "pdf", in: folder))
        }
        var action = RepairAction(path: path, action: "salvage", detail: detail)
        action.keptAs = try write(metadata, pdfFile: pdfFile, to: url, expecting: identity, reason: "before repair (salvage)", dryRun: options.dryRun)
        // Once the document is safe: the partial PDF beside it, in a file of its own that
        // never replaces one (the name is the one it really got).
        if let side, !options.dryRun {
            let (sideURL, sideFD) = try DocumentNaming.createSideFile(for: side.title, extension: "pdf", in: folder)
            defer { close(sideFD) }
            do {
                try Self.copy(fd: fd, side.offset, side.count, to: sideFD, path: sideURL.path)
            } catch {
                unlink(sideURL.path)
                throw RepairIssue("the document was repaired (its original is kept as \(action.keptAs ?? "?")), but its partial PDF could not be written to \(sideURL.lastPathComponent): \(error)")
            }
            action = RepairAction(path: path, action: "salvage", detail: detail.replacingOccurrences(of: sideMarker, with: sideURL.lastPathComponent), keptAs: action.keptAs)
        }
        return action
    }

    /// Metadata for a document whose own is lost: the id and title its newest kept version
    /// had, else the id the history gives content with this PDF (`pdfKey`: its CRC-32 and
    /// size, as in ``DocumentReader/contentKey``) and that id's newest kept title, else a new
    /// id and the file's name; its dates from the file.
    func fallbackMetadata(for url: URL, size st: stat, pdfKey: String? = nil) -> DocumentMetadata {
        let store = VersionStore(library: library)
        var kept = (try? store.versions(of: url))?.first { $0.documentID != nil }
        var id = kept?.documentID
        if id == nil, let pdfKey {
            id = DocumentHistory(library: library).log.read().filter { $0.key.hasSuffix("-" + pdfKey) }.max { $0.at < $1.at }?.documentID
            kept = id.flatMap { id in (try? store.records())?.last { $0.documentID == id && $0.title != nil } }
        }
        let date = Date(timeIntervalSince1970: TimeInterval(st.st_mtim.tv_sec))
        let title = kept?.title ?? (ConflictName(fileName: url.lastPathComponent).original as NSString).deletingPathExtension
        return DocumentMetadata(id: id.flatMap(UUID.init(uuidString:)) ?? UUID(), title: title, created: date, modified: date, pageCount: 0)
    }

    /// The damaged file open for reading (a regular file only), and its state.
    static func openDamaged(_ url: URL) throws -> (Int32, stat) {
        let fd: Int32
        do {
            fd = try RegularFile.openForReading(url.path)
        } catch {
            throw RepairIssue("cannot be read (\(error))")
        }
        var st = stat()
        fstat(fd, &st)
        return (fd, st)
    }

    /// A bare PDF where a document should be: wrapped into a document, the PDF byte for
    /// byte, with the id and title its kept versions or history give (else from the name).
    func wrap(_ url: URL, path: String, identity: FileIdentity?, options: RepairOptions) throws -> RepairAction {
        let (fd, st) = try Self.openDamaged(url)
        defer { close(fd) }
        let size = UInt64(st.st_size)
        let crc = Self.crc(fd: fd, 0, size) ?? 0
        var metadata = fallbackMetadata(for: url, size: st, pdfKey: DocumentReader.pdfKey(crc32: crc, size: size))
        metadata.pdfHash = try FileHash.sha256(fd: fd, path: url.path)
        do {
            metadata.pageCount = try PDFDocument(fileDescriptor: fd, path: path).pageCount
        } catch {
            throw RepairIssue("a bare PDF that cannot be read as a PDF (\(error)); left as it is: take it out, fix it with a PDF tool, and import it")
        }
        var action = RepairAction(path: path, action: "wrap",
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
        var action = RepairAction(path: path, action: "from-version", detail: "put back version \(candidate.shortID) (\(candidate.reason))")
        guard !options.dryRun else { return action }
        action.keptAs = try store.restore(candidate, to: url)?.shortID
        return action
    }

    // MARK: Evidence

    /// Entries as the central directory describes them, read leniently (it may be damaged),
    /// located by their local headers' lengths even when a local signature is overwritten;
    /// and where the directory (and its end record) start.
    static func centralDirectoryEvidence(fd: Int32, size: UInt64) -> (entries: [EntryEvidence], starts: [UInt64]) {
        let shape = ZipShape.read(fd: fd, size: size)
        guard let eocd = shape.endOfCentralDirectory, let record = read(fd: fd, eocd, 22), record.count == 22 else { return ([], []) }
        let cdSize = UInt64(le32(record, 12)), cdOffset = UInt64(le32(record, 16))
        var found: [EntryEvidence] = []
        var starts = [eocd]
        for shift in Set([0, shape.junkBefore]) {
            guard cdOffset + shift + cdSize <= size, cdSize < 1 << 22, let directory = read(fd: fd, cdOffset + shift, Int(cdSize)) else { continue }
            if directory.count >= 4, le32(directory, 0) == 0x0201_4B50 { starts.append(cdOffset + shift) }
            var position = 0
            while position + 46 <= directory.count, le32(directory, position) == 0x0201_4B50 {
                let nameLength = Int(le16(directory, position + 28)), extra = Int(le16(directory, position + 30)), comment = Int(le16(directory, position + 32))
                guard position + 46 + nameLength <= directory.count else { break }
                let name = String(decoding: directory[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
                let local = UInt64(le32(directory, position + 42)) + shift
                // Local lengths when its header is there (signature or not), else the central ones.
                var dataOffset = local + 30 + UInt64(nameLength)
                if let header = read(fd: fd, local, 30), header.count == 30, Int(le16(header, 26)) == nameLength {
                    dataOffset += UInt64(le16(header, 28))
                }
                found.append(EntryEvidence(name: name, headerOffset: local, dataOffset: dataOffset, size: UInt64(le32(directory, position + 20)),
                                           method: le16(directory, position + 10), crc: le32(directory, position + 16), source: "central directory"))
                position += 46 + nameLength + extra + comment
            }
        }
        return (found, starts)
    }

    /// Entries found by walking the local headers from the first one, each entry's sizes
    /// giving where the next header is: this finds a header whose signature is overwritten
    /// even when the central directory is gone too.
    static func localHeaderChain(fd: Int32, size: UInt64) -> [EntryEvidence] {
        guard let first = read(fd: fd, 0, Int(min(size, 1 << 16))),
              let start = (0..<max(0, first.count - 3)).first(where: { first[$0] == 0x50 && first[$0 + 1] == 0x4B && first[$0 + 2] == 0x03 && first[$0 + 3] == 0x04 }) else {
            return []
        }
        var found: [EntryEvidence] = []
        var offset = UInt64(start)
        while offset + 30 <= size, found.count < 16, let header = read(fd: fd, offset, 30), header.count == 30 {
            let nameLength = Int(le16(header, 26)), extra = Int(le16(header, 28))
            guard nameLength > 0, nameLength < 256, let nameBytes = read(fd: fd, offset + 30, nameLength), nameBytes.count == nameLength,
                  nameBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { break }
            let dataOffset = offset + 30 + UInt64(nameLength + extra)
            let entrySize = UInt64(le32(header, 18))
            found.append(EntryEvidence(name: String(decoding: nameBytes, as: UTF8.self), headerOffset: offset, dataOffset: dataOffset,
                                       size: entrySize, method: le16(header, 8), crc: le32(header, 14),
                                       source: "local header at offset \(offset) (by the chain of local headers)"))
            offset = dataOffset + entrySize
        }
        return found
    }

    /// Entries found by scanning the bytes forward for local headers.
    static func localHeaderEvidence(fd: Int32, size: UInt64) -> [EntryEvidence] {
        var found: [EntryEvidence] = []
        let chunk = 1 << 20
        var offset: UInt64 = 0
        while offset < size {
            guard let bytes = read(fd: fd, offset, chunk + 3), bytes.count >= 4 else { break }
            var i = 0
            while i + 3 < bytes.count {
                if bytes[i] == 0x50, bytes[i + 1] == 0x4B, bytes[i + 2] == 0x03, bytes[i + 3] == 0x04,
                   let header = read(fd: fd, offset + UInt64(i), 30), header.count == 30 {
                    let nameLength = Int(le16(header, 26)), extra = Int(le16(header, 28))
                    if nameLength > 0, nameLength < 256, let nameBytes = read(fd: fd, offset + UInt64(i) + 30, nameLength) {
                        found.append(EntryEvidence(name: String(decoding: nameBytes, as: UTF8.self), headerOffset: offset + UInt64(i),
                                                   dataOffset: offset + UInt64(i) + 30 + UInt64(nameLength + extra),
                                                   size: UInt64(le32(header, 18)), method: le16(header, 8), crc: le32(header, 14),
                                                   source: "local header at offset \(offset + UInt64(i))"))
                    }
                }
                i += 1
            }
            offset += UInt64(chunk)
        }
        return found
    }

    static func read(fd: Int32, _ offset: UInt64, _ count: Int) -> [UInt8]? {
        guard count >= 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: count)
        let n = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, count, off_t(offset)) }
        guard n >= 0 else { return nil }
        buffer.removeLast(count - n)
        return buffer
    }

    static func crc(fd: Int32, _ offset: UInt64, _ count: UInt64) -> UInt32? {
        var crc: UInt32 = 0
        var done: UInt64 = 0
        while done < count {
            guard let bytes = read(fd: fd, offset + done, Int(min(1 << 20, count - done))), !bytes.isEmpty else { return nil }
            crc = bytes.withUnsafeBytes { ZipCRC.update(crc, $0) }
            done += UInt64(bytes.count)
        }
        return crc
    }

    /// Copies `count` bytes from `offset` of `fd` to the file open as `out`, and syncs it.
    static func copy(fd: Int32, _ offset: UInt64, _ count: UInt64, to out: Int32, path: String) throws {
        var done: UInt64 = 0
        while done < count {
            guard let bytes = read(fd: fd, offset + done, Int(min(1 << 20, count - done))), !bytes.isEmpty else { break }
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { Glibc.write(out, $0.baseAddress! + written, bytes.count - written) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw SystemError("write", path: path, errno: errno)
                }
                written += n
            }
            done += UInt64(bytes.count)
        }
        guard fsync(out) == 0 else { throw SystemError("fsync", path: path, errno: errno) }
    }

    /// Copies `count` bytes from `offset` of `fd` to a new file at `url` (never replacing one).
    static func copy(fd: Int32, _ offset: UInt64, _ count: UInt64, to url: URL) throws {
        let out = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw SystemError("create", path: url.path, errno: errno) }
        defer { close(out) }
        try copy(fd: fd, offset, count, to: out, path: url.path)
    }

    static func le16(_ b: [UInt8], _ at: Int) -> UInt16 { UInt16(b[at]) | UInt16(b[at + 1]) << 8 }
    static func le32(_ b: [UInt8], _ at: Int) -> UInt32 { UInt32(le16(b, at)) | UInt32(le16(b, at + 2)) << 16 }
}

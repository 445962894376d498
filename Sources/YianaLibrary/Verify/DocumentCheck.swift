import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

/// The checks of one document file, from its bytes' shape to its PDF.
struct DocumentCheck {
    let url: URL
    let path: String

    /// The codes of what is wrong with the file at `path` as a document on its own (not
    /// counting notices); empty when it passes verify.
    static func damage(at path: String) -> [ProblemCode] {
        DocumentCheck(url: URL(fileURLWithPath: path), path: path).problems().filter { !$0.isNotice }.map(\.code)
    }

    /// What a check has found so far.
    private struct Findings {
        let path: String
        var problems: [VerifyProblem] = []

        mutating func add(_ code: ProblemCode, _ message: String) {
            problems.append(VerifyProblem(code: code, message: "\(path): \(message)"))
        }

        /// An archive error, by its code and sentence (once per code).
        mutating func add(_ error: ArchiveError, shape: ZipShape) {
            if let (code, message) = DocumentCheck.describe(error, shape: shape), !has(code) { add(code, message) }
        }

        func has(_ code: ProblemCode) -> Bool { problems.contains { $0.code == code } }
    }

    func problems() -> [VerifyProblem] {
        var found = Findings(path: path)
        guard let shape = checkShape(&found) else { return found.problems }
        let reader: DocumentReader
        do {
            reader = try DocumentReader(path: url.path)
        } catch let error as ArchiveError {
            found.add(error, shape: shape)
            return found.problems
        } catch {
            found.add(.unreadable, "\(error)")
            return found.problems
        }
        checkLayout(reader, &found)
        let metadata = checkMetadata(reader, shape: shape, &found)
        checkPDF(reader, metadata: metadata, shape: shape, &found)
        return found.problems
    }

    /// The file's shape: junk before or after the archive. Nil when the file cannot be opened.
    private func checkShape(_ found: inout Findings) -> ZipShape? {
        let fd: Int32
        do {
            fd = try RegularFile.openForReading(url.path)
        } catch {
            if error.kind == .fileNotFound, path.contains("\u{FFFD}") {
                // A name typed with bytes that are not UTF-8 reaches the tool already replaced.
                found.add(.nameNotUTF8, "no file by this name: the name given is not valid UTF-8 (shown with \u{FFFD}), and yiana cannot open a file by such a name; rename it to UTF-8 (`convmv -f latin1 -t utf8 --notest`), then run the command again.")
            } else {
                found.add(error, shape: ZipShape(kind: .notAZip))
            }
            return nil
        }
        let size = (try? Sys.fstat(fd, path: url.path).size) ?? 0
        let shape = ZipShape.read(fd: fd, size: size)
        Sys.close(fd)
        if shape.kind == .complete, shape.junkBefore > 0 {
            found.add(.junkBefore, "\(shape.junkBefore) bytes of something else precede the archive (at offset 0).")
        }
        if shape.kind == .complete, shape.junkAfter > 0 {
            found.add(.junkAfter, "\(shape.junkAfter) bytes follow the end of the archive (from offset \(size - shape.junkAfter)).")
        }
        return shape
    }

    /// Every byte accounted for (entries, central directory and end records tile the
    /// file), and the format.
    private func checkLayout(_ reader: DocumentReader, _ found: inout Findings) {
        for gap in reader.gaps {
            if gap.offset == 0, found.has(.junkBefore) { continue }
            if gap.offset + gap.length == reader.fileSize, found.has(.junkAfter) { continue }
            found.add(.unaccountedBytes, "\(gap.length) byte\(gap.length == 1 ? "" : "s") at offset \(gap.offset) belong to no entry, central directory or end record (inserted data, or appended data behind a copied end record).")
        }
        switch reader.format {
        case .legacySeparator, .legacyMetadataOnly, .legacySeparatorNoPDF:
            found.add(.legacyFormat, "in the \(reader.format.description); `yiana repair` migrates it to the current format.")
        case .zip(let version, let hasFormatFile):
            if !hasFormatFile { found.add(.formatMissing, "has no format.json (read as version 2); `yiana repair` rebuilds it.") }
            if version > DocumentFormat.currentVersion { found.add(.formatUnknownVersion, "announces format version \(version), newer than this toolkit knows (2).") }
        }
    }

    /// Every entry's bytes and the metadata, as the app would read it.
    private func checkMetadata(_ reader: DocumentReader, shape: ZipShape, _ found: inout Findings) -> DocumentMetadata? {
        let metadata: DocumentMetadata?
        do {
            metadata = try reader.verifyContents()
        } catch let error as ArchiveError {
            found.add(error, shape: shape)
            metadata = try? reader.metadata()
        } catch {
            found.add(.unreadable, "\(error)")
            metadata = nil
        }
        guard let metadata else { return nil }
        for refusal in metadata.appRefusals {
            found.add(.metadataAppRefuses, "metadata.json: \(refusal): the app cannot open this document; `yiana repair` rewrites it as the app reads it.")
        }
        for date in metadata.suspiciousDates {
            found.problems.append(VerifyProblem(code: .dateSuspicious, message: "\(path): metadata.json: \(date).", isNotice: true))
        }
        return metadata
    }

    /// The PDF: its hash and page count against the metadata, and that poppler opens it.
    private func checkPDF(_ reader: DocumentReader, metadata: DocumentMetadata?, shape: ZipShape, _ found: inout Findings) {
        guard reader.pdf != nil else { return }
        do {
            let (bytes, actual) = try metadata?.pdfHash == nil ? (reader.pdfBytes(), "") : reader.pdfBytesAndSHA256()
            if let hash = metadata?.pdfHash, actual != hash.lowercased() {
                found.add(.pdfHashMismatch, "pdfHash in the metadata is not the SHA-256 of content.pdf.")
            }
            let pdf = try bytes.document(source: path)
            if let metadata, metadata.pageCount != pdf.pageCount {
                found.add(.pageCountMismatch, "metadata says \(metadata.pageCount) page\(metadata.pageCount == 1 ? "" : "s"), the PDF has \(pdf.pageCount).")
            }
        } catch let error as PDFError {
            switch error.kind {
            case .encrypted: found.add(.pdfEncrypted, "the PDF is encrypted with a password.")
            case .damaged(let detail) where detail == "it has no pages": found.add(.pdfNoPages, "the PDF has no pages.")
            case .damaged(let detail): found.add(.pdfDamaged, "the PDF is damaged (\(detail)).")
            case .notAPDF: found.add(.pdfDamaged, "content.pdf is not a PDF.")
            case .unreadable(let detail): found.add(.unreadable, "the PDF cannot be read (\(detail)).")
            }
        } catch let error as ArchiveError {
            found.add(error, shape: shape)
        } catch {
            found.add(.unreadable, "\(error)")
        }
    }

    /// The code and sentence for an archive error, told apart using the file's shape.
    static func describe(_ error: ArchiveError, shape: ZipShape) -> (ProblemCode, String)? {
        switch error.kind {
        case .fileNotFound: return (.notFound, "no such file.")
        case .notADocument(let reason): return (.notAZip, "not a ZIP archive nor a legacy document (\(reason)).")
        case .notARegularFile(let reason): return (.notARegularFile, "\(reason).")
        case .barePDF: return (.barePDF, "a bare PDF, not a document archive (the app's markup code wrote such files in 2025); `yiana repair` wraps it into a document, the PDF byte for byte.")
        case .zip(let code, _) where code == .notAZip:
            switch shape.kind {
            case .truncated: return (.truncated, "the archive is cut off before its central directory: an interrupted write or sync.")
            case .complete where shape.junkBefore > 0: return nil  // reported as junk-before
            default: return (.notAZip, "not a ZIP archive.")
            }
        case .zip(let code, let message) where code == .inconsistent:
            if shape.junkAfter > 0 || shape.junkBefore > 0 { return nil }
            return (.localHeaderMismatch, "a local header disagrees with the central directory (\(message)).")
        case .zip(_, let message): return (.zipError, "the ZIP archive cannot be read (\(message)).")
        case .centralDirectoryDamaged(let detail): return (.centralDirectoryDamaged, "the central directory is damaged (\(detail)).")
        case .badLocalHeader(let entry): return (.badLocalSignature, "the local header of \(entry) is missing or overwritten.")
        case .damagedStructure(let detail): return (.damagedStructure, "the ZIP structure is damaged (\(detail)).")
        case .crcMismatch(let entry): return (.crcMismatch, "\(entry) does not match its CRC: its bytes are damaged.")
        case .overlappingEntries(let a, let b): return (.overlappingEntries, "entry \(a) overlaps \(b.isEmpty ? "the central directory" : b) (zip-bomb shape).")
        case .duplicateEntry(let a, let b): return (.duplicateNames, "entries \"\(a)\" and \"\(b)\" have the same name.")
        case .unexpectedEntry(let name): return (.unexpectedEntry, "unexpected entry \"\(name)\".")
        case .pathTraversal(let name), .absolutePath(let name): return (.unsafeEntryName, "hostile entry name \"\(name)\".")
        case .symlinkEntry(let name): return (.symlinkEntry, "entry \"\(name)\" is a symbolic link.")
        case .encryptedEntry(let name): return (.encryptedEntry, "entry \"\(name)\" is encrypted.")
        case .storedSizeMismatch(let name, let c, let u): return (.storedSizeMismatch, "stored entry \(name) declares \(c) and \(u) bytes.")
        case .unsupportedCompression(let name, let method): return (.unsupportedCompression, "entry \(name) uses compression method \(method).")
        case .entryTooLarge(let name, _): return (.entryTooLarge, "\(name) is implausibly large.")
        case .implausibleEntry(let name, let reason): return (.implausibleEntry, "\(name) \(reason); refused before inflating it.")
        case .entryTruncated(let name): return (.truncated, "\(name) ends before its declared size.")
        case .missingMetadata: return (.metadataMissing, "the archive has no metadata.json.")
        case .missingPDF: return nil
        case .invalidFormatFile(let detail): return (.formatInvalid, "format.json is damaged (\(detail)).")
        case .unsupportedFormatVersion(let version): return (.formatUnknownVersion, "announces format version \(version).")
        case .metadata(let metadata):
            switch metadata.problem {
            case .notJSON, .notAnObject: return (.metadataNotJSON, "metadata.json is not a JSON object.")
            default: return (.metadataBadKey, "metadata.json: \(metadata.description.components(separatedBy: ": ").dropFirst().joined(separator: ": "))")
            }
        case .system(let error): return (.unreadable, error.description)
        case .lockTimeout, .alreadyExists, .sourceChanged, .documentChanged, .verificationFailed: return (.unreadable, error.description)
        }
    }
}

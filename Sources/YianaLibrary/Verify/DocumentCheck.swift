import Foundation
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

    func problems() -> [VerifyProblem] {
        var problems: [VerifyProblem] = []
        func add(_ code: ProblemCode, _ message: String) { problems.append(VerifyProblem(code: code, message: "\(path): \(message)")) }

        let fd: Int32
        do {
            fd = try RegularFile.openForReading(url.path)
        } catch {
            if error.kind == .fileNotFound, path.contains("\u{FFFD}") {
                // A name typed with bytes that are not UTF-8 reaches the tool already replaced.
                add(.nameNotUTF8, "no file by this name: the name given is not valid UTF-8 (shown with \u{FFFD}), and yiana cannot open a file by such a name; rename it to UTF-8 (`convmv -f latin1 -t utf8 --notest`), then run the command again.")
                return problems
            }
            if let (code, message) = Self.describe(error, shape: ZipShape(kind: .notAZip)) { add(code, message) }
            return problems
        }
        let size = (try? Sys.fstat(fd, path: url.path).size) ?? 0
        let shape = ZipShape.read(fd: fd, size: size)
        Sys.close(fd)
        if shape.kind == .complete, shape.junkBefore > 0 {
            add(.junkBefore, "\(shape.junkBefore) bytes of something else precede the archive (at offset 0).")
        }
        if shape.kind == .complete, shape.junkAfter > 0 {
            add(.junkAfter, "\(shape.junkAfter) bytes follow the end of the archive (from offset \(size - shape.junkAfter)).")
        }

        let reader: DocumentReader
        do {
            reader = try DocumentReader(path: url.path)
        } catch let error as ArchiveError {
            if let (code, message) = Self.describe(error, shape: shape), !problems.contains(where: { $0.code == code }) {
                add(code, message)
            }
            return problems
        } catch {
            add(.unreadable, "\(error)")
            return problems
        }

        // Every byte accounted for: entries, central directory and end records tile the file.
        for gap in reader.gaps {
            if gap.offset == 0, problems.contains(where: { $0.code == .junkBefore }) { continue }
            if gap.offset + gap.length == reader.fileSize, problems.contains(where: { $0.code == .junkAfter }) { continue }
            add(.unaccountedBytes, "\(gap.length) byte\(gap.length == 1 ? "" : "s") at offset \(gap.offset) belong to no entry, central directory or end record (inserted data, or appended data behind a copied end record).")
        }

        switch reader.format {
        case .legacySeparator, .legacyMetadataOnly, .legacySeparatorNoPDF:
            add(.legacyFormat, "in the \(reader.format.description); `yiana repair` migrates it to the current format.")
        case .zip(let version, let hasFormatFile):
            if !hasFormatFile { add(.formatMissing, "has no format.json (read as version 2); `yiana repair` rebuilds it.") }
            if version > DocumentFormat.currentVersion { add(.formatUnknownVersion, "announces format version \(version), newer than this toolkit knows (2).") }
        }

        let metadata: DocumentMetadata?
        do {
            metadata = try reader.verifyContents()
        } catch let error as ArchiveError {
            if let (code, message) = Self.describe(error, shape: shape), !problems.contains(where: { $0.code == code }) { add(code, message) }
            metadata = try? reader.metadata()
        } catch {
            add(.unreadable, "\(error)")
            metadata = nil
        }

        if let metadata {
            for refusal in metadata.appRefusals {
                add(.metadataAppRefuses, "metadata.json: \(refusal): the app cannot open this document; `yiana repair` rewrites it as the app reads it.")
            }
            for date in metadata.suspiciousDates {
                problems.append(VerifyProblem(code: .dateSuspicious, message: "\(path): metadata.json: \(date).", isNotice: true))
            }
        }

        guard reader.pdf != nil else { return problems }
        do {
            let (bytes, actual) = try metadata?.pdfHash == nil ? (reader.pdfBytes(), "") : reader.pdfBytesAndSHA256()
            if let hash = metadata?.pdfHash {
                if actual != hash.lowercased() { add(.pdfHashMismatch, "pdfHash in the metadata is not the SHA-256 of content.pdf.") }
            }
            let pdf = try bytes.document(source: path)
            if let metadata, metadata.pageCount != pdf.pageCount {
                add(.pageCountMismatch, "metadata says \(metadata.pageCount) page\(metadata.pageCount == 1 ? "" : "s"), the PDF has \(pdf.pageCount).")
            }
        } catch let error as PDFError {
            switch error.kind {
            case .encrypted: add(.pdfEncrypted, "the PDF is encrypted with a password.")
            case .damaged(let detail) where detail == "it has no pages": add(.pdfNoPages, "the PDF has no pages.")
            case .damaged(let detail): add(.pdfDamaged, "the PDF is damaged (\(detail)).")
            case .notAPDF: add(.pdfDamaged, "content.pdf is not a PDF.")
            case .unreadable(let detail): add(.unreadable, "the PDF cannot be read (\(detail)).")
            }
        } catch let error as ArchiveError {
            if let (code, message) = Self.describe(error, shape: shape), !problems.contains(where: { $0.code == code }) { add(code, message) }
        } catch {
            add(.unreadable, "\(error)")
        }
        return problems
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

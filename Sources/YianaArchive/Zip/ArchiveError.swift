internal import CZip
import YianaSystem

/// A libzip error code (`ZIP_ER_*`), with names for the ones the toolkit acts on.
public struct ZipErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let seek = ZipErrorCode(rawValue: ZIP_ER_SEEK)
    public static let read = ZipErrorCode(rawValue: ZIP_ER_READ)
    public static let write = ZipErrorCode(rawValue: ZIP_ER_WRITE)
    public static let crc = ZipErrorCode(rawValue: ZIP_ER_CRC)
    public static let noEntry = ZipErrorCode(rawValue: ZIP_ER_NOENT)
    public static let exists = ZipErrorCode(rawValue: ZIP_ER_EXISTS)
    public static let open = ZipErrorCode(rawValue: ZIP_ER_OPEN)
    public static let zlib = ZipErrorCode(rawValue: ZIP_ER_ZLIB)
    public static let memory = ZipErrorCode(rawValue: ZIP_ER_MEMORY)
    public static let compressionNotSupported = ZipErrorCode(rawValue: ZIP_ER_COMPNOTSUPP)
    public static let prematureEOF = ZipErrorCode(rawValue: ZIP_ER_EOF)
    public static let notAZip = ZipErrorCode(rawValue: ZIP_ER_NOZIP)
    public static let inconsistent = ZipErrorCode(rawValue: ZIP_ER_INCONS)
    public static let encryptionNotSupported = ZipErrorCode(rawValue: ZIP_ER_ENCRNOTSUPP)

    public var description: String { "ZIP_ER \(rawValue)" }
}

/// Why a file could not be read or written as a `.yianazip` document.
public struct ArchiveError: Error, Sendable, Equatable, CustomStringConvertible {
    /// True when the file may well be fine and reading it failed for a reason outside it
    /// (an I/O error, a lock held too long, memory): trying again later may succeed.
    public var isEnvironmental: Bool {
        switch kind {
        case .system, .lockTimeout: true
        case .zip(let code, _): [.seek, .read, .write, .open, .memory].contains(code)
        default: false
        }
    }

    public enum Kind: Sendable, Equatable {
        /// Nothing at the path.
        case fileNotFound
        /// Neither a ZIP archive nor one of the legacy formats.
        case notADocument(reason: String)
        /// A bare PDF where the document archive should be (the app's markup code wrote such
        /// files in 2025): the user's PDF, to be wrapped into a document, not damage to it.
        case barePDF
        /// Not a regular file (a folder, a FIFO, a symbolic link…): never opened for reading.
        case notARegularFile(reason: String)
        /// libzip refused the archive or an entry (not a ZIP, truncated, inconsistent, …).
        case zip(ZipErrorCode, message: String)
        /// The ZIP structure is damaged in a way the cases below do not name.
        case damagedStructure(String)
        /// The central directory is missing, out of bounds or damaged.
        case centralDirectoryDamaged(String)
        /// An entry's local header signature is missing or overwritten.
        case badLocalHeader(entry: String)
        /// An entry's bytes do not match its CRC-32: the data is damaged.
        case crcMismatch(entry: String)
        /// An entry the format does not have.
        case unexpectedEntry(String)
        /// An entry name that climbs out of the archive (`..`).
        case pathTraversal(String)
        /// An entry name that is an absolute path.
        case absolutePath(String)
        /// Two entries whose names are equal, also after case folding and Unicode NFC.
        case duplicateEntry(String, String)
        /// An entry stored as a symbolic link.
        case symlinkEntry(String)
        /// An encrypted entry.
        case encryptedEntry(String)
        /// A stored (uncompressed) entry whose compressed and uncompressed sizes differ.
        case storedSizeMismatch(String, compressed: UInt64, uncompressed: UInt64)
        /// Entries whose bytes overlap each other or the central directory (zip-bomb shape).
        case overlappingEntries(String, String)
        /// An entry compressed with a method libzip cannot read.
        case unsupportedCompression(String, method: UInt16)
        /// An entry larger than the toolkit will hold in memory (metadata, format).
        case entryTooLarge(String, limit: UInt64)
        /// An entry whose declared or actual inflated size or ratio is absurd for its kind (a
        /// compression bomb), or whose first inflated bytes are not what its kind starts with;
        /// refused before much of it is inflated.
        case implausibleEntry(String, reason: String)
        /// An entry that ended before its declared size.
        case entryTruncated(String)
        /// There is no `metadata.json`.
        case missingMetadata
        /// The document has no PDF.
        case missingPDF
        /// `format.json` is not the small JSON object the app writes.
        case invalidFormatFile(String)
        /// `format.json` announces a version this toolkit does not know.
        case unsupportedFormatVersion(Int)
        /// `metadata.json` is damaged.
        case metadata(MetadataError)
        /// A system call failed.
        case system(SystemError)
        /// Another process holds the document's lock longer than the wait allowed.
        case lockTimeout(seconds: Double)
        /// A new document was to be created, but a file of that name appeared first.
        case alreadyExists
        /// The source file changed while it was being written into the document.
        case sourceChanged(String)
        /// The document was written by another process after this one read it: a replacing
        /// write that expected what it had read refuses to overwrite the newer version.
        case documentChanged
        /// The freshly written temporary archive failed verification; nothing was replaced.
        case verificationFailed(String)
    }

    public let kind: Kind
    /// The document (or temporary file) concerned.
    public let path: String

    public init(_ kind: Kind, path: String) {
        self.kind = kind
        self.path = path
    }

    /// A stable short code for scripts (`--json`), to match in a `catch`: `catch ArchiveError.Code.lockTimeout`.
    public var code: Code {
        switch kind {
        case .fileNotFound: .notFound
        case .notADocument: .notADocument
        case .notARegularFile: .notARegularFile
        case .barePDF: .barePDF
        case .zip(let code, _): code == .notAZip ? .notAZip : .zipError
        case .damagedStructure: .damagedStructure
        case .centralDirectoryDamaged: .centralDirectoryDamaged
        case .badLocalHeader: .badLocalSignature
        case .crcMismatch: .crcMismatch
        case .unexpectedEntry: .unexpectedEntry
        case .pathTraversal: .pathTraversal
        case .absolutePath: .absolutePath
        case .duplicateEntry: .duplicateEntry
        case .symlinkEntry: .symlinkEntry
        case .encryptedEntry: .encryptedEntry
        case .storedSizeMismatch: .storedSizeMismatch
        case .overlappingEntries: .overlappingEntries
        case .unsupportedCompression: .unsupportedCompression
        case .entryTooLarge: .entryTooLarge
        case .implausibleEntry: .implausibleEntry
        case .entryTruncated: .entryTruncated
        case .missingMetadata: .missingMetadata
        case .missingPDF: .missingPDF
        case .invalidFormatFile: .invalidFormatJSON
        case .unsupportedFormatVersion: .unsupportedFormatVersion
        case .metadata: .badMetadata
        case .system: .systemError
        case .lockTimeout: .lockTimeout
        case .alreadyExists: .alreadyExists
        case .sourceChanged: .sourceChanged
        case .documentChanged: .documentChanged
        case .verificationFailed: .verificationFailed
        }
    }

    /// The kind of an archive error as a stable string (`"lock-timeout"`), with a named
    /// constant for each (swift-system's `Errno` and GRDB's `ResultCode` are the model).
    public struct Code: StableCode {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let notFound = Code(rawValue: "not-found")
        public static let notADocument = Code(rawValue: "not-a-document")
        public static let notARegularFile = Code(rawValue: "not-a-regular-file")
        public static let barePDF = Code(rawValue: "bare-pdf")
        public static let notAZip = Code(rawValue: "not-a-zip")
        public static let zipError = Code(rawValue: "zip-error")
        public static let damagedStructure = Code(rawValue: "damaged-structure")
        public static let centralDirectoryDamaged = Code(rawValue: "central-directory-damaged")
        public static let badLocalSignature = Code(rawValue: "bad-local-signature")
        public static let crcMismatch = Code(rawValue: "crc-mismatch")
        public static let unexpectedEntry = Code(rawValue: "unexpected-entry")
        public static let pathTraversal = Code(rawValue: "path-traversal")
        public static let absolutePath = Code(rawValue: "absolute-path")
        public static let duplicateEntry = Code(rawValue: "duplicate-entry")
        public static let symlinkEntry = Code(rawValue: "symlink-entry")
        public static let encryptedEntry = Code(rawValue: "encrypted-entry")
        public static let storedSizeMismatch = Code(rawValue: "stored-size-mismatch")
        public static let overlappingEntries = Code(rawValue: "overlapping-entries")
        public static let unsupportedCompression = Code(rawValue: "unsupported-compression")
        public static let entryTooLarge = Code(rawValue: "entry-too-large")
        public static let implausibleEntry = Code(rawValue: "implausible-entry")
        public static let entryTruncated = Code(rawValue: "entry-truncated")
        public static let missingMetadata = Code(rawValue: "missing-metadata")
        public static let missingPDF = Code(rawValue: "missing-pdf")
        public static let invalidFormatJSON = Code(rawValue: "invalid-format-json")
        public static let unsupportedFormatVersion = Code(rawValue: "unsupported-format-version")
        public static let badMetadata = Code(rawValue: "bad-metadata")
        public static let systemError = Code(rawValue: "system-error")
        public static let lockTimeout = Code(rawValue: "lock-timeout")
        public static let alreadyExists = Code(rawValue: "already-exists")
        public static let sourceChanged = Code(rawValue: "source-changed")
        public static let documentChanged = Code(rawValue: "document-changed")
        public static let verificationFailed = Code(rawValue: "verification-failed")

        /// `catch ArchiveError.Code.alreadyExists`: true when `error` is an ``ArchiveError`` with this code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? ArchiveError)?.code == code
        }
    }

    public var description: String {
        switch kind {
        case .fileNotFound:
            return "\(path): no such file."
        case .notADocument(let reason):
            return "\(path): not a Yiana document (\(reason))."
        case .notARegularFile(let reason):
            return "\(path): \(reason)."
        case .barePDF:
            return "\(path): a bare PDF, not a document archive (the app's markup code wrote such files in 2025); `yiana repair` wraps it into a document, the PDF byte for byte."
        case .zip(let code, let message):
            let hint = code == .notAZip
                ? " It may be truncated by an interrupted write or sync; keep the file and check for an older copy."
                : ""
            return "\(path): the ZIP archive cannot be read: \(message).\(hint)"
        case .damagedStructure(let detail):
            return "\(path): the ZIP structure is damaged (\(detail))."
        case .centralDirectoryDamaged(let detail):
            return "\(path): the ZIP central directory is damaged (\(detail))."
        case .badLocalHeader(let entry):
            return "\(path): the local header of \(entry) is missing or overwritten."
        case .crcMismatch(let entry):
            return "\(path): \(entry) is damaged: its bytes do not match the checksum stored in the archive."
        case .unexpectedEntry(let name):
            return "\(path): unexpected entry \"\(name)\"; a Yiana document holds only metadata.json, content.pdf and format.json."
        case .pathTraversal(let name):
            return "\(path): hostile entry name \"\(name)\" points outside the archive (\"..\"); refusing to read it."
        case .absolutePath(let name):
            return "\(path): hostile entry name \"\(name)\" is an absolute path; refusing to read it."
        case .duplicateEntry(let first, let second):
            return first == second
                ? "\(path): the entry \"\(first)\" appears twice; which one is meant is ambiguous, refusing to guess."
                : "\(path): entries \"\(first)\" and \"\(second)\" differ only in case or Unicode form; refusing to guess."
        case .symlinkEntry(let name):
            return "\(path): entry \"\(name)\" is a symbolic link, which a Yiana document never contains."
        case .encryptedEntry(let name):
            return "\(path): entry \"\(name)\" is encrypted, which a Yiana document never is."
        case .storedSizeMismatch(let name, let compressed, let uncompressed):
            return "\(path): stored entry \"\(name)\" declares \(compressed) bytes stored but \(uncompressed) bytes of content."
        case .overlappingEntries(let first, let second):
            return "\(path): entry \"\(first)\" overlaps \(second.isEmpty ? "the central directory" : "entry \"\(second)\"") (zip-bomb shape); refusing to read it."
        case .unsupportedCompression(let name, let method):
            return "\(path): entry \"\(name)\" uses compression method \(method), which cannot be read."
        case .entryTooLarge(let name, let limit):
            return "\(path): \(name) is larger than \(limit >> 20) MiB; a real one is far smaller, so the file is refused."
        case .implausibleEntry(let name, let reason):
            return "\(path): \(name) \(reason); refusing to inflate it."
        case .entryTruncated(let name):
            return "\(path): \(name) ends before its declared size; the archive is truncated or damaged."
        case .missingMetadata:
            return "\(path): the archive has no metadata.json."
        case .missingPDF:
            return "\(path): the document has no PDF yet."
        case .invalidFormatFile(let detail):
            return "\(path): format.json is damaged (\(detail))."
        case .unsupportedFormatVersion(let version):
            return "\(path): format version \(version) is newer than this toolkit knows (2); update yiana-tools. The file is left unchanged."
        case .metadata(let error):
            return error.description
        case .system(let error) where error.code == .noSpace || error.code == .quotaExceeded:
            return "\(path): not enough free space on the disk (\(error.code)); nothing was written. Free some space and try again."
        case .system(let error):
            return error.description
        case .lockTimeout(let seconds):
            return "\(path): another process has been using this document for over \(seconds.formatted2) s; try again when it has finished."
        case .alreadyExists:
            return "\(path): a file of this name already exists."
        case .sourceChanged(let source):
            return "\(path): \(source) changed while it was being copied into the document; nothing was written. Try again once it is complete."
        case .documentChanged:
            return "\(path): another process wrote this document while this change was being prepared; nothing was written, so its newer version stays. Run the command again."
        case .verificationFailed(let detail):
            return "\(path): the newly written archive did not verify (\(detail)); the existing document was left untouched."
        }
    }
}

extension Double {
    var formatted2: String {
        let rounded = (self * 100).rounded() / 100
        return rounded == rounded.rounded() ? String(Int(rounded)) : String(rounded)
    }
}

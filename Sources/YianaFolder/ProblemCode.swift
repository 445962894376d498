import YianaArchive

/// What `verify` found wrong with a file: a stable code for scripts, written in JSON as its
/// string (`"crc-mismatch"`). Code compares with the named constants, never with a literal
/// (GRDB's `ResultCode` is the model).
public struct ProblemCode: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    // The file as a file
    public static let notFound = ProblemCode(rawValue: "not-found")
    public static let unreadable = ProblemCode(rawValue: "unreadable")
    public static let notARegularFile = ProblemCode(rawValue: "not-a-regular-file")
    public static let nameNotUTF8 = ProblemCode(rawValue: "name-not-utf8")
    public static let barePDF = ProblemCode(rawValue: "bare-pdf")

    // The ZIP structure
    public static let notAZip = ProblemCode(rawValue: "not-a-zip")
    public static let truncated = ProblemCode(rawValue: "truncated")
    public static let junkBefore = ProblemCode(rawValue: "junk-before")
    public static let junkAfter = ProblemCode(rawValue: "junk-after")
    public static let unaccountedBytes = ProblemCode(rawValue: "unaccounted-bytes")
    public static let localHeaderMismatch = ProblemCode(rawValue: "local-header-mismatch")
    public static let zipError = ProblemCode(rawValue: "zip-error")
    public static let centralDirectoryDamaged = ProblemCode(rawValue: "central-directory-damaged")
    public static let badLocalSignature = ProblemCode(rawValue: "bad-local-signature")
    public static let damagedStructure = ProblemCode(rawValue: "damaged-structure")
    public static let crcMismatch = ProblemCode(rawValue: "crc-mismatch")
    public static let overlappingEntries = ProblemCode(rawValue: "overlapping-entries")
    public static let duplicateNames = ProblemCode(rawValue: "duplicate-names")
    public static let unexpectedEntry = ProblemCode(rawValue: "unexpected-entry")
    public static let unsafeEntryName = ProblemCode(rawValue: "unsafe-entry-name")
    public static let symlinkEntry = ProblemCode(rawValue: "symlink-entry")
    public static let encryptedEntry = ProblemCode(rawValue: "encrypted-entry")
    public static let storedSizeMismatch = ProblemCode(rawValue: "stored-size-mismatch")
    public static let unsupportedCompression = ProblemCode(rawValue: "unsupported-compression")
    public static let entryTooLarge = ProblemCode(rawValue: "entry-too-large")
    public static let implausibleEntry = ProblemCode(rawValue: "implausible-entry")

    // The format
    public static let legacyFormat = ProblemCode(rawValue: "legacy-format")
    public static let formatMissing = ProblemCode(rawValue: "format-missing")
    public static let formatInvalid = ProblemCode(rawValue: "format-invalid")
    public static let formatUnknownVersion = ProblemCode(rawValue: "format-unknown-version")

    // The metadata
    public static let metadataMissing = ProblemCode(rawValue: "metadata-missing")
    public static let metadataNotJSON = ProblemCode(rawValue: "metadata-not-json")
    public static let metadataBadKey = ProblemCode(rawValue: "metadata-bad-key")
    public static let metadataAppRefuses = ProblemCode(rawValue: "metadata-app-refuses")
    public static let duplicateID = ProblemCode(rawValue: "duplicate-id")

    // The PDF
    public static let pdfHashMismatch = ProblemCode(rawValue: "pdf-hash-mismatch")
    public static let pageCountMismatch = ProblemCode(rawValue: "page-count-mismatch")
    public static let pdfEncrypted = ProblemCode(rawValue: "pdf-encrypted")
    public static let pdfNoPages = ProblemCode(rawValue: "pdf-no-pages")
    public static let pdfDamaged = ProblemCode(rawValue: "pdf-damaged")

    // Beside the document
    public static let leftoverTempFile = ProblemCode(rawValue: "leftover-temp-file")

    // The app's companion files (.addresses, .letters, the work list)
    public static let companionNotJSON = ProblemCode(rawValue: "companion-not-json")
    public static let companionAppRefuses = ProblemCode(rawValue: "companion-app-refuses")
    public static let companionConflictCopy = ProblemCode(rawValue: "companion-conflict-copy")
    public static let companionOrphan = ProblemCode(rawValue: "orphan")
    public static let injectNameUnreadable = ProblemCode(rawValue: "inject-name-unreadable")

    // Notices: not damage
    public static let stillArriving = ProblemCode(rawValue: "still-arriving")
    /// A damaged document of which this machine's keeper holds a good state (a notice beside
    /// the damage: what restores it).
    public static let goodStateKept = ProblemCode(rawValue: "good-state-kept")
    public static let notDownloaded = ProblemCode(rawValue: "not-downloaded")
    public static let dateSuspicious = ProblemCode(rawValue: "date-suspicious")
}

import YianaArchive

/// What `repair` did (or would do, or could not do) to a file: a stable name for scripts,
/// written in JSON as its string (`"salvage"`). Code compares with the named constants.
public struct RepairActionKind: StableCode {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The metadata or format rewritten, the PDF kept byte for byte.
    public static let rewrite = RepairActionKind(rawValue: "rewrite")
    /// A legacy document rewritten in the current format.
    public static let migrate = RepairActionKind(rawValue: "migrate")
    /// A copy that shared another document's id given its own.
    public static let newID = RepairActionKind(rawValue: "new-id")
    /// A damaged ZIP rebuilt from the evidence it holds.
    public static let salvage = RepairActionKind(rawValue: "salvage")
    /// The newest kept version that verifies put back.
    public static let fromVersion = RepairActionKind(rawValue: "from-version")
    /// A bare PDF wrapped into a document.
    public static let wrap = RepairActionKind(rawValue: "wrap")
    /// A temporary file holding a complete document: offered, or (`--take-temp`) put in place.
    public static let offerTemp = RepairActionKind(rawValue: "offer-temp")
    public static let takeTemp = RepairActionKind(rawValue: "take-temp")
    /// A temporary file left by an interrupted write, removed (kept in the version store first).
    public static let removeTemp = RepairActionKind(rawValue: "remove-temp")
    /// Conflict copies of the library's own state folded in.
    public static let tidyState = RepairActionKind(rawValue: "tidy-state")
    /// Left for later: the file is still arriving.
    public static let wait = RepairActionKind(rawValue: "wait")
    /// Nothing done (with the reason).
    public static let none = RepairActionKind(rawValue: "none")
}

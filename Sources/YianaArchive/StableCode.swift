/// A stable string code for scripts (`--json` writes the string), compared in code only
/// with its named constants, never with a literal: ``ArchiveError/Code``, `ProblemCode`,
/// `RepairActionKind`.
public protocol StableCode: RawRepresentable, Hashable, Codable, Sendable, CustomStringConvertible where RawValue == String {
    init(rawValue: String)
}

extension StableCode {
    public var description: String { rawValue }
}

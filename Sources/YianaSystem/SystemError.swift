#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed system call, with the file it was about and the C `errno`.
///
/// Match it in a `catch` by its code, as with swift-system's `Errno`:
/// `catch SystemError.Code.exists { … }`.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What the toolkit was doing, e.g. "open", "fsync".
    public let operation: String
    /// The file or folder concerned.
    public let path: String
    /// The C `errno` value.
    public let errno: Int32

    public init(_ operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public init(_ operation: String, path: String, code: Code) {
        self.init(operation, path: path, errno: code.rawValue)
    }

    /// The error's code, to compare with the named ones.
    public var code: Code { Code(rawValue: errno) }

    public var description: String {
        "\(operation) failed for \(path): \(String(cString: strerror(errno)))"
    }

    /// True when the error says the file or folder does not exist.
    public var isNotFound: Bool { code == .notFound || code == .notADirectory }

    /// A C `errno` value, with names for the ones the toolkit acts on.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }

        public static let notPermitted = Code(rawValue: EPERM)
        public static let notFound = Code(rawValue: ENOENT)
        public static let interrupted = Code(rawValue: EINTR)
        public static let ioError = Code(rawValue: EIO)
        public static let badDescriptor = Code(rawValue: EBADF)
        public static let wouldBlock = Code(rawValue: EAGAIN)
        public static let accessDenied = Code(rawValue: EACCES)
        public static let exists = Code(rawValue: EEXIST)
        public static let crossDevice = Code(rawValue: EXDEV)
        public static let notADirectory = Code(rawValue: ENOTDIR)
        public static let isADirectory = Code(rawValue: EISDIR)
        public static let invalidArgument = Code(rawValue: EINVAL)
        public static let noSpace = Code(rawValue: ENOSPC)
        public static let quotaExceeded = Code(rawValue: EDQUOT)
        public static let tooManyLinks = Code(rawValue: EMLINK)
        public static let noSuchSystemCall = Code(rawValue: ENOSYS)
        public static let loop = Code(rawValue: ELOOP)
        public static let notSupported = Code(rawValue: ENOTSUP)
        public static let operationNotSupported = Code(rawValue: EOPNOTSUPP)
        public static let noSuchProcess = Code(rawValue: ESRCH)

        public var description: String { String(cString: strerror(rawValue)) }

        /// `catch SystemError.Code.exists`: true when `error` is a ``SystemError`` with this code.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SystemError)?.code == code
        }
    }
}

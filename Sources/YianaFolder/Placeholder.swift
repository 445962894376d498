import Foundation

/// An evicted iCloud document's stub: `Folder/.Name.yianazip.icloud` (older systems:
/// `.Name.yianazip-tef.icloud`), a small property list naming the document and its size.
/// The document still exists; its bytes are in the cloud.
///
/// It lives here, not beside the cloud code that writes stubs (YianaSync), because every
/// command that walks a library (verify, repair, index, the scanner) must know a stub.
public struct Placeholder: Sendable, Equatable {
    /// `NSURLNameKey`: the document's file name.
    public let documentName: String
    /// `NSURLFileSizeKey`: the document's size in bytes.
    public let documentSize: UInt64
    /// `NSURLFileResourceTypeKey`, e.g. `NSURLFileResourceTypeRegular`.
    public let resourceType: String?

    /// A stub is a few hundred bytes; anything far larger is not one.
    public static let maximumStubSize = 64 << 10

    public init(documentName: String, documentSize: UInt64, resourceType: String? = "NSURLFileResourceTypeRegular") {
        self.documentName = documentName
        self.documentSize = documentSize
        self.resourceType = resourceType
    }

    /// Reads a stub file, binary or XML property list, as iCloud writes it on any system.
    /// - Throws: ``PlaceholderError`` naming the file.
    public init(stubAt url: URL) throws {
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        guard let size = attributes?[.size] as? Int else { throw PlaceholderError.unreadable(url.path) }
        guard size <= Self.maximumStubSize, let data = FileManager.default.contents(atPath: url.path) else {
            throw PlaceholderError.notAStub(url.path, "\(size) bytes, far more than a stub holds")
        }
        try self.init(stubData: data, source: url.path)
    }

    /// Reads stub bytes; `source` is named in errors.
    /// - Throws: ``PlaceholderError``.
    public init(stubData data: Data, source: String) throws {
        let object: Any
        do {
            object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw PlaceholderError.notAStub(source, "not a property list")
        }
        guard let dictionary = object as? [String: Any] else { throw PlaceholderError.notAStub(source, "not a dictionary") }
        guard let name = dictionary["NSURLNameKey"] as? String, !name.isEmpty else {
            throw PlaceholderError.notAStub(source, "no NSURLNameKey")
        }
        let size: UInt64
        switch dictionary["NSURLFileSizeKey"] {
        case let number as NSNumber where number.int64Value >= 0: size = number.uint64Value
        case let number as Int where number >= 0: size = UInt64(number)
        default: throw PlaceholderError.notAStub(source, "no NSURLFileSizeKey")
        }
        self.init(documentName: name, documentSize: size, resourceType: dictionary["NSURLFileResourceTypeKey"] as? String)
    }

    /// The stub's bytes as iCloud writes them: a binary property list.
    public func stubData() throws -> Data {
        var dictionary: [String: Any] = ["NSURLNameKey": documentName, "NSURLFileSizeKey": NSNumber(value: documentSize)]
        if let resourceType { dictionary["NSURLFileResourceTypeKey"] = resourceType }
        return try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
    }

    /// Where the stub of the document at `documentURL` goes: `.Name.yianazip.icloud` beside it.
    public static func stubURL(for documentURL: URL) -> URL {
        documentURL.deletingLastPathComponent().appendingPathComponent(PlaceholderName.stubNames(for: documentURL.lastPathComponent)[0])
    }

    /// The stub that stands for `documentURL`, if there is one (current or older form).
    public static func existingStub(for documentURL: URL) -> URL? {
        PlaceholderName.stubNames(for: documentURL.lastPathComponent)
            .map { documentURL.deletingLastPathComponent().appendingPathComponent($0) }
            .first { FileManager.default.fileExists(atPath: $0.path) }
    }
}

/// A file that should be a placeholder and is not one.
public enum PlaceholderError: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case notAStub(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): "\(path): the placeholder cannot be read."
        case .notAStub(let path, let why): "\(path): not an iCloud placeholder (\(why))."
        }
    }
}

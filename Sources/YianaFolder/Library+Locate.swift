import Foundation
import YianaArchive
import YianaSystem

/// What a document argument on the command line names.
public enum DocumentLocation: Sendable, Equatable {
    /// A document file.
    case document(URL)
    /// An evicted document: only its iCloud stub is here.
    case placeholder(stub: URL, document: URL)
    /// Nothing: the message lists where the toolkit looked.
    case notFound(tried: [String])
}

extension Library {
    /// Finds the document an argument names: a path (relative to the current folder), else a
    /// path inside the library; `.yianazip` may be left off. An evicted document is found
    /// through its placeholder, never mistaken for a missing one.
    public func locate(_ argument: String, currentDirectory: String = FileManager.default.currentDirectoryPath) -> DocumentLocation {
        let base = URL(fileURLWithPath: currentDirectory, isDirectory: true)
        var candidates = [URL(fileURLWithPath: argument, relativeTo: base).standardizedFileURL]
        if !argument.hasPrefix("/") { candidates.append(root.appendingPathComponent(argument).standardizedFileURL) }
        if !argument.lowercased().hasSuffix(".\(Self.documentExtension)") {
            candidates += candidates.map { $0.appendingPathExtension(Self.documentExtension) }
        }
        let dataless = DatalessFiles.paths(in: self)
        // Whatever is there, links and FIFOs too (not followed, never opened here): the
        // command that reads it says what it is.
        for url in candidates where FileKind.at(url.path) != .missing {
            if let original = PlaceholderName.documentName(forStub: url.lastPathComponent) {
                return .placeholder(stub: url, document: url.deletingLastPathComponent().appendingPathComponent(original))
            }
            if let relative = relativePath(of: url), dataless.contains(relative) {
                return .placeholder(stub: url, document: url)
            }
            return .document(url)
        }
        for url in candidates {
            let folder = url.deletingLastPathComponent()
            for stub in PlaceholderName.stubNames(for: url.lastPathComponent)
            where FileManager.default.fileExists(atPath: folder.appendingPathComponent(stub).path) {
                return .placeholder(stub: folder.appendingPathComponent(stub), document: url)
            }
        }
        return .notFound(tried: candidates.map(\.path))
    }
}

/// Why an argument names no document that can be read now.
public struct DocumentLookupError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(description: String) {
        self.description = description
    }
}

extension Library {
    /// The document an argument (a path, or a path inside the library; `.yianazip` may be
    /// left off) names, as a regular file that is here now.
    /// - Throws: ``DocumentLookupError`` saying what was looked for: not found, only a
    ///   placeholder (not downloaded), or not a regular file.
    public func document(named argument: String) throws -> URL {
        switch locate(argument) {
        case .document(let url):
            if let refusal = FileKind.at(url.path).refusal { throw DocumentLookupError(description: "\(url.path): \(refusal).") }
            return url
        case .placeholder(let stub, let document):
            let size = (try? Placeholder(stubAt: stub)).map { ", \(readableByteCount($0.documentSize)) in the cloud" } ?? ""
            throw DocumentLookupError(description: "\(document.path) is not downloaded: only its iCloud placeholder \(stub.lastPathComponent) is here\(size). Download it first.")
        case .notFound(let tried):
            throw DocumentLookupError(description: "no document \"\(argument)\" (looked for \(tried.joined(separator: ", "))).")
        }
    }
}

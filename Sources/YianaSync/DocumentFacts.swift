import Foundation
import YianaArchive
import YianaLibrary

/// What conflict detection knows about one file, read from its metadata and its ZIP
/// central directory only: the PDF is never read.
public struct DocumentFacts: Sendable {
    public enum State: Sendable, Equatable {
        case document
        /// An evicted placeholder: its bytes are in the cloud.
        case notDownloaded
        /// The archive or its metadata cannot be read.
        case damaged(String)
    }

    public let url: URL
    /// Relative to the library.
    public let path: String
    public let state: State
    public let documentID: String?
    public let title: String?
    public let created: Date?
    public let modified: Date?
    /// Identifies the content: the CRC-32s of `metadata.json` and `content.pdf` and the
    /// PDF's size. Equal keys mean equal metadata and PDF bytes.
    public let contentKey: String?
    /// What the file name says (for a placeholder, the name of the document it stands for).
    public let name: ConflictName

    /// Reads the facts of `item`; never throws (an unreadable file is `.damaged`).
    public static func read(_ item: LibraryItem, in library: Library) -> DocumentFacts {
        let path = library.documentPath(of: item) ?? item.documentFilePath
        let name = ConflictName(fileName: item.documentName)
        guard item.kind == .document else {
            return DocumentFacts(url: item.url, path: path, state: .notDownloaded, documentID: nil, title: nil,
                                 created: nil, modified: nil, contentKey: nil, name: name)
        }
        do {
            let reader = try DocumentReader(path: item.path, checks: .layout)
            let metadata = try reader.metadata()
            return DocumentFacts(url: item.url, path: path, state: .document, documentID: metadata.id.uuidString,
                                 title: metadata.title, created: metadata.created, modified: metadata.modified,
                                 contentKey: reader.contentKey, name: name)
        } catch {
            return DocumentFacts(url: item.url, path: path, state: .damaged("\(error)"), documentID: nil, title: nil,
                                 created: nil, modified: nil, contentKey: nil, name: name)
        }
    }
}

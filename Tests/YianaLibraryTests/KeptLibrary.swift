import Foundation
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// A library in a temporary folder and its keeper, whose store is in another (by copies).
struct KeptLibrary {
    let folder: TemporaryFolder, store: TemporaryFolder
    let place: KeeperPlace
    let keeper: Keeper
    var root: URL { folder.url }

    /// `mode`: how the keeper keeps (by copy unless asked: a link shares the library's inode).
    init(mode: KeeperMode = .copy) throws {
        folder = try TemporaryFolder()
        store = try TemporaryFolder()
        place = KeeperPlace(folder: store.url.appendingPathComponent("k"), mode: mode, reason: "test")
        keeper = Keeper(library: try Library(root: folder.url), place: place)
    }

    /// Writes a one-page document at `name` (relative) as the app does, its page reading
    /// `text` (its name when nil).
    @discardableResult
    func document(_ name: String, text: String? = nil) throws -> URL {
        let url = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: UUID(), title: name, pageCount: 1), pdf: .data(simplePDF([text ?? name])))
        return url
    }
}

import Foundation
import Testing
import YianaArchive
import YianaSystem
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// Where the keeper lives when the library is on another file system than this machine's
/// state folder: /dev/shm (a tmpfs) stands for a second disk here.
/// True where /dev/shm is a writable file system of its own.
private let secondFileSystem: Bool = {
    guard let shm = try? Sys.stat("/dev/shm"), let tmp = try? Sys.stat(NSTemporaryDirectory()) else { return false }
    return shm.isDirectory && shm.device != tmp.device && Sys.canWrite("/dev/shm")
}()

@Suite("keeper: where the store lives", .enabled(if: secondFileSystem, "/dev/shm is not a file system of its own here"))
struct KeeperPlaceTests {
    /// A library on the other file system, removed at the end with what the keeper made for it.
    final class OtherDisk {
        let library: URL
        init() throws {
            library = URL(fileURLWithPath: "/dev/shm/yiana-test-\(UUID().uuidString)/Library")
            try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        }
        deinit {
            try? FileManager.default.removeItem(at: library.deletingLastPathComponent())
            // The keepers' top folder too, once no other test's store is in it.
            let top = "/dev/shm/.yiana-keeper-\(Sys.userID)"
            if (try? FileManager.default.contentsOfDirectory(atPath: top))?.isEmpty == true { try? FileManager.default.removeItem(atPath: top) }
        }
    }

    @Test func aLibraryOnAnotherDiskIsKeptByLinkAtTheTopOfItsFileSystem() async throws {
        let disk = try OtherDisk()
        let library = try Library(root: disk.library)
        let url = library.root.appendingPathComponent("Doc.yianazip")
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: UUID(), title: "Doc", pageCount: 1), pdf: .data(simplePDF(["Doc"])))
        let keeper = Keeper(library: library)
        defer { try? FileManager.default.removeItem(at: keeper.place.folder) }
        #expect(keeper.place.folder.path.hasPrefix("/dev/shm/.yiana-keeper-\(Sys.userID)/"))
        #expect(keeper.place.mode == .link && keeper.place.reason.contains("top of the library's file system"))
        let scan = try LibraryScanner.scan(library)
        let report = await keeper.look(scan, arrival: Arrival(scan: scan, window: 0))
        #expect(report.kept == 1 && report.bytesCopied == 0)
        let object = try #require(keeper.records(path: "Doc.yianazip", documentID: nil).first).sha256
        #expect(FileStamp(path: keeper.objectURL(object).path)?.inode == FileStamp(path: url.path)?.inode)
    }

    @Test func aStoreNamedOnAnotherDiskCopies() async throws {
        let disk = try OtherDisk()
        let store = try TemporaryFolder()
        let library = try Library(root: disk.library)
        let url = library.root.appendingPathComponent("Doc.yianazip")
        try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: UUID(), title: "Doc", pageCount: 1), pdf: .data(simplePDF(["Doc"])))
        let keeper = Keeper(library: library, environment: [KeeperPlace.environmentVariable: store.url.path])
        #expect(keeper.place.folder.path.hasPrefix(store.url.path) && keeper.place.mode == .copy)
        #expect(keeper.place.reason.contains("another file system"))
        let scan = try LibraryScanner.scan(library)
        let report = await keeper.look(scan, arrival: Arrival(scan: scan, window: 0))
        let size = try Data(contentsOf: url).count
        #expect(report.kept == 1 && report.bytesCopied == UInt64(size))
    }
}

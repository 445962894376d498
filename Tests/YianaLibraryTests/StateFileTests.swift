import Foundation
import Testing
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

@Suite("state files")
struct StateFileTests {
    struct Value: Codable, Sendable, Equatable {
        var records: [String: Int] = [:]
    }

    /// A state file that is there but cannot be read (here a link to itself; in the field an
    /// I/O error) is never taken for none: an update throws and leaves it as it is, rather than
    /// write back its own change alone with every other record lost (the sync state of every
    /// other document, after one `evict` met a read error).
    @Test func anUnreadableFileIsNeverOverwrittenAsIfThereWereNone() throws {
        let folder = try TemporaryFolder()
        let file = StateFile<Value>(url: folder.url.appendingPathComponent("state.json"))
        try file.update(initial: Value()) { $0.records = ["a": 1, "b": 2] }
        #expect(file.load()?.records == ["a": 1, "b": 2])
        let saved = folder.url.appendingPathComponent("saved.json")
        try FileManager.default.moveItem(at: file.url, to: saved)
        try FileManager.default.createSymbolicLink(atPath: file.url.path, withDestinationPath: file.url.path)
        #expect(throws: VersionStoreError.self) { try file.update(initial: Value()) { $0.records["c"] = 3 } }
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: file.url.path)) == file.url.path, "left as it was")
        // Readable again: every record is there, and the update goes through.
        try FileManager.default.removeItem(at: file.url)
        try FileManager.default.moveItem(at: saved, to: file.url)
        try file.update(initial: Value()) { $0.records["c"] = 3 }
        #expect(file.load()?.records == ["a": 1, "b": 2, "c": 3])
    }
}

import Foundation
import Testing
import YianaLibrary
import YianaTestSupport

/// A library's id: made once, kept in its synced `.yiana/library-id`, the same for every
/// process; when two machines each made one before syncing, all take the smallest.
@Suite("library identity")
struct LibraryIdentityTests {
    @Test func madeOnceAndKept() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        #expect(LibraryIdentity.ids(in: library).isEmpty)
        let key = try LibraryIdentity.key(of: library)
        #expect(UUID(uuidString: key) != nil && key == key.lowercased())
        #expect(try LibraryIdentity.key(of: library) == key)
        #expect(try String(contentsOfFile: folder.path(".yiana/library-id"), encoding: .utf8) == key + "\n")
        // Many processes' worth of threads at once on a new library: one id for all.
        let other = try TemporaryFolder()
        let fresh = try Library(root: other.url)
        let keys = try (0..<16).map { _ in fresh }.concurrentMap { try LibraryIdentity.key(of: $0) }
        #expect(Set(keys).count == 1 && LibraryIdentity.ids(in: fresh).count == 1)
    }

    @Test func copiesOfTwoMachinesAgreeOnTheSmallest() throws {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        try FileManager.default.createDirectory(atPath: folder.path(".yiana"), withIntermediateDirectories: true)
        try "f0e1d2c3-0000-4000-8000-000000000002\n".write(toFile: folder.path(".yiana/library-id"), atomically: true, encoding: .utf8)
        try "0A1B2C3D-0000-4000-8000-000000000001\n".write(toFile: folder.path(".yiana/library-id.sync-conflict-20261124-101010-ABCDEF7"), atomically: true, encoding: .utf8)
        try "not an id\n".write(toFile: folder.path(".yiana/library-id (Bob's conflicted copy 2026-11-24)"), atomically: true, encoding: .utf8)
        #expect(try LibraryIdentity.key(of: library) == "0a1b2c3d-0000-4000-8000-000000000001")
        #expect(LibraryIdentity.ids(in: library).count == 2)
    }
}

extension Array where Element: Sendable {
    /// The results of `transform` on every element, run on several threads at once.
    func concurrentMap<T: Sendable>(_ transform: @escaping @Sendable (Element) throws -> T) throws -> [T] {
        let results = Results<T>(count: count)
        DispatchQueue.concurrentPerform(iterations: count) { index in
            results.set(index, Result { try transform(self[index]) })
        }
        return try results.values.map { try $0!.get() }
    }
}

final class Results<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var values: [Result<T, any Error>?]
    init(count: Int) { values = Array(repeating: nil, count: count) }
    func set(_ index: Int, _ value: Result<T, any Error>) { lock.withLock { values[index] = value } }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

/// Over random two-device histories, resolving never loses a byte: every version that was
/// in the library before a resolve is afterwards in the library or in the version store.
/// `YIANA_SOAK_ROUNDS` makes it longer (Scripts/soak/conflicts.sh).
@Suite("nothing lost")
struct NothingLostPropertyTests {
    static let rounds = Int(ProcessInfo.processInfo.environment["YIANA_SOAK_ROUNDS"] ?? "") ?? 12

    /// Conflict-name suffixes of every scheme, added to a document's name.
    static let copySuffixes = [
        " (Bob's conflicted copy 2026-03-01)", ".sync-conflict-20260301-101010-AB", " (conflicted copy 2026-03-02 101010)",
        "_conflict-20260301-101010", " 2", " (Ann's conflicted copy 2026-03-03) (Bob's conflicted copy 2026-03-04)",
    ]

    @Test(arguments: [1, 2, 3] as [UInt64])
    func resolvingNeverLosesAVersion(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let documents = ["Report", "Scan", "Letter"].map { ($0, UUID()) }
        var seen: [Data] = []  // every version that ever existed, to resurrect old ones

        func write(_ name: String, id: UUID, title: String, replacing: Bool) throws {
            var metadata = DocumentMetadata(id: id, title: title, created: Date(timeIntervalSinceReferenceDate: 1000), pageCount: 1,
                                            tags: ["t\(random.next() % 4)", "t\(random.next() % 4)"])
            metadata.modified = Date(timeIntervalSinceReferenceDate: Double(2000 + random.next() % 5000))
            let pdf = simplePDF(["version \(random.next() % 1000)"])
            let url = folder.url.appendingPathComponent(name)
            if replacing {
                try CoordinatedDocument.replace(at: url.path, metadata: metadata, pdf: .data(pdf))
            } else {
                _ = try? CoordinatedDocument.create(at: url.path, metadata: metadata, pdf: .data(pdf))
            }
            if let data = FileManager.default.contents(atPath: url.path) { seen.append(data) }
        }

        for (name, id) in documents { try write("\(name).yianazip", id: id, title: name, replacing: true) }

        for _ in 0..<Self.rounds {
            // Each device does a few things between two resolves.
            for _ in 0..<(1 + random.next() % 4) {
                let (name, id) = documents[Int(random.next() % UInt64(documents.count))]
                let copyName = name + Self.copySuffixes[Int(random.next() % UInt64(Self.copySuffixes.count))] + ".yianazip"
                switch random.next() % 4 {
                case 0:  // an edit on this device
                    try write("\(name).yianazip", id: id, title: random.next() % 2 == 0 ? name : "\(name) edited", replacing: true)
                case 1:  // the other device's edit arrives as a conflict copy
                    try write(copyName, id: id, title: "\(name) (other device)", replacing: false)
                case 2:  // an identical copy
                    let url = folder.url.appendingPathComponent("\(name).yianazip")
                    try? FileManager.default.copyItem(at: url, to: folder.url.appendingPathComponent(copyName))
                default:  // an old version comes back under a conflict name
                    if let old = seen.randomElement(using: &random) {
                        let url = folder.url.appendingPathComponent(copyName)
                        if !FileManager.default.fileExists(atPath: url.path) { try old.write(to: url) }
                    }
                }
            }
            let before = try Self.hashes(of: library)
            let strategy = ResolveStrategy.allCases[Int(random.next() % 3)]
            _ = try await ConflictResolver(library: library).resolve(ResolveOptions(strategy: strategy))
            let after = try Self.hashes(of: library).union(Self.storedHashes(library))
            let lost = before.subtracting(after)
            #expect(lost.isEmpty, "seed \(seed), strategy \(strategy): \(lost.count) versions lost")
            // And nothing is left unresolved.
            #expect(try await ConflictDetector(library: library).detect().groups.filter(\.needsResolving).isEmpty)
        }
    }

    /// SHA-256 of every document file in the library.
    static func hashes(of library: Library) throws -> Set<String> {
        Set(try LibraryScanner.scan(library.root).filter { $0.kind == .document }.map { item in
            let fd = open(item.url.path, O_RDONLY)
            defer { close(fd) }
            return try FileHash.sha256(fd: fd, path: item.url.path)
        })
    }

    /// The SHA-256 names of the bytes in the version store.
    static func storedHashes(_ library: Library) -> Set<String> {
        let objects = library.root.appendingPathComponent(".yiana/versions/objects")
        let shards = (try? FileManager.default.contentsOfDirectory(atPath: objects.path)) ?? []
        return Set(shards.flatMap { shard in
            ((try? FileManager.default.contentsOfDirectory(atPath: objects.appendingPathComponent(shard).path)) ?? []).filter { $0.count == 64 }
        })
    }
}

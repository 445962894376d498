import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// Temporary files left by interrupted writes: offered, taken, removed, never lost.
extension RepairTests {
    @Test func aDryRunChangesNothingAndTempFilesAreNeverDeleted() async throws {
        let (library, url) = try library()
        var builder = ZipBuilder.document(pdf: Array(pdf))
        builder.entries.removeLast()  // no format.json, and pageCount 1 for 2 pages
        try Data(builder.build()).write(to: url)
        let before = try Data(contentsOf: url)
        try Data("partial".utf8).write(to: folder.url.appendingPathComponent(".Doc.yianazip.yiana-tmp-00112233"))
        var options = RepairOptions()
        options.dryRun = true
        let report = await Repairer(library: library).repair(options: options)
        #expect(report.repaired.count == 1 && report.notRepaired.count == 1)
        #expect(try Data(contentsOf: url) == before)
        #expect(try VersionStore(library: library).records().isEmpty)
        _ = await Repairer(library: library).repair()
        #expect(FileManager.default.fileExists(atPath: folder.path(".Doc.yianazip.yiana-tmp-00112233")))
    }

    /// A complete document written as `name` in the library, with `title`, dated `age` seconds ago.
    func temp(_ name: String, title: String, id: UUID? = nil, age: TimeInterval) throws -> URL {
        let url = folder.url.appendingPathComponent(name)
        let hash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
        var metadata = DocumentMetadata(title: title, pageCount: 2, pdfHash: hash)
        if let id { metadata.id = id }
        let scratch = try TemporaryFolder()
        try CoordinatedDocument.create(at: scratch.path("T.yianazip"), metadata: metadata, pdf: .data(pdf))
        try FileManager.default.moveItem(atPath: scratch.path("T.yianazip"), toPath: url.path)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -age)], ofItemAtPath: url.path)
        return url
    }

    /// Leftovers of Doc.yianazip: two complete temporary files of the toolkit's (the newer one
    /// 60 s old) and an incomplete one of libzip's, `partialAge` seconds old.
    func docTemps(partialAge: TimeInterval = 0) throws -> (older: URL, newer: URL, partial: URL) {
        let older = try temp(".Doc.yianazip.yiana-tmp-AAAAAAAA", title: "Older", age: 600)
        let newer = try temp(".Doc.yianazip.yiana-tmp-BBBBBBBB", title: "Newer", age: 60)
        let partial = folder.url.appendingPathComponent("Doc.yianazip.a1B2c3")
        try Data(try good.prefix(900)).write(to: partial)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -partialAge)], ofItemAtPath: partial.path)
        return (older, newer, partial)
    }

    @Test func theNewestCompleteTempIsOfferedAndTakenOnlyWhenAsked() async throws {
        let (library, url) = try library()
        let (older, newer, partial) = try docTemps()
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.isEmpty)
        #expect(report.offered.map(\.path) == [newer.lastPathComponent])
        #expect(report.offered.first?.detail.contains("--take-temp") == true)
        #expect(Set(report.notRepaired.map(\.path)) == [older.lastPathComponent, partial.lastPathComponent])
        for file in [older, newer, partial] { #expect(FileManager.default.fileExists(atPath: file.path)) }

        // A dry run of the take changes nothing; the take keeps what it replaces.
        _ = try Repairer(library: library).takeTemp(newer, dryRun: true)
        #expect(try DocumentReader(path: url.path).metadata().title == "Doc")
        let taken = try Repairer(library: library).takeTemp(newer)
        #expect(taken.keptAs != nil)
        #expect(try DocumentReader(path: url.path).metadata().title == "Newer")
        #expect(!FileManager.default.fileExists(atPath: newer.path))
        let kept = try VersionStore(library: library).records()
        #expect(kept.contains { $0.title == "Doc" } && kept.contains { $0.title == "Newer" })
        #expect(FileManager.default.fileExists(atPath: older.path) && FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func theAppsUUIDTempFindsItsDocumentByID() async throws {
        let (library, url) = try library()
        let id = try DocumentReader(path: url.path).metadata().id
        let temp = try temp("\(UUID().uuidString).tmp", title: "Edited", id: id, age: 5)
        let report = await Repairer(library: library).repair()
        #expect(report.offered.first?.detail.contains("for Doc.yianazip") == true)
        _ = try Repairer(library: library).takeTemp(temp)
        #expect(try DocumentReader(path: url.path).metadata().title == "Edited")
        await expectClean(library)
    }

    @Test func removeTempsKeepsEachThenRemovesItButNeverOneInUse() async throws {
        let (library, url) = try library()
        let (older, newer, partial) = try docTemps(partialAge: 7200)
        let recent = try temp("Doc.yianazip.z9Y8x7", title: "Recent", age: 120)  // libzip's, perhaps still being written
        let other = try temp(".Other.yianazip.yiana-tmp-DDDDDDDD", title: "Other", age: 60)
        let bytes = try [older, newer, partial, other].map { try Data(contentsOf: $0) }
        var options = RepairOptions()
        options.removeTemps = true

        // A writer of Other.yianazip holds its lock: its temporary file is in use.
        let lock = try DocumentLock(document: folder.path("Other.yianazip"), mode: .exclusive, timeout: 1)
        options.dryRun = true
        let dry = await Repairer(library: library).repair(options: options)
        let removable = Set([older, newer, partial].map(\.lastPathComponent))
        #expect(Set(dry.repaired.map(\.path)) == removable)
        for file in [older, newer, partial, recent, other] { #expect(FileManager.default.fileExists(atPath: file.path)) }
        #expect(try VersionStore(library: library).records().isEmpty)

        options.dryRun = false
        let report = await Repairer(library: library).repair(options: options)
        #expect(Set(report.repaired.map(\.path)) == removable)
        #expect(report.repaired.allSatisfy { $0.action.rawValue == "remove-temp" && $0.keptAs != nil })
        #expect(report.repaired.first { $0.path == newer.lastPathComponent }?.detail.contains("yiana versions restore 'Doc.yianazip'") == true)
        #expect(Set(report.notRepaired.map(\.path)) == [recent.lastPathComponent, other.lastPathComponent])
        #expect(report.notRepaired.first { $0.path == other.lastPathComponent }?.detail.contains("being written now") == true)
        #expect(report.notRepaired.first { $0.path == recent.lastPathComponent }?.detail.contains("minutes ago") == true)
        for file in [older, newer, partial] { #expect(!FileManager.default.fileExists(atPath: file.path)) }
        #expect(FileManager.default.fileExists(atPath: recent.path) && FileManager.default.fileExists(atPath: other.path))
        // Nothing is lost: every removed file's bytes are in the version store.
        let store = VersionStore(library: library)
        let kept = try store.records().map { try Data(contentsOf: store.objectURL($0)) }
        for data in bytes.prefix(3) { #expect(kept.contains(data)) }
        #expect(try DocumentReader(path: url.path).metadata().title == "Doc")
        // The complete one is a version of its document, and can be put back.
        let listed = try store.versions(of: url)
        #expect(Set(listed.compactMap(\.title)).isSuperset(of: ["Older", "Newer"]))
        let newest = try store.version(try #require(report.repaired.first { $0.path == newer.lastPathComponent }?.keptAs), of: url)
        try store.restore(newest, to: url)
        #expect(try DocumentReader(path: url.path).metadata().title == "Newer")

        // Once the writer is done, its temporary file goes too.
        lock.release()
        let after = await Repairer(library: library).repair(options: options)
        #expect(after.repaired.map(\.path) == [other.lastPathComponent])
        #expect(try store.records().contains { try Data(contentsOf: store.objectURL($0)) == bytes[3] })
    }

    @Test func anIncompleteTempIsNeverTaken() throws {
        let (library, url) = try library()
        let partial = folder.url.appendingPathComponent(".Doc.yianazip.yiana-tmp-CCCCCCCC")
        try Data(try good.prefix(2000)).write(to: partial)
        #expect(throws: RepairIssue.self) { try Repairer(library: library).takeTemp(partial) }
        #expect(throws: RepairIssue.self) { try Repairer(library: library).takeTemp(url) }  // not a temp file
        #expect(FileManager.default.fileExists(atPath: partial.path))
        #expect(try DocumentReader(path: url.path).metadata().title == "Doc")
    }

    /// Every class of damage verify reports, made from a good document, and what repair does:
    /// the action, and whether the stored PDF is the original (`pdf`), in a side file
    /// (`side`), or left as it is (`left`, nothing written).
    static let matrix: [(damage: String, action: String, outcome: String)] = [
        ("not-a-zip", "none", "left"),
        ("truncated", "salvage", "side"),
        ("local-header-mismatch", "salvage", "pdf"),
        ("crc-mismatch", "salvage", "side"),
        ("overlapping-entries", "salvage", "pdf"),
        ("duplicate-names", "salvage", "pdf"),
        ("unsafe-entry-name", "salvage", "pdf"),
        ("unexpected-entry", "salvage", "pdf"),
        ("symlink-entry", "salvage", "pdf"),
        ("encrypted-entry", "salvage", "pdf"),
        ("stored-size-mismatch", "salvage", "pdf"),
        ("huge-declared-size", "salvage", "side"),
        ("format-unknown-version", "none", "left"),
        ("pdf-damaged", "none", "left"),
        ("pdf-encrypted", "none", "left"),
    ]
}

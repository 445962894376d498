import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

@Suite("conflict resolution")
struct ConflictResolverTests {
    let id = UUID(uuidString: "BBBBBBBB-0000-4000-8000-000000000002")!

    struct Fixture {
        let folder: TemporaryFolder
        let library: Library
        var store: VersionStore { VersionStore(library: library) }

        func url(_ name: String) -> URL { folder.url.appendingPathComponent(name) }
        func bytes(_ name: String) throws -> Data { try Data(contentsOf: url(name)) }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: url(name).path) }
        func metadata(_ name: String) throws -> DocumentMetadata { try DocumentReader(path: url(name).path).metadata() }
        func stored(_ data: Data) throws -> Bool {
            try store.records().contains { try Data(contentsOf: store.objectURL($0)) == data }
        }
    }

    func fixture(_ documents: [(String, String, [String], String, Double)]) throws -> Fixture {
        let folder = try TemporaryFolder()
        for (name, title, tags, text, modified) in documents {
            var metadata = DocumentMetadata(id: id, title: title, created: Date(timeIntervalSinceReferenceDate: 1000), pageCount: 1, tags: tags)
            metadata.modified = Date(timeIntervalSinceReferenceDate: modified)
            try CoordinatedDocument.create(at: folder.path(name), metadata: metadata, pdf: .data(simplePDF([text])))
        }
        return Fixture(folder: folder, library: try Library(root: folder.url))
    }

    func resolve(_ f: Fixture, _ strategy: ResolveStrategy, dryRun: Bool = false, reassign: Bool = false) async throws -> ResolveReport {
        var options = ResolveOptions(strategy: strategy)
        options.dryRun = dryRun
        options.reassignIDs = reassign
        return try await ConflictResolver(library: f.library).resolve(options)
    }

    @Test func aPlanNeverWritesOverWhatChangedAfterItWasMade() async throws {
        let f = try fixture([("Report.yianazip", "Report", ["a"], "text", 2000),
                             ("Report (Bob's conflicted copy 2026-03-01).yianazip", "Report", ["b"], "text", 3000)])
        let group = try await ConflictDetector(library: f.library).detect().groups[0]
        var plan = try GroupPlan(group: group, library: f.library, options: ResolveOptions(strategy: .merge), now: Date())
        // Another process edits the original between the plan and its execution.
        var edited = try f.metadata("Report.yianazip")
        edited.tags = ["edited elsewhere"]
        try CoordinatedDocument.replace(at: f.url("Report.yianazip").path, metadata: edited, pdf: .data(simplePDF(["text"])))
        let newer = try f.bytes("Report.yianazip")
        #expect { try plan.execute() } throws: { ($0 as? ArchiveError)?.kind == .documentChanged }
        #expect(try f.bytes("Report.yianazip") == newer)
        #expect(f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
        // Run again, it merges what is there now.
        _ = try await resolve(f, .merge)
        #expect(Set(try f.metadata("Report.yianazip").tags) == ["edited elsewhere", "b"])
    }

    /// Edits the original the way another process would: a new tag, a new version of the file.
    static func editElsewhere(_ f: Fixture, tag: String) throws {
        var edited = try f.metadata("Report.yianazip")
        edited.tags.append(tag)
        try CoordinatedDocument.replace(at: f.url("Report.yianazip").path, metadata: edited, pdf: .data(simplePDF(["text"])))
    }

    @Test func aGroupChangedWhileBeingResolvedIsPlannedAgain() async throws {
        let f = try fixture([("Report.yianazip", "Report", ["a"], "text", 2000),
                             ("Report (Bob's conflicted copy 2026-03-01).yianazip", "Report", ["b"], "text", 3000)])
        var resolver = ConflictResolver(library: f.library)
        resolver.willExecute = { attempt in
            if attempt < 3 { try Self.editElsewhere(f, tag: "edit \(attempt)") }
        }
        let report = try await resolver.resolve(ResolveOptions(strategy: .merge))
        #expect(report.failed.isEmpty)
        #expect(report.resolutions.count == 1)
        #expect(Set(try f.metadata("Report.yianazip").tags) == ["a", "b", "edit 1", "edit 2"])
        #expect(!f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
        #expect(try await ConflictDetector(library: f.library).detect().groups.isEmpty)
    }

    @Test func aGroupThatNeverStopsChangingFailsAloneAndKeepsTheNewest() async throws {
        let f = try fixture([("Report.yianazip", "Report", ["a"], "text", 2000),
                             ("Report (Bob's conflicted copy 2026-03-01).yianazip", "Report", ["b"], "text", 3000)])
        var resolver = ConflictResolver(library: f.library)
        resolver.willExecute = { attempt in try Self.editElsewhere(f, tag: "edit \(attempt)") }
        let report = try await resolver.resolve(ResolveOptions(strategy: .merge))
        #expect(report.resolutions.isEmpty)
        #expect(report.failed.count == 1)
        #expect(report.failed.first?.reason.contains("another process wrote this document") == true)
        let tags = try f.metadata("Report.yianazip").tags
        #expect(tags == ["a"] + (1...ConflictResolver.attempts).map { "edit \($0)" })
        #expect(f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
    }

    @Test func aMergeInterruptedHalfWayIsFinishedThreeWay() async throws {
        // Report and Bob's copy both come from one version; then each side edits it.
        let f = try fixture([("Report.yianazip", "Report", [], "text", 2000)])
        let original = f.url("Report.yianazip"), copy = f.url("Report (Bob's conflicted copy 2026-03-01).yianazip")
        let key = try #require(try DocumentReader(path: original.path).contentKey)
        try DocumentHistory(library: f.library).record(documentID: id.uuidString, key: key, parents: [], what: "import")
        try FileManager.default.copyItem(at: original, to: copy)
        let editor = DocumentEditor(library: f.library)
        try editor.apply(MetadataEdit(title: "Report, final"), to: original, now: Date(timeIntervalSinceReferenceDate: 3000))
        try editor.apply(MetadataEdit(addTags: ["b"]), to: copy, now: Date(timeIntervalSinceReferenceDate: 4000))

        // The merge writes the original, then Bob edits his copy again before it is removed.
        let group = try await ConflictDetector(library: f.library).detect().groups[0]
        var plan = try GroupPlan(group: group, library: f.library, options: ResolveOptions(strategy: .merge), now: Date(timeIntervalSinceReferenceDate: 5000))
        #expect(plan.steps.map(\.action) == ["merge-metadata", "remove-copy"])
        let removal = plan.planned[1].perform
        plan.planned[1] = .init(step: plan.planned[1].step) {
            try editor.apply(MetadataEdit(addTags: ["c"]), to: copy, now: Date(timeIntervalSinceReferenceDate: 6000))
            return try removal()
        }
        #expect { try plan.execute() } throws: { ($0 as? ArchiveError)?.kind == .documentChanged }
        #expect(try f.metadata("Report (Bob's conflicted copy 2026-03-01).yianazip").tags == ["b", "c"])

        // Resolving again merges against what both came from: the title change is not lost to
        // Bob's newer clock, and both of his tags arrive.
        let report = try await resolve(f, .merge)
        #expect(report.failed.isEmpty && report.resolutions.count == 1)
        let merged = try f.metadata("Report.yianazip")
        #expect(merged.title == "Report, final")
        #expect(Set(merged.tags) == ["b", "c"])
        #expect(!f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
    }

    @Test func newestWinsAndTheLoserIsKept() async throws {
        let f = try fixture([("Report.yianazip", "Report", [], "old text", 2000),
                             ("Report (Bob's conflicted copy 2026-03-01).yianazip", "Report", [], "new text", 3000)])
        let original = try f.bytes("Report.yianazip")
        let copy = try f.bytes("Report (Bob's conflicted copy 2026-03-01).yianazip")
        let report = try await resolve(f, .newest)
        #expect(report.resolutions.first?.winner == "Report (Bob's conflicted copy 2026-03-01).yianazip")
        #expect(try f.bytes("Report.yianazip") == copy)
        #expect(!f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
        #expect(try f.stored(original) && f.stored(copy))
        let log = ResolutionLogEntry.log(f.library).read()
        #expect(log.count == 1 && log[0].strategy == "newest")
        #expect(try await ConflictDetector(library: f.library).detect().groups.isEmpty)
    }

    @Test func keepBothMakesEachCopyItsOwnDocument() async throws {
        let f = try fixture([("Report.yianazip", "Report", [], "mine", 2000),
                             ("Report (Bob's conflicted copy 2026-03-01).yianazip", "Report", [], "theirs", 3000)])
        let original = try f.bytes("Report.yianazip")
        _ = try await resolve(f, .keepBoth)
        #expect(try f.bytes("Report.yianazip") == original)
        let made = "Report (conflict copy Bob 2026-03-01).yianazip"
        #expect(f.exists(made))
        #expect(try f.metadata(made).id != id)
        #expect(try f.metadata(made).title == "Report (conflict copy Bob 2026-03-01)")
        #expect(!f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
    }

    @Test func mergeCombinesMetadataAndKeepsBothChangedPDFs() async throws {
        let f = try fixture([("Report.yianazip", "Report final", ["a", "mine"], "my pdf", 2000),
                             ("Report.sync-conflict-20260301-101010-AB.yianazip", "Report", ["a", "theirs"], "their pdf", 3000)])
        let report = try await resolve(f, .merge)
        let merged = try f.metadata("Report.yianazip")
        #expect(merged.id == id)
        #expect(merged.tags == ["a", "mine", "theirs"])   // no ancestor known: union
        #expect(report.resolutions[0].overruled.contains { $0.hasPrefix("title:") })
        let log = ResolutionLogEntry.log(f.library).read()
        #expect(log.last?.overruled == report.resolutions[0].overruled)
        #expect(log.last?.kept.keys.contains("Report.sync-conflict-20260301-101010-AB.yianazip") == true)
        // Both PDFs differ and no ancestor is known: the newer (theirs) goes in, mine stays a document.
        #expect(f.exists("Report final (other PDF).yianazip"))
        #expect(!f.exists("Report.sync-conflict-20260301-101010-AB.yianazip"))
    }

    @Test func identicalCopiesCollapseAndDuplicatesGetTheirOwnIdOnRequest() async throws {
        let f = try fixture([("Scan.yianazip", "Scan", [], "same", 2000)])
        try FileManager.default.copyItem(at: f.url("Scan.yianazip"), to: f.url("Scan 2.yianazip"))
        try FileManager.default.copyItem(at: f.url("Scan.yianazip"), to: f.url("Scan Copy.yianazip"))
        let first = try await resolve(f, .newest)
        #expect(!f.exists("Scan 2.yianazip"))
        #expect(f.exists("Scan Copy.yianazip"))
        #expect(first.skipped.map(\.path) == ["Scan Copy.yianazip"])
        _ = try await resolve(f, .newest, reassign: true)
        #expect(try f.metadata("Scan Copy.yianazip").id != id)
        #expect(try await ConflictDetector(library: f.library).detect().groups.isEmpty)
    }

    @Test func aDryRunChangesNothing() async throws {
        let f = try fixture([("Report.yianazip", "Report", [], "old", 2000),
                             ("Report 2.yianazip", "Report", [], "new", 3000)])
        let before = try FileManager.default.contentsOfDirectory(atPath: f.folder.url.path).sorted()
        let report = try await resolve(f, .newest, dryRun: true)
        #expect(report.resolutions[0].steps.map(\.action) == ["replace-original", "remove-copy"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.folder.url.path).sorted() == before)
    }

    @Test func aGroupWithAnEvictedCopyWaits() async throws {
        let f = try fixture([("Report.yianazip", "Report", [], "old", 2000),
                             ("Report 2.yianazip", "Report", [], "new", 3000)])
        try Data("bplist00".utf8).write(to: f.url(".Report (Bob's conflicted copy 2026-03-01).yianazip.icloud"))
        let report = try await resolve(f, .newest)
        #expect(report.resolutions.isEmpty)
        #expect(report.skipped.first?.reason.hasPrefix("not downloaded") == true)
        #expect(f.exists("Report 2.yianazip"))
    }

    @Test func evictedCopiesAreDownloadedOnRequestThenResolved() async throws {
        let f = try fixture([("Report.yianazip", "Report", [], "old", 2000),
                             ("Report (Bob's conflicted copy 2026-03-01).yianazip", "Report", [], "new", 3000)])
        let cloud = try TemporaryFolder()
        try CloudAttachment.attach(f.library, store: cloud.url, device: "laptop")
        try Eviction(library: f.library).evict(f.url("Report (Bob's conflicted copy 2026-03-01).yianazip"))
        #expect(try await resolve(f, .newest).resolutions.isEmpty)
        var options = ResolveOptions(strategy: .newest)
        options.downloadEvicted = true
        let report = try await ConflictResolver(library: f.library).resolve(options)
        #expect(report.resolutions.count == 1)
        #expect(!f.exists("Report (Bob's conflicted copy 2026-03-01).yianazip"))
        #expect(!f.exists(".Report (Bob's conflicted copy 2026-03-01).yianazip.icloud"))
    }

    @Test func aResurrectedOlderVersionIsRecognisedByTheHistory() async throws {
        let f = try fixture([("Report.yianazip", "Report", [], "old", 2000),
                             ("Report 2.yianazip", "Report", [], "new", 3000)])
        let old = try f.bytes("Report.yianazip")
        _ = try await resolve(f, .newest)
        // The sync service brings the replaced version back under a conflict name.
        try old.write(to: f.url("Report (conflicted copy 2026-03-05 101010).yianazip"))
        let report = try await resolve(f, .keepBoth)
        #expect(report.resolutions[0].steps.map(\.action) == ["remove-older"])
        #expect(!f.exists("Report (conflicted copy 2026-03-05 101010).yianazip"))
    }

    /// unison's copy sorts before the plain name (space before dot): the name decides, not
    /// the sort order, and the merged document keeps the plain name.
    @Test func theOriginalIsChosenByWhatTheNamesSayNeverBySortOrder() async throws {
        let f = try fixture([("Report.yianazip", "Report", ["tax"], "one", 2000),
                             ("Report (conflict_on_2026-11-23).yianazip", "Annual report", [], "one", 3000)])
        let report = try await resolve(f, .merge)
        #expect(report.resolutions.map(\.original) == ["Report.yianazip"])
        #expect(f.exists("Report.yianazip") && !f.exists("Report (conflict_on_2026-11-23).yianazip"))
        #expect(try f.metadata("Report.yianazip").title == "Annual report")
    }

    /// rclone bisync leaves `X.yianazip..path1` and `..path2` and no `X.yianazip`: the
    /// merged document goes back under the plain name, and both copies are kept.
    @Test func rcloneCopiesAreResolvedBackUnderThePlainName() async throws {
        let f = try fixture([("Report.yianazip..path2", "Report", ["tax"], "one", 2000),
                             ("Report.yianazip..path1", "Annual report", [], "one", 3000)])
        let before = (try f.bytes("Report.yianazip..path1"), try f.bytes("Report.yianazip..path2"))
        let found = try await ConflictDetector(library: f.library).detect()
        #expect(found.groups.map(\.target) == ["Report.yianazip"])
        #expect(found.groups.first?.files.first?.path == "Report.yianazip..path1")
        let report = try await resolve(f, .merge)
        #expect(report.failed.isEmpty, "\(report.failed)")
        #expect(report.resolutions.first?.steps.first?.action == "restore-name")
        #expect(f.folder.contents().filter { !$0.hasPrefix(".") } == ["Report.yianazip"])
        let merged = try f.metadata("Report.yianazip")
        #expect(merged.title == "Annual report" && merged.tags == ["tax"])
        #expect(try f.stored(before.0) && f.stored(before.1))
        #expect(await Verifier(library: f.library).verify().clean)
    }

    /// A lone copy whose extension a service mangled is put back under its plain name; a
    /// lone copy with a proper name stays a stray (its original may have been deleted).
    @Test func aLoneMangledCopyGetsItsNameBack() async throws {
        let f = try fixture([("Scan.yianazip.conflict1", "Scan", [], "one", 2000)])
        let report = try await resolve(f, .newest)
        #expect(report.resolutions.count == 1)
        #expect(f.folder.contents().filter { !$0.hasPrefix(".") } == ["Scan.yianazip"])
    }

    @Test func aGroupWithAFileStillArrivingWaits() async throws {
        let f = try fixture([("Report.yianazip", "Report", ["tax"], "one", 2000),
                             ("Report.sync-conflict-20261123-101010-ABC.yianazip", "Annual report", [], "one", 3000)])
        var options = ResolveOptions(strategy: .merge)
        options.settle = 60
        // Written just now but whole: nothing to wait for.
        #expect(try await ConflictResolver(library: f.library).resolve({ var o = options; o.dryRun = true; return o }()).resolutions.count == 1)
        // Syncthing is writing a newer version of the copy: its temporary file is beside it.
        try Data("partial".utf8).write(to: f.url(".syncthing.Report.sync-conflict-20261123-101010-ABC.yianazip.tmp"))
        let waiting = try await ConflictResolver(library: f.library).resolve(options)
        #expect(waiting.resolutions.isEmpty)
        #expect(waiting.skipped.map(\.path) == ["Report.sync-conflict-20261123-101010-ABC.yianazip"])
        #expect(waiting.skipped.allSatisfy { $0.reason.contains("still arriving") })
        options.settle = 0  // --now
        let now = try await ConflictResolver(library: f.library).resolve(options)
        #expect(now.resolutions.count == 1)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

@Suite("sync between devices")
struct SyncTests {
    struct Pair {
        let cloud: TemporaryFolder
        let a: CloudTests.Device
        let b: CloudTests.Device

        init() throws {
            cloud = try TemporaryFolder()
            a = try CloudTests.Device(cloud: cloud, name: "laptop")
            b = try CloudTests.Device(cloud: cloud, name: "phone")
        }
    }

    let id = UUID()

    func edit(_ device: CloudTests.Device, _ name: String, title: String, text: String) throws {
        try CoordinatedDocument.replace(at: device.url(name).path, metadata: DocumentMetadata(id: id, title: title, pageCount: 1),
                                        pdf: .data(simplePDF([text])))
    }

    func sync(_ device: CloudTests.Device) throws -> SyncReport { try Sync(library: device.library).run() }

    @Test func changesTravelBothWays() throws {
        let pair = try Pair()
        try edit(pair.a, "Report.yianazip", title: "Report", text: "v1")
        #expect(try sync(pair.a).uploaded == ["Report.yianazip"])
        #expect(try sync(pair.b).pulled == ["Report.yianazip"])
        #expect(try Data(contentsOf: pair.b.url("Report.yianazip")) == Data(contentsOf: pair.a.url("Report.yianazip")))

        try edit(pair.b, "Report.yianazip", title: "Report", text: "v2 from the phone")
        #expect(try sync(pair.b).uploaded == ["Report.yianazip"])
        #expect(try sync(pair.a).pulled == ["Report.yianazip"])
        #expect(try DocumentReader(path: pair.a.url("Report.yianazip").path).contentKey == DocumentReader(path: pair.b.url("Report.yianazip").path).contentKey)
        let again = try sync(pair.a)
        #expect(again.uploaded.isEmpty && again.pulled.isEmpty)
        #expect(SyncState.file(pair.a.library).load()?.lastSync != nil)
    }

    @Test func editsOnBothDevicesMakeAConflictCopyTheResolverResolves() async throws {
        let pair = try Pair()
        try edit(pair.a, "Report.yianazip", title: "Report", text: "v1")
        _ = try sync(pair.a)
        _ = try sync(pair.b)
        try edit(pair.a, "Report.yianazip", title: "Report (laptop)", text: "laptop edit")
        try edit(pair.b, "Report.yianazip", title: "Report (phone)", text: "phone edit")
        _ = try sync(pair.a)
        let report = try sync(pair.b)
        #expect(report.conflictCopies == ["Report.yianazip": "Report 2.yianazip"])
        #expect(try DocumentReader(path: pair.b.url("Report.yianazip").path).metadata().title == "Report (phone)")
        #expect(try DocumentReader(path: pair.b.url("Report 2.yianazip").path).metadata().title == "Report (laptop)")
        _ = try sync(pair.a)
        // Both devices now hold both versions, and the conflict is a real one for the resolver.
        for device in [pair.a, pair.b] {
            #expect(FileManager.default.fileExists(atPath: device.url("Report 2.yianazip").path))
        }
        let conflicts = try await ConflictDetector(library: pair.a.library).detect()
        #expect(conflicts.groups.first?.files.map(\.role) == [.original, .conflictCopy])
        _ = try await ConflictResolver(library: pair.a.library).resolve(ResolveOptions(strategy: .keepBoth))
        _ = try sync(pair.a)
        _ = try sync(pair.b)
        #expect(try await ConflictDetector(library: pair.b.library).detect().groups.filter(\.needsResolving).isEmpty)
    }

    /// The cloud carries what each upload was made from, so edits made apart on two devices
    /// merge three-way: each side's change is kept, nothing is overruled.
    @Test func editsMadeApartMergeThreeWayAcrossDevices() async throws {
        let pair = try Pair()
        try edit(pair.a, "Report.yianazip", title: "Report", text: "v1")
        _ = try sync(pair.a)
        _ = try sync(pair.b)
        // Edits as the app makes them: no version kept on either device.
        func change(_ device: CloudTests.Device, _ body: (inout DocumentMetadata) -> Void) throws {
            var metadata = try DocumentReader(path: device.url("Report.yianazip").path).metadata()
            body(&metadata)
            metadata.modified = metadata.modified.addingTimeInterval(10)
            try CoordinatedDocument.replace(at: device.url("Report.yianazip").path, metadata: metadata, pdf: .data(simplePDF(["v1"])))
        }
        try change(pair.a) { $0.tags = ["paid"] }
        try change(pair.b) { $0.title = "Report, March" }
        _ = try sync(pair.b)
        #expect(try sync(pair.a).conflictCopies == ["Report.yianazip": "Report 2.yianazip"])
        let report = try await ConflictResolver(library: pair.a.library).resolve(ResolveOptions(strategy: .merge))
        let resolution = try #require(report.resolutions.first)
        #expect(resolution.overruled.isEmpty, "\(resolution.overruled)")
        #expect(!resolution.steps.contains { $0.detail.contains("two-way") })
        let merged = try DocumentReader(path: pair.a.url("Report.yianazip").path).metadata()
        #expect(merged.title == "Report, March" && merged.tags == ["paid"])
    }

    @Test func deletionsTravelAsTombstonesAndTheBytesAreKept() throws {
        let pair = try Pair()
        try edit(pair.a, "Old.yianazip", title: "Old", text: "to be deleted")
        _ = try sync(pair.a)
        _ = try sync(pair.b)
        let bytes = try Data(contentsOf: pair.b.url("Old.yianazip"))
        try FileManager.default.removeItem(at: pair.a.url("Old.yianazip"))
        #expect(try sync(pair.a).deletedInCloud == ["Old.yianazip"])
        #expect(try sync(pair.b).deletedHere == ["Old.yianazip"])
        #expect(!FileManager.default.fileExists(atPath: pair.b.url("Old.yianazip").path))
        let store = VersionStore(library: pair.b.library)
        #expect(try store.records().contains { try Data(contentsOf: store.objectURL($0)) == bytes })
    }

    @Test func anEditWinsOverADeletionItHadNotSeen() throws {
        let pair = try Pair()
        try edit(pair.a, "Doc.yianazip", title: "Doc", text: "v1")
        _ = try sync(pair.a)
        _ = try sync(pair.b)
        try FileManager.default.removeItem(at: pair.a.url("Doc.yianazip"))
        _ = try sync(pair.a)
        try edit(pair.b, "Doc.yianazip", title: "Doc", text: "edited after the deletion, unaware")
        #expect(try sync(pair.b).uploaded == ["Doc.yianazip"])
        #expect(try sync(pair.a).pulled == ["Doc.yianazip"])
    }

    @Test func evictingACopyChangedOnBothSidesAsksForASyncFirst() throws {
        let pair = try Pair()
        try edit(pair.a, "Doc.yianazip", title: "Doc", text: "v1")
        _ = try sync(pair.a)
        _ = try sync(pair.b)
        try edit(pair.b, "Doc.yianazip", title: "Doc", text: "phone")
        _ = try sync(pair.b)
        try edit(pair.a, "Doc.yianazip", title: "Doc", text: "laptop")
        #expect(throws: CloudError.needsSync("Doc.yianazip")) { try Eviction(library: pair.a.library).evict(pair.a.url("Doc.yianazip")) }
        #expect(FileManager.default.fileExists(atPath: pair.a.url("Doc.yianazip").path))
        // A stale copy (unchanged here, newer in the cloud) is evicted without uploading it.
        try edit(pair.b, "Other.yianazip", title: "Other", text: "o1")
        _ = try sync(pair.b)
        _ = try sync(pair.a)
        try edit(pair.b, "Other.yianazip", title: "Other", text: "o2")
        _ = try sync(pair.b)
        let before = try CloudAttachment.load(pair.a.library).cloud().latest()["Other.yianazip"]
        try Eviction(library: pair.a.library).evict(pair.a.url("Other.yianazip"))
        #expect(try CloudAttachment.load(pair.a.library).cloud().latest()["Other.yianazip"] == before)
    }

    @Test func evictedDocumentsStayEvicted() throws {
        let pair = try Pair()
        try edit(pair.a, "Doc.yianazip", title: "Doc", text: "v1")
        _ = try sync(pair.a)
        try Eviction(library: pair.a.library).evict(pair.a.url("Doc.yianazip"))
        let report = try sync(pair.a)
        #expect(report.pulled.isEmpty && report.uploaded.isEmpty && report.deletedInCloud.isEmpty)
        #expect(FileManager.default.fileExists(atPath: pair.a.url(".Doc.yianazip.icloud").path))
    }
}

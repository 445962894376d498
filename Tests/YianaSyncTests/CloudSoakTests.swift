import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

/// Random evict / download (with faults) / edit / create / sync steps over two devices.
/// At the end every document on both devices verifies and is the cloud's or a kept
/// version, and every version that existed at a sync or an eviction is still somewhere:
/// a library, a version store or the cloud. `YIANA_SOAK_STEPS` makes it longer
/// (Scripts/soak/cloud.sh).
@Suite("cloud soak")
struct CloudSoakTests {
    static let steps = Int(ProcessInfo.processInfo.environment["YIANA_SOAK_STEPS"] ?? "") ?? 150

    @Test(arguments: [11, 12] as [UInt64])
    func nothingLostAcrossDevices(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let cloud = try TemporaryFolder()
        let devices = [try CloudTests.Device(cloud: cloud, name: "laptop"), try CloudTests.Device(cloud: cloud, name: "phone")]
        let names = ["Report", "Scan", "Letter", "Notes"].map { "\($0).yianazip" }
        var ids: [String: UUID] = [:]
        var mustSurvive = Set<String>()

        func hash(_ url: URL) throws -> String { try FileHash.sha256(of: url) }
        /// What a sync must carry: every document of the device. (Between syncs, an edit may
        /// replace an earlier unsynced edit: that is the user's doing, not a loss.)
        func remember(_ device: CloudTests.Device) throws {
            for item in try Self.documents(device) { mustSurvive.insert(try hash(item.url)) }
        }

        for step in 0..<Self.steps {
            let device = devices[Int(random.next() % 2)]
            let name = names[Int(random.next() % UInt64(names.count))]
            let url = device.url(name)
            let present = FileManager.default.fileExists(atPath: url.path) && !DatalessFiles.paths(in: device.library).contains(name)
            let evicted = Placeholder.existingStub(for: url) != nil || DatalessFiles.paths(in: device.library).contains(name)
            switch random.next() % 6 {
            case 0, 1:  // edit (or create)
                guard !evicted else { continue }
                let id = present ? (try? DocumentReader(path: url.path).metadata().id) ?? UUID() : (ids[name] ?? UUID())
                ids[name] = ids[name] ?? id
                try CoordinatedDocument.replace(at: url.path, metadata: DocumentMetadata(id: id, title: "\(name) step \(step)", pageCount: 1),
                                                pdf: .data(simplePDF(["step \(step) on \(device.library.root.lastPathComponent)"])))
            case 2:  // evict: what is evicted must survive
                guard present else { continue }
                let sha = try hash(url)
                do {
                    try Eviction(library: device.library).evict(url, dataless: random.next() % 3 == 0)
                    mustSurvive.insert(sha)
                } catch CloudError.needsSync {
                    continue  // changed here and in the cloud: sync first
                }
            case 3:  // download, with faults
                guard evicted else { continue }
                _ = try? device.downloader {
                    $0.faults.flakiness = 0.3
                    $0.faults.seed = random.next()
                    $0.faults.offline = random.next() % 10 == 0
                    $0.transfer.chunkSize = 512
                    $0.retry = RetryPolicy(attempts: 4, base: 0.0001, cap: 0.001)
                }.download(url)
            default:  // sync
                try remember(device)
                let report = try Sync(library: device.library).run()
                #expect(report.failed.isEmpty, "step \(step): \(report.failed)")
            }
        }

        // Let everything settle: download what is evicted, sync until quiet.
        for device in devices {
            for item in try LibraryScanner.scan(device.library.root) where item.kind == .placeholder {
                try device.downloader().download(item.documentURL)
            }
        }
        for device in devices + devices { try remember(device); _ = try Sync(library: device.library).run() }

        try Self.expectNothingLost(mustSurvive, devices: devices, seed: seed)
    }

    static func documents(_ device: CloudTests.Device) throws -> [LibraryItem] {
        try LibraryScanner.scan(device.library.root).filter { $0.kind == .document }
    }

    /// Every version that had to survive is somewhere: a library, a version store or the
    /// cloud; every document verifies and is the cloud's; both devices hold the same names.
    static func expectNothingLost(_ mustSurvive: Set<String>, devices: [CloudTests.Device], seed: UInt64) throws {
        let store = try CloudAttachment.load(devices[0].library).cloud()
        var everywhere = Set(store.index.read().compactMap(\.sha256))
        for device in devices {
            let versions = VersionStore(library: device.library)
            everywhere.formUnion(try versions.records().map(\.sha256))
            for item in try Self.documents(device) {
                try DocumentReader(path: item.url.path).verifyContents()
                let sha = try FileHash.sha256(of: item.url)
                everywhere.insert(sha)
                #expect(store.index.read().contains { $0.sha256 == sha }, "\(item.url.lastPathComponent) is neither the cloud's nor a kept version")
            }
        }
        let lost = mustSurvive.subtracting(everywhere)
        #expect(lost.isEmpty, "seed \(seed): \(lost.count) versions lost")
        // Both devices end with the same documents.
        #expect(try Self.documents(devices[0]).map(\.url.lastPathComponent) == Self.documents(devices[1]).map(\.url.lastPathComponent))
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

@Suite("simulated cloud")
struct CloudTests {
    struct Device {
        let folder: TemporaryFolder
        let library: Library
        let cloudFolder: TemporaryFolder

        init(cloud: TemporaryFolder? = nil, name: String = "laptop") throws {
            folder = try TemporaryFolder()
            library = try Library(root: folder.url)
            cloudFolder = try cloud ?? TemporaryFolder()
            try CloudAttachment.attach(library, store: cloudFolder.url, device: name)
        }

        func url(_ name: String) -> URL { folder.url.appendingPathComponent(name) }
        func status(_ path: String) async throws -> DocumentStatus {
            try #require(try await CloudStore.status(of: library).documents.first { $0.path == path })
        }
        func downloader(_ change: (inout Downloader) -> Void = { _ in }) -> Downloader {
            var downloader = Downloader(library: library)
            downloader.retry = RetryPolicy(attempts: 8, base: 0.001, cap: 0.01)
            change(&downloader)
            return downloader
        }
    }

    func document(_ device: Device, _ name: String, text: String = "hello") throws -> Data {
        try CoordinatedDocument.replace(at: device.url(name).path, metadata: DocumentMetadata(title: name, pageCount: 1),
                                        pdf: .data(simplePDF([text, String(repeating: "padding ", count: 4000)])))
        return try Data(contentsOf: device.url(name))
    }

    @Test func evictThenDownloadRestoresTheExactBytes() async throws {
        let device = try Device()
        let bytes = try document(device, "Report.yianazip")
        try Eviction(library: device.library).evict(device.url("Report.yianazip"))
        #expect(!FileManager.default.fileExists(atPath: device.url("Report.yianazip").path))
        let stub = try Placeholder(stubAt: device.url(".Report.yianazip.icloud"))
        #expect(stub.documentName == "Report.yianazip" && stub.documentSize == UInt64(bytes.count))
        #expect(try LibraryScanner.scan(device.folder.url).map(\.kind) == [.placeholder])
        #expect(try await device.status("Report.yianazip").status == .notDownloaded)

        let attempts = try device.downloader().download(device.url("Report.yianazip"))
        #expect(attempts == 1)
        #expect(try Data(contentsOf: device.url("Report.yianazip")) == bytes)
        #expect(!FileManager.default.fileExists(atPath: device.url(".Report.yianazip.icloud").path))
        #expect(try await device.status("Report.yianazip").status == .current)
    }

    @Test func datalessEvictionKeepsNameAndSize() async throws {
        let device = try Device()
        let bytes = try document(device, "Scan.yianazip")
        try Eviction(library: device.library).evict(device.url("Scan.yianazip"), dataless: true)
        let attributes = try FileManager.default.attributesOfItem(atPath: device.url("Scan.yianazip").path)
        #expect(attributes[.size] as? Int == bytes.count)
        #expect(try Data(contentsOf: device.url("Scan.yianazip")).allSatisfy { $0 == 0 })
        #expect(try LibraryScanner.scan(device.folder.url).map(\.kind) == [.placeholder])
        guard case .placeholder = device.library.locate("Scan") else { Issue.record("a dataless file is not a document"); return }
        #expect(try await device.status("Scan.yianazip").status == .notDownloaded)
        try device.downloader().download(device.url("Scan.yianazip"))
        #expect(try Data(contentsOf: device.url("Scan.yianazip")) == bytes)
        #expect(try LibraryScanner.scan(device.folder.url).map(\.kind) == [.document])
    }

    @Test func statusTellsCurrentDownloadedAndLocalChanges() async throws {
        let device = try Device()
        _ = try document(device, "Doc.yianazip", text: "one")
        try Eviction(library: device.library).evict(device.url("Doc.yianazip"))
        try device.downloader().download(device.url("Doc.yianazip"))
        #expect(try await device.status("Doc.yianazip").status == .current)

        // Another device uploads a newer version: ours is now an older copy.
        let other = try Device(cloud: device.cloudFolder, name: "phone")
        _ = try document(other, "Doc.yianazip", text: "two")
        try CloudAttachment.load(other.library).cloud().upload(other.url("Doc.yianazip"), as: "Doc.yianazip", device: "phone")
        #expect(try await device.status("Doc.yianazip").status == .downloaded)

        // A local edit the cloud has not seen.
        _ = try document(device, "Doc.yianazip", text: "three")
        let status = try await device.status("Doc.yianazip")
        #expect(status.status == .current && status.uploadPending)
    }

    @Test func aFlakyNetworkIsRetriedAndResumed() async throws {
        let device = try Device()
        let bytes = try document(device, "Big.yianazip")
        try Eviction(library: device.library).evict(device.url("Big.yianazip"))
        let attempts = try device.downloader {
            $0.faults.flakiness = 0.7
            $0.faults.seed = 42
            $0.transfer.chunkSize = 4096
        }.download(device.url("Big.yianazip"))
        #expect(attempts > 1)
        #expect(try Data(contentsOf: device.url("Big.yianazip")) == bytes)
    }

    @Test func anInterruptedDownloadResumesFromWhatArrived() async throws {
        let device = try Device()
        let bytes = try document(device, "Doc.yianazip")
        try Eviction(library: device.library).evict(device.url("Doc.yianazip"))
        // One attempt that always breaks part-way.
        #expect(throws: CloudError.self) {
            try device.downloader {
                $0.retry = RetryPolicy(attempts: 1)
                $0.faults.flakiness = 1
                $0.faults.seed = 7
            }.download(device.url("Doc.yianazip"))
        }
        let state = try #require(Downloads.file(device.library).load()?.byPath["Doc.yianazip"])
        #expect(state.received > 0 && state.received < state.size && state.error != nil)
        #expect(try await device.status("Doc.yianazip").isDownloading)
        try device.downloader().download(device.url("Doc.yianazip"))
        #expect(try Data(contentsOf: device.url("Doc.yianazip")) == bytes)
        #expect(Downloads.file(device.library).load()?.byPath["Doc.yianazip"] == nil)
    }

    @Test func offlineAndQuotaFailClearlyAndLeaveThePlaceholder() async throws {
        let device = try Device()
        _ = try document(device, "Doc.yianazip")
        try Eviction(library: device.library).evict(device.url("Doc.yianazip"))
        #expect(throws: CloudError.offline) { try device.downloader { $0.faults.offline = true; $0.retry.attempts = 3 }.download(device.url("Doc.yianazip")) }
        #expect(Downloads.file(device.library).load()?.byPath["Doc.yianazip"]?.attempts == 3)
        #expect(throws: CloudError.quotaExceeded) { try device.downloader { $0.faults.quotaExceeded = true }.download(device.url("Doc.yianazip")) }
        #expect(Downloads.file(device.library).load()?.byPath["Doc.yianazip"]?.attempts == 1)  // not worth retrying
        #expect(FileManager.default.fileExists(atPath: device.url(".Doc.yianazip.icloud").path))
        #expect(try await device.status("Doc.yianazip").downloadError?.contains("quota") == true)
    }

    @Test func aDamagedCloudCopyIsNeverPlaced() async throws {
        let device = try Device()
        _ = try document(device, "Doc.yianazip")
        try Eviction(library: device.library).evict(device.url("Doc.yianazip"))
        #expect(throws: CloudError.damagedInCloud("Doc.yianazip")) {
            try device.downloader { $0.faults.damaged = true }.download(device.url("Doc.yianazip"))
        }
        #expect(!FileManager.default.fileExists(atPath: device.url("Doc.yianazip").path))
        #expect(FileManager.default.fileExists(atPath: device.url(".Doc.yianazip.icloud").path))
        let status = try await device.status("Doc.yianazip")
        #expect(!status.isDownloading && status.downloadError?.contains("damaged") == true)
        let partials = (try? FileManager.default.contentsOfDirectory(atPath: device.folder.url.appendingPathComponent(".yiana/downloads").path)) ?? []
        #expect(partials.isEmpty)
    }

    @Test func aDamagedDocumentIsNotEvicted() throws {
        let device = try Device()
        try Data("PK\u{3}\u{4}broken".utf8).write(to: device.url("Broken.yianazip"))
        #expect(throws: ArchiveError.self) { try Eviction(library: device.library).evict(device.url("Broken.yianazip")) }
        #expect(FileManager.default.fileExists(atPath: device.url("Broken.yianazip").path))
    }
}

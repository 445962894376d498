import Foundation
import Testing
import YianaPDF
import YianaTestSupport

/// A disk too small for a document: the import fails naming the document and saying what
/// to do, and leaves nothing behind. Runs on a small tmpfs, so it needs the right to mount
/// one (root, as in CI); where that is refused it is skipped.
@Suite("a full disk")
struct FullDiskCLITests {
    static let mountable = SmallDisk.probe()

    @Test(.enabled(if: mountable, "mounting a tmpfs is not allowed here"))
    func anImportThatDoesNotFitFailsNamingTheDocumentAndLeavesNothing() async throws {
        let disk = try SmallDisk(megabytes: 2)
        defer { disk.unmount() }
        let source = try TemporaryFolder()
        let big = PDFDocument.pdf(pages: [[String(repeating: "no room here ", count: 300_000)]])
        #expect(big.count > 3 << 20)
        try big.write(to: URL(fileURLWithPath: source.path("Big.pdf")))

        let result = try await runYiana(["import", "--library", disk.folder.url.path, source.path("Big.pdf")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("\(disk.folder.path("Big.yianazip")): not enough free space on the disk"))
        #expect(result.stderr.contains("Free some space and try again."))
        #expect(disk.folder.contents().filter { $0 != ".yiana" } == [])
        let verify = try await runYiana(["verify", "--library", disk.folder.url.path])
        #expect(verify.status == 0, "\(verify.stdout)\(verify.stderr)")
    }
}

/// A tmpfs of a few megabytes mounted on a temporary folder.
struct SmallDisk {
    let folder: TemporaryFolder

    init(megabytes: Int) throws {
        folder = try TemporaryFolder()
        let mount = try runProcess(URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", folder.url.path])
        guard mount.status == 0 else { throw CocoaError(.fileWriteNoPermission) }
    }

    func unmount() {
        _ = try? runProcess(URL(fileURLWithPath: "/bin/umount"), [folder.url.path])
    }

    /// True when a tmpfs can be mounted here.
    static func probe() -> Bool {
        guard FileManager.default.isExecutableFile(atPath: "/bin/mount"), let disk = try? SmallDisk(megabytes: 1) else { return false }
        disk.unmount()
        return true
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// Hostile archives in the repair suite: their cost bounded however many entries they hold
/// (Scripts/bench/hostile.sh measures the memory of 100,000).
extension RepairTests {
    /// A hostile file of 5,000 entries beside the document's own three: refused by the reader
    /// before it reads them (every pair of names was compared: 80,000 took minutes,
    /// Scripts/bench/hostile.sh), and salvaged from its three with a report of a line (the
    /// first names and a count, not 5,000 names). The time limit only guards against a hang.
    @Test(.timeLimit(.minutes(5))) func thousandsOfEntriesAreRefusedAtOnceAndSaidInALine() async throws {
        let hash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
        let metadata = try DocumentMetadata(title: "Doc", pageCount: 2, pdfHash: hash).jsonData()
        var builder = ZipBuilder.document(metadata: String(decoding: metadata, as: UTF8.self), pdf: Array(pdf))
        builder.entries += (0..<5_000).map { ZipBuilder.Entry(name: "e\($0)", data: []) }
        let (library, url) = try library(with: builder.build())
        #expect { try DocumentReader(path: url.path) } throws: {
            ($0 as? ArchiveError)?.kind == .damagedStructure("it lists 5003 entries, where a document has three")
        }
        var dry = RepairOptions()
        dry.dryRun = true
        let preview = await Repairer(library: library).repair(options: dry)
        let detail = try #require(preview.repaired.first?.detail)
        #expect(detail.contains(#"left out 5000 other entries (the first: "e0", "e1", "e2", "e3", "e4", …)"#) && detail.count < 1_000, "\(detail.prefix(2_000))")
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"], "\(report.notRepaired.map(\.detail))")
        #expect(try storedPDF(url) == pdf)
        await expectClean(library)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// Compressed entries read in constant memory, compression bombs refused before they are
/// inflated, and every byte of the file accounted for.
@Suite("ZIP structure")
struct ZipStructureTests {
    let folder = try! TemporaryFolder()
    let pdf = try! Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))

    func write(_ bytes: [UInt8], as name: String = "Doc.yianazip") throws -> URL {
        let url = folder.url.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url
    }

    func codes(_ url: URL) async throws -> [String] {
        let report = await Verifier(library: try Library(root: folder.url)).verify([url])
        return report.files.flatMap(\.problems).map(\.code.rawValue)
    }

    static let metadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"Doc","created":800000000,"modified":800000001.5,"pageCount":2,"tags":[],"ocrCompleted":false}"#

    @Test func aDeflatedPDFReadsWholeAndVerifies() async throws {
        var builder = ZipBuilder.document(metadata: Self.metadata, pdf: nil)
        builder.entries.insert(.deflated("content.pdf", Array(pdf)), at: 1)
        let url = try write(builder.build())
        let reader = try DocumentReader(path: url.path)
        let bytes = try reader.pdfBytes()
        #expect(bytes.wholeFile != nil)  // inflated into a scratch file, not into memory
        var read = Data()
        try bytes.read { read.append(contentsOf: $0) }
        let mapped = Data(try bytes.mapped())
        #expect(read == pdf && mapped == pdf)
        #expect(try bytes.document(source: "test").pageCount == 2)
        #expect(try await codes(url) == [])
    }

    /// Bombs of every kind: refused from what they declare, before inflating any of it.
    @Test(arguments: [
        ("content.pdf", Array("%PDF-1.4\n".utf8), 4 << 20),          // a 4 MiB PDF-shaped bomb, ~159:1
        ("metadata.json", Array("{\"a\":\"".utf8) + [0x20], 4 << 20), // a JSON bomb
        ("format.json", Array("{".utf8) + [0x20], 100 << 10),           // format.json over 64 KiB
    ])
    func aCompressionBombIsRefusedBeforeItIsInflated(name: String, prefix: [UInt8], count: Int) async throws {
        var builder = ZipBuilder.document(metadata: Self.metadata, pdf: Array(pdf))
        let index = builder.entries.firstIndex { $0.name == name }!
        builder.entries[index] = .deflated(name, prefix, repeatingLast: count)
        let url = try write(builder.build())
        #expect(throws: ArchiveError.self) { _ = try DocumentReader(path: url.path) }
        do {
            _ = try DocumentReader(path: url.path)
        } catch let error as ArchiveError {
            guard case .implausibleEntry(let entry, _) = error.kind else { Issue.record("\(error)"); return }
            #expect(entry == name)
        }
        #expect(try await codes(url) == ["implausible-entry"])
    }

    /// A declared size of 3 GiB in a file of a few hundred bytes: refused from the declaration.
    @Test func aHugeDeclaredSizeIsRefused() async throws {
        var builder = ZipBuilder.document(metadata: Self.metadata, pdf: nil)
        var bomb = ZipBuilder.Entry.deflated("content.pdf", Array("%PDF-1.4\n".utf8), repeatingLast: 1000)
        bomb.uncompressedSize = 0xC000_0000
        builder.entries.insert(bomb, at: 1)
        let url = try write(builder.build())
        #expect(try await codes(url) == ["implausible-entry"])
    }

    /// A compressed content.pdf that does not start as a PDF is refused after its first chunk.
    @Test func aCompressedEntryThatIsNoPDFIsRefusedAtItsFirstBytes() async throws {
        var builder = ZipBuilder.document(metadata: Self.metadata, pdf: nil)
        builder.entries.insert(.deflated("content.pdf", Array(repeating: 0x41, count: 3000)), at: 1)
        let url = try write(builder.build())
        let reader = try DocumentReader(path: url.path)
        #expect(throws: ArchiveError.self) { try reader.readPDF { _ in } }
        #expect(try await codes(url) == ["implausible-entry"])
    }

    /// The file of a good document, and where its central directory and end record are.
    func goodDocument() throws -> (bytes: [UInt8], centralDirectoryEnd: Int, endRecord: Int) {
        let bytes = ZipBuilder.document(metadata: Self.metadata, pdf: Array(pdf)).build()
        let endRecord = bytes.count - 22
        return (bytes, endRecord, endRecord)
    }

    @Test func bytesInsertedBeforeTheEndRecordAreFound() async throws {
        let (bytes, centralDirectoryEnd, _) = try goodDocument()
        let junk = [UInt8](repeating: 0x58, count: 1000)
        let url = try write(Array(bytes[..<centralDirectoryEnd]) + junk + Array(bytes[centralDirectoryEnd...]))
        let report = await Verifier(library: try Library(root: folder.url)).verify([url])
        let problems = report.files.flatMap(\.problems)
        #expect(problems.map(\.code.rawValue) == ["unaccounted-bytes"])
        #expect(problems.first?.message.contains("1000 bytes at offset \(centralDirectoryEnd)") == true, "\(problems)")
        try await expectRepaired(url)
    }

    @Test func appendedDataBehindACopiedEndRecordIsFound() async throws {
        let (bytes, _, endRecord) = try goodDocument()
        let junk = [UInt8](repeating: 0x58, count: 1000)
        let url = try write(bytes + junk + Array(bytes[endRecord...]))
        let problems = await Verifier(library: try Library(root: folder.url)).verify([url]).files.flatMap(\.problems)
        #expect(problems.map(\.code.rawValue) == ["unaccounted-bytes"])
        #expect(problems.first?.message.contains("1022 bytes at offset \(endRecord)") == true, "\(problems)")
        try await expectRepaired(url)
    }

    func expectRepaired(_ url: URL) async throws {
        let library = try Library(root: folder.url)
        let report = await Repairer(library: library).repair([url])
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"], "\(report.notRepaired.map(\.detail))")
        var stored = Data()
        try DocumentReader(path: url.path).readPDF { stored.append(contentsOf: $0) }
        #expect(stored == pdf)
        #expect(try await codes(url) == [])
    }
}

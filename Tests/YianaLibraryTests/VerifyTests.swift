import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// The damage matrix: each class of damage made from a good archive, and the code verify gives it.
@Suite("verify")
struct VerifyTests {
    func good(_ folder: TemporaryFolder, _ name: String = "Good.yianazip", pageCount: Int = 2, id: UUID = UUID()) throws -> Data {
        let pdf = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))
        let hash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
        try CoordinatedDocument.create(at: folder.path(name), metadata: DocumentMetadata(id: id, title: "Good", pageCount: pageCount, pdfHash: hash), pdf: .data(pdf))
        return try Data(contentsOf: folder.url.appendingPathComponent(name))
    }

    func codes(_ bytes: [UInt8]) async throws -> [String] {
        let folder = try TemporaryFolder()
        try Data(bytes).write(to: folder.url.appendingPathComponent("Doc.yianazip"))
        let report = await Verifier(library: try Library(root: folder.url)).verify()
        return report.files.flatMap { $0.problems.map(\.code.rawValue) }
    }

    /// Offsets in a document written by the toolkit: local headers and the central directory.
    func offset(of marker: [UInt8], in bytes: [UInt8], after start: Int = 0) -> Int {
        (start..<(bytes.count - marker.count)).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }!
    }

    @Test func aGoodDocumentIsClean() async throws {
        let folder = try TemporaryFolder()
        _ = try good(folder)
        let report = await Verifier(library: try Library(root: folder.url)).verify()
        #expect(report.clean && report.files.count == 1)
    }

    @Test func zipLevelDamage() async throws {
        let folder = try TemporaryFolder()
        let bytes = Array(try good(folder))
        #expect(try await codes(Array("this is no zip at all".utf8)) == ["not-a-zip"])
        #expect(try await codes(Array(bytes.prefix(bytes.count / 2))) == ["truncated"])
        #expect(try await codes(Array(repeating: 0x41, count: 100) + bytes).contains("junk-before"))
        #expect(try await codes(bytes + Array(repeating: 0x42, count: 50)) == ["junk-after"])

        var cd = bytes
        cd[offset(of: [0x50, 0x4B, 0x01, 0x02], in: bytes)] = 0
        #expect(try await codes(cd) == ["central-directory-damaged"])

        var local = bytes
        let pdfHeader = offset(of: [0x50, 0x4B, 0x03, 0x04], in: bytes, after: 4)
        local[pdfHeader] = 0x51
        #expect(try await codes(local) == ["bad-local-signature"])

        var mismatch = bytes
        mismatch[10] ^= 0xFF  // metadata.json's local modification time
        #expect(try await codes(mismatch) == ["local-header-mismatch"])

        var crc = bytes
        crc[offset(of: Array("%PDF-".utf8), in: bytes) + 600] ^= 0x01  // inside the PDF's bytes
        #expect(try await codes(crc) == ["crc-mismatch"])
    }

    @Test func hostileEntries() async throws {
        func with(_ change: (inout ZipBuilder) -> Void) -> [UInt8] {
            var builder = ZipBuilder.document()
            change(&builder)
            return builder.build()
        }
        #expect(try await codes(with { $0.entries[2].centralOffset = 0; $0.entries[2].data = $0.entries[0].data }) == ["overlapping-entries"])
        #expect(try await codes(with { $0.entries.append(.init(name: "metadata.json", data: [1])) }) == ["duplicate-names"])
        #expect(try await codes(with { $0.entries.append(.init(name: "../evil", data: [1])) }) == ["unsafe-entry-name"])
        #expect(try await codes(with { $0.entries.append(.init(name: "notes.txt", data: [1])) }) == ["unexpected-entry"])
        #expect(try await codes(with { $0.entries[1].externalAttributes = 0o120777 << 16 }) == ["symlink-entry"])
        #expect(try await codes(with { $0.entries[1].flags = 1 }) == ["encrypted-entry"])
        #expect(try await codes(with { $0.entries[1].uncompressedSize = 5 }) == ["stored-size-mismatch"])
        #expect(try await codes(with { $0.entries[1].compressedSize = 0xFFFF_FFF0; $0.entries[1].uncompressedSize = 0xFFFF_FFF0 }) == ["overlapping-entries"])
    }

    @Test func metadataAndFormat() async throws {
        func with(metadata: String? = ZipBuilder.validMetadata, format: String? = #"{"formatVersion":2}"#) -> [UInt8] {
            var builder = ZipBuilder()
            if let metadata { builder.entries.append(.init(name: "metadata.json", data: Array(metadata.utf8))) }
            builder.entries.append(.init(name: "content.pdf", data: Array(PDFDocumentSample.onePage)))
            if let format { builder.entries.append(.init(name: "format.json", data: Array(format.utf8))) }
            return builder.build()
        }
        #expect(try await codes(with(metadata: nil)) == ["metadata-missing"])
        #expect(try await codes(with(metadata: "{nope")) == ["metadata-not-json"])
        #expect(try await codes(with(metadata: ZipBuilder.validMetadata.replacingOccurrences(of: #""title":"Test","#, with: ""))) == ["metadata-bad-key"])
        #expect(try await codes(with(format: nil)) == ["format-missing"])
        #expect(try await codes(with(format: #"{"formatVersion":7}"#)) == ["format-unknown-version"])
    }

    @Test func documentLevelProblems() async throws {
        let folder = try TemporaryFolder()
        _ = try good(folder, "Pages.yianazip", pageCount: 5)
        var metadata = DocumentMetadata(title: "Hash", pageCount: 2, pdfHash: String(repeating: "0", count: 64))
        let letter = try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))
        try CoordinatedDocument.create(at: folder.path("Hash.yianazip"), metadata: metadata, pdf: .data(letter))
        metadata = DocumentMetadata(title: "Locked", pageCount: 2)
        try CoordinatedDocument.create(at: folder.path("Locked.yianazip"), metadata: metadata,
                                       pdf: .data(try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Encrypted letter.pdf"))))
        try CoordinatedDocument.create(at: folder.path("Damaged.yianazip"), metadata: DocumentMetadata(title: "Damaged", pageCount: 1),
                                       pdf: .data(try Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Damaged download.pdf"))))
        try FileManager.default.copyItem(atPath: Fixtures.sample("archives/Legacy Separator.yianazip"), toPath: folder.path("Legacy.yianazip"))
        try FileManager.default.copyItem(atPath: Fixtures.sample("placeholders/.Quarterly report.yianazip.icloud"), toPath: folder.path(".Quarterly report.yianazip.icloud"))
        let shared = UUID()
        _ = try good(folder, "One.yianazip", id: shared)
        _ = try good(folder, "Two.yianazip", id: shared)
        for temp in [".Good.yianazip.yiana-tmp-0a1b2c3d", "Report.yianazip.Xy12Ab", "\(UUID().uuidString).tmp"] {
            try Data("partial".utf8).write(to: folder.url.appendingPathComponent(temp))
        }

        let report = await Verifier(library: try Library(root: folder.url)).verify()
        let byPath = Dictionary(uniqueKeysWithValues: report.files.map { ($0.path, $0.problems.map(\.code.rawValue)) })
        #expect(byPath["Pages.yianazip"] == ["page-count-mismatch"])
        #expect(byPath["Hash.yianazip"] == ["pdf-hash-mismatch"])
        #expect(byPath["Locked.yianazip"] == ["pdf-encrypted"])
        #expect(byPath["Damaged.yianazip"] == ["pdf-damaged"])
        #expect(byPath["Legacy.yianazip"] == ["legacy-format"])
        #expect(byPath[".Quarterly report.yianazip.icloud"] == ["not-downloaded"])
        #expect(byPath["One.yianazip"] == ["duplicate-id"] && byPath["Two.yianazip"] == ["duplicate-id"])
        #expect(report.files.filter { $0.problems.map(\.code.rawValue) == ["leftover-temp-file"] }.count == 3)
        #expect(report.files.first { $0.path.hasPrefix(".Quarterly") }?.ok == true)  // not damage
        #expect(report.problemCount == 10)
    }
}

/// A tiny valid PDF for archives built in tests.
enum PDFDocumentSample {
    static let onePage = simplePDF(["sample"])
}

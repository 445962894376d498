import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

/// The repair half of the damage matrix: each class, its expected outcome, and that the
/// result verifies and the original is kept.
@Suite("repair")
struct RepairTests {
    let pdf = try! Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Bank statement reminder.pdf"))
    /// The library each test works in; it lives as long as the test.
    let folder = try! TemporaryFolder()

    /// A good document at `Doc.yianazip` (then overwritten with `bytes` when given).
    func library(with bytes: [UInt8]? = nil) throws -> (Library, URL) {
        let url = folder.url.appendingPathComponent("Doc.yianazip")
        let hash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
        try CoordinatedDocument.create(at: url.path, metadata: DocumentMetadata(title: "Doc", pageCount: 2, pdfHash: hash), pdf: .data(pdf))
        if let bytes { try Data(bytes).write(to: url) }
        return (try Library(root: folder.url), url)
    }

    /// The bytes of a good document, made outside the test's library.
    var good: [UInt8] {
        get throws {
            let scratch = try TemporaryFolder()
            let hash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
            try CoordinatedDocument.create(at: scratch.path("Good.yianazip"), metadata: DocumentMetadata(title: "Doc", pageCount: 2, pdfHash: hash), pdf: .data(pdf))
            return Array(try Data(contentsOf: scratch.url.appendingPathComponent("Good.yianazip")))
        }
    }

    func repaired(_ bytes: [UInt8], options: RepairOptions = RepairOptions()) async throws -> (RepairReport, Library, URL) {
        let (library, url) = try library(with: bytes)
        return (await Repairer(library: library).repair(options: options), library, url)
    }

    func expectClean(_ library: Library) async {
        let report = await Verifier(library: library).verify()
        #expect(report.clean, "\(report.files.flatMap(\.problems).map(\.message))")
    }

    func storedPDF(_ url: URL) throws -> Data {
        var data = Data()
        try DocumentReader(path: url.path).readPDF { data.append(contentsOf: $0) }
        return data
    }

    @Test func rewritesWhatIsReadable() async throws {
        let hash = FileHash.sha256 { update in pdf.withUnsafeBytes { update($0) } }
        // Wrong page count, wrong hash, no format.json.
        var builder = ZipBuilder()
        let metadata = DocumentMetadata(title: "Doc", pageCount: 9, pdfHash: String(repeating: "1", count: 64))
        builder.entries = [.init(name: "metadata.json", data: Array(try metadata.jsonData())), .init(name: "content.pdf", data: Array(pdf))]
        let (report, library, url) = try await repaired(builder.build())
        #expect(report.repaired.map(\.action.rawValue) == ["rewrite"])
        let fixed = try DocumentReader(path: url.path)
        #expect(try fixed.metadata().pageCount == 2 && fixed.metadata().pdfHash == hash)
        #expect(fixed.format == .zip(formatVersion: 2, hasFormatFile: true))
        #expect(try VersionStore(library: library).versions(of: url).count == 1)
        await expectClean(library)
    }

    @Test func aGoodDocumentFromTheAppIsLeftByteForByte() async throws {
        try FileManager.default.copyItem(atPath: Fixtures.sample("archives/Sample Letter.yianazip"), toPath: folder.path("Letter.yianazip"))
        let before = try Data(contentsOf: folder.url.appendingPathComponent("Letter.yianazip"))
        let report = await Repairer(library: try Library(root: folder.url)).repair()
        #expect(report.repaired.isEmpty && report.notRepaired.isEmpty && report.offered.isEmpty)
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("Letter.yianazip")) == before)
    }

    @Test func migratesTheLegacyFormats() async throws {
        try FileManager.default.copyItem(atPath: Fixtures.sample("archives/Legacy Separator.yianazip"), toPath: folder.path("Old.yianazip"))
        let library = try Library(root: folder.url)
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["migrate"])
        let reader = try DocumentReader(path: folder.path("Old.yianazip"))
        #expect(reader.format == .zip(formatVersion: 2, hasFormatFile: true))
        #expect(try storedPDF(folder.url.appendingPathComponent("Old.yianazip")) == Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Flow control paper.pdf")))
        await expectClean(library)
    }

    /// The legacy "metadata + FF FF FF FF + nothing": a document without a PDF, as the app
    /// read it (`pdfData = nil`), never a damaged 0-byte PDF; migrated without `content.pdf`.
    @Test func aLegacySeparatorWithNothingAfterItIsADocumentWithoutAPDF() async throws {
        let metadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"Doc","created":800000000,"modified":800000001.5,"pageCount":0,"tags":[],"ocrCompleted":false}"#
        let (library, url) = try library(with: Array(metadata.utf8) + [0xFF, 0xFF, 0xFF, 0xFF])
        let reader = try DocumentReader(path: url.path)
        #expect(reader.format == .legacySeparatorNoPDF && reader.pdf == nil)
        let verified = await Verifier(library: library).verify()
        #expect(verified.files[0].problems.map(\.code.rawValue) == ["legacy-format"], "\(verified.files[0].problems)")
        #expect(verified.files[0].problems[0].message.contains("without a PDF"))
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["migrate"], "\(report.notRepaired.map(\.detail))")
        let migrated = try DocumentReader(path: url.path)
        #expect(migrated.entries.map(\.name) == ["metadata.json", "format.json"])
        #expect(try migrated.metadata().title == "Doc")
        await expectClean(library)
    }

    @Test func aDuplicateIdGoesToTheCopy() async throws {
        let (library, url) = try library()
        try FileManager.default.copyItem(at: url, to: folder.url.appendingPathComponent("Doc Copy.yianazip"))
        let id = try DocumentReader(path: url.path).metadata().id
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.path) == ["Doc Copy.yianazip"])
        #expect(try DocumentReader(path: url.path).metadata().id == id)
        #expect(try DocumentReader(path: folder.path("Doc Copy.yianazip")).metadata().id != id)
        await expectClean(library)
    }

    @Test(arguments: ["Doc (Bob's conflicted copy 2026-03-01).yianazip", "Doc 2.yianazip", "Doc.sync-conflict-20260301-142233-ABCDEF7.yianazip"])
    func aSyncConflictCopyKeepsItsIdForConflictsResolve(copy: String) async throws {
        let (library, url) = try library()
        try FileManager.default.copyItem(at: url, to: folder.url.appendingPathComponent(copy))
        let id = try DocumentReader(path: url.path).metadata().id
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.isEmpty)
        #expect(report.notRepaired.map(\.path) == [copy])
        #expect(report.notRepaired.first?.detail.contains("yiana conflicts resolve") == true)
        #expect(try DocumentReader(path: folder.path(copy)).metadata().id == id)
    }

    @Test func recoversAnEntryWhoseLocalSignatureIsOverwritten() async throws {
        var bytes = try good
        let second = (4..<bytes.count).first { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x03 && bytes[$0 + 3] == 0x04 }!
        bytes[second] = 0x00
        let (report, library, url) = try await repaired(bytes)
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"])
        #expect(try storedPDF(url) == pdf)
        await expectClean(library)
    }

    @Test func theChainOfLocalHeadersFindsAnEntryNothingElseDoes() async throws {
        // The PDF's local signature is overwritten and the central directory is gone:
        // only the metadata entry's sizes say where the PDF's header is.
        var bytes = try good
        let second = (4..<bytes.count).first { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x03 && bytes[$0 + 3] == 0x04 }!
        let directory = (0..<bytes.count).first { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x01 && bytes[$0 + 3] == 0x02 }!
        bytes[second] = 0x00
        bytes.removeLast(bytes.count - directory)
        let (report, library, url) = try await repaired(bytes)
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"], "\(report.notRepaired.map(\.detail))")
        #expect(report.repaired.first?.detail.contains("chain of local headers") == true)
        #expect(try storedPDF(url) == pdf)
        await expectClean(library)
    }

    @Test(arguments: ["junk-after", "junk-before", "central-directory"])
    func salvagesFromTheEvidence(damage: String) async throws {
        var bytes = try good
        switch damage {
        case "junk-after": bytes += Array(repeating: 0x42, count: 77)
        case "junk-before": bytes = Array(repeating: 0x41, count: 64) + bytes
        default:
            let cd = (0..<bytes.count).first { bytes[$0] == 0x50 && bytes[$0 + 1] == 0x4B && bytes[$0 + 2] == 0x01 && bytes[$0 + 3] == 0x02 }!
            bytes[cd] = 0
        }
        let (report, library, url) = try await repaired(bytes)
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"], "\(damage): \(report.notRepaired.map(\.detail))")
        #expect(try storedPDF(url) == pdf)
        await expectClean(library)
    }

    @Test func aCutOffPDFGoesToASideFileAndTheMetadataIsKept() async throws {
        let bytes = try good
        let cut = Array(bytes.prefix(bytes.count - 1500))  // into the PDF: the end and the directory are gone
        let (report, library, url) = try await repaired(cut)
        #expect(report.repaired.first?.detail.contains("partial PDF") == true)
        let reader = try DocumentReader(path: url.path)
        #expect(try reader.metadata().title == "Doc" && reader.pdf == nil)
        let side = try Data(contentsOf: folder.url.appendingPathComponent("Doc (partial PDF).pdf"))
        #expect(pdf.starts(with: side) && side.count > 0)
        await expectClean(library)
    }

    /// A side file never replaces anything: the user's own `Doc (partial PDF).pdf` stays
    /// byte for byte, and two damaged documents with the same title get two side files,
    /// each named in its report as the name it really got.
    @Test func aSideFileNeverReplacesAFile() async throws {
        let bytes = try good
        let cut = Array(bytes.prefix(bytes.count - 1500))
        let (library, _) = try library(with: cut)
        try Data(cut).write(to: folder.url.appendingPathComponent("Other.yianazip"))  // also titled "Doc"
        let mine = Data("the user's own notes".utf8)
        try mine.write(to: folder.url.appendingPathComponent("Doc (partial PDF).pdf"))
        try Data("and another".utf8).write(to: folder.url.appendingPathComponent("doc (PARTIAL pdf) 2.pdf"))  // the same name on a Mac
        var dry = RepairOptions()
        dry.dryRun = true
        let preview = await Repairer(library: library).repair(options: dry)
        #expect(preview.repaired.allSatisfy { $0.detail.contains("Doc (partial PDF) 3.pdf") }, "\(preview.repaired.map(\.detail))")
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["salvage", "salvage"], "\(report.notRepaired.map(\.detail))")
        #expect(try Data(contentsOf: folder.url.appendingPathComponent("Doc (partial PDF).pdf")) == mine)
        let named = report.repaired.map { detail in ["Doc (partial PDF) 3.pdf", "Doc (partial PDF) 4.pdf"].filter { detail.detail.contains($0) } }
        #expect(Set(named.flatMap { $0 }) == ["Doc (partial PDF) 3.pdf", "Doc (partial PDF) 4.pdf"] && named.allSatisfy { $0.count == 1 }, "\(report.repaired.map(\.detail))")
        for name in ["Doc (partial PDF) 3.pdf", "Doc (partial PDF) 4.pdf"] {
            let side = try Data(contentsOf: folder.url.appendingPathComponent(name))
            #expect(pdf.starts(with: side) && !side.isEmpty)
        }
    }

    /// A repair that fails writes nothing, not even a version record, however often it runs.
    @Test func aFailedRepairWritesNoVersionRecord() async throws {
        // Junk after the archive (salvage), and a content.pdf that is no PDF (the result cannot verify).
        let builder = ZipBuilder.document(metadata: String(decoding: try DocumentMetadata(title: "Doc", pageCount: 1).jsonData(), as: UTF8.self),
                                          pdf: Array("this is not a PDF at all".utf8))
        let (library, url) = try library(with: builder.build() + Array(repeating: 0x4A, count: 400))
        let before = try Data(contentsOf: url)
        for _ in 0..<3 {
            let report = await Repairer(library: library).repair()
            #expect(report.repaired.isEmpty && report.notRepaired.count == 1)
        }
        #expect(try Data(contentsOf: url) == before)
        #expect(try VersionStore(library: library).records().isEmpty)
    }

    /// A `.yianazip` that is a bare PDF (the app's markup code wrote such files in 2025):
    /// verify names it, repair wraps it, the PDF byte for byte, titled from its name.
    @Test func aBarePDFIsWrappedIntoADocument() async throws {
        let (library, url) = try library(with: Array(pdf))
        let verified = await Verifier(library: library).verify()
        #expect(verified.files[0].problems.map(\.code.rawValue) == ["bare-pdf"])
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["wrap"], "\(report.notRepaired.map(\.detail))")
        let metadata = try DocumentReader(path: url.path).metadata()
        #expect(metadata.title == "Doc" && metadata.pageCount == 2)
        #expect(try storedPDF(url) == pdf)
        #expect(try VersionStore(library: library).versions(of: url).count == 1)
        await expectClean(library)
    }

    /// The id and title come from the history and the kept versions when they know this PDF.
    @Test func aBarePDFTakesItsIdAndTitleFromTheHistory() async throws {
        let (library, url) = try library()
        let reader = try DocumentReader(path: url.path)
        let original = try reader.metadata()
        let renamed = folder.url.appendingPathComponent("Renamed.yianazip")
        try FileManager.default.moveItem(at: url, to: renamed)
        var titled = original
        titled.title = "Quarterly statement"
        try CoordinatedDocument.replace(at: renamed.path, metadata: titled, pdf: .data(pdf))
        let written = try DocumentReader(path: renamed.path)
        try DocumentHistory(library: library).record(documentID: original.id.uuidString, key: written.contentKey!, parents: [], what: "import")
        _ = try VersionStore(library: library).keep(renamed, reason: "earlier")
        try FileManager.default.removeItem(at: renamed)
        try pdf.write(to: folder.url.appendingPathComponent("Scan.yianazip"))
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["wrap"], "\(report.notRepaired.map(\.detail))")
        let metadata = try DocumentReader(path: folder.path("Scan.yianazip")).metadata()
        #expect(metadata.id == original.id && metadata.title == "Quarterly statement")
        await expectClean(library)
    }

    @Test func aBadKeyIsFixedAndEverythingElseKept() async throws {
        let metadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":42,"created":800000000,"modified":800000001.5,"pageCount":1,"tags":["tax"],"ocrCompleted":false,"ocrConfidence":"high","futureKey":{"a":1}}"#
        let (report, library, url) = try await repaired(ZipBuilder.document(metadata: metadata, pdf: Array(pdf)).build())
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"], "\(report.notRepaired.map(\.detail))")
        let detail = report.repaired.first?.detail ?? ""
        #expect(detail.contains("\"title\" was unreadable") && detail.contains("\"ocrConfidence\" was unreadable; dropped"), "\(detail)")
        let fixed = try DocumentReader(path: url.path).metadata()
        #expect(fixed.id.uuidString == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
        #expect(fixed.title == "Doc" && fixed.tags == ["tax"] && fixed.pageCount == 2 && fixed.ocrConfidence == nil)
        #expect(fixed.unknownFields["futureKey"] == .object(["a": .integer(1)]))
        #expect(try storedPDF(url) == pdf)
        await expectClean(library)
    }

    /// Metadata the app's own decoder refuses (an `ocrSource` it has no case for, a date as a
    /// string) fails verify, and repair rewrites it as the app reads it, keeping the original.
    @Test func metadataTheAppCannotOpenFailsVerifyAndIsMended() async throws {
        let metadata = #"{"id":"E621E1F8-C36C-495A-93FC-0C247A3E6E5F","title":"Doc","created":"2026-03-01T10:00:00Z","modified":800000001.5,"pageCount":2,"tags":[],"ocrCompleted":true,"ocrSource":"tesseract"}"#
        let (library, url) = try library(with: ZipBuilder.document(metadata: metadata, pdf: Array(pdf)).build())
        let before = await Verifier(library: library).verify()
        #expect(before.files[0].problems.filter { $0.code.rawValue == "metadata-app-refuses" }.count == 2, "\(before.files[0].problems)")
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["rewrite"], "\(report.notRepaired.map(\.detail))")
        let fixed = try DocumentReader(path: url.path).metadata()
        #expect(fixed.appRefusals.isEmpty && fixed.ocrSource == nil && fixed.ocrCompleted)
        #expect(fixed.created == ISO8601DateFormatter().date(from: "2026-03-01T10:00:00Z"))
        #expect(try VersionStore(library: library).versions(of: url).count == 1)
        await expectClean(library)
    }

    @Test(arguments: ["not json at all", ""])
    func lostMetadataIsRebuiltAroundAnIntactPDF(metadata: String) async throws {
        // A version kept earlier gives back the id and the title.
        let (library, url) = try library()
        let before = try DocumentReader(path: url.path).metadata()
        _ = try VersionStore(library: library).keep(url, reason: "earlier")
        var builder = ZipBuilder.document(metadata: metadata, pdf: Array(pdf))
        if metadata.isEmpty { builder.entries.removeFirst() }
        try Data(builder.build()).write(to: url)
        let report = await Repairer(library: library).repair()
        #expect(report.repaired.map(\.action.rawValue) == ["salvage"], "\(report.notRepaired.map(\.detail))")
        let fixed = try DocumentReader(path: url.path).metadata()
        #expect(fixed.id == before.id && fixed.title == "Doc" && fixed.pageCount == 2)
        #expect(try storedPDF(url) == pdf)
        await expectClean(library)
    }

    @Test func nothingRecoverableOffersTheNewestGoodVersion() async throws {
        let (library, url) = try library()
        let kept = try VersionStore(library: library).keep(url, reason: "earlier")
        try Data("PK\u{3}\u{4}nothing useful at all".utf8).write(to: url)
        let first = await Repairer(library: library).repair()
        #expect(first.notRepaired.first?.detail.contains("--from-version") == true)
        #expect(first.notRepaired.first?.detail.contains(kept.shortID) == true)
        var options = RepairOptions()
        options.fromVersion = true
        let second = await Repairer(library: library).repair(options: options)
        #expect(second.repaired.map(\.action.rawValue) == ["from-version"])
        await expectClean(library)
    }

    func damaged(_ damage: String) throws -> [UInt8] {
        let bytes = try good
        func offset(of marker: [UInt8], after start: Int = 0) -> Int {
            (start..<(bytes.count - marker.count)).first { bytes[$0..<($0 + marker.count)].elementsEqual(marker) }!
        }
        func with(_ change: (inout ZipBuilder) -> Void) -> [UInt8] {
            var builder = ZipBuilder.document(metadata: String(decoding: try! DocumentMetadata(title: "Doc", pageCount: 2).jsonData(), as: UTF8.self), pdf: Array(pdf))
            change(&builder)
            return builder.build()
        }
        var changed = bytes
        switch damage {
        case "not-a-zip": return Array("this is no zip at all".utf8)
        // Both inside the PDF's bytes, found by their header wherever the layout puts them.
        case "truncated": return Array(bytes.prefix(offset(of: Array("%PDF-".utf8)) + pdf.count / 2))
        case "local-header-mismatch": changed[10] ^= 0xFF
        case "crc-mismatch": changed[offset(of: Array("%PDF-".utf8)) + 600] ^= 0x01
        case "overlapping-entries": return with { $0.entries[2].centralOffset = 0; $0.entries[2].data = $0.entries[0].data }
        case "duplicate-names": return with { $0.entries.insert(.init(name: "metadata.json", data: [1]), at: 0) }
        case "unsafe-entry-name": return with { $0.entries.append(.init(name: "../evil", data: [1])) }
        case "unexpected-entry": return with { $0.entries.append(.init(name: "notes.txt", data: [1])) }
        case "symlink-entry": return with { $0.entries[1].externalAttributes = 0o120777 << 16 }
        case "encrypted-entry": return with { $0.entries[1].flags = 1 }
        case "stored-size-mismatch": return with { $0.entries[1].uncompressedSize = 5 }
        case "huge-declared-size": return with { $0.entries[1].compressedSize = 0xFFFF_FFF0; $0.entries[1].uncompressedSize = 0xFFFF_FFF0 }
        case "format-unknown-version": return with { $0.entries[2].data = Array(#"{"formatVersion":7}"#.utf8) }
        case "pdf-damaged": return with { $0.entries[1].data = Array(try! Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Damaged download.pdf"))) }
        case "pdf-encrypted": return with { $0.entries[1].data = Array(try! Data(contentsOf: Fixtures.sampleDocs.appendingPathComponent("pdfs/Encrypted letter.pdf"))) }
        default: Issue.record("no damage \(damage)")
        }
        return changed
    }

    @Test(arguments: matrix)
    func theRepairMatrix(damage: String, action: String, outcome: String) async throws {
        let bytes = try damaged(damage)
        let (library, url) = try library(with: bytes)
        let before = await Verifier(library: library).verify()
        #expect(!before.clean, "\(damage) made no damage")
        var dryRun = RepairOptions()
        dryRun.dryRun = true
        let listing = { FileManager.default.enumerator(atPath: folder.url.path)!.allObjects.map { "\($0)" }.sorted() }
        let filesBefore = listing()
        let preview = await Repairer(library: library).repair(options: dryRun)
        #expect(try Data(contentsOf: url) == Data(bytes) && VersionStore(library: library).records().isEmpty, "\(damage): the dry run changed something")
        #expect(listing() == filesBefore, "\(damage): the dry run created files in the library")
        #expect(!FileManager.default.fileExists(atPath: folder.path("Doc (partial PDF).pdf")))
        let report = await Repairer(library: library).repair()
        #expect((report.repaired + report.notRepaired).map(\.action.rawValue) == [action], "\(damage): \(report.notRepaired.map(\.detail))")
        #expect((preview.repaired + preview.notRepaired).map(\.action.rawValue) == [action], "\(damage): the dry run said otherwise")
        switch outcome {
        case "left":
            #expect(try Data(contentsOf: url) == Data(bytes), "\(damage): written though not repaired")
            #expect(report.notRepaired.first?.detail.isEmpty == false)
        default:
            #expect(try VersionStore(library: library).versions(of: url).count == 1, "\(damage): the original was not kept")
            let kept = try VersionStore(library: library).records()[0]
            #expect(try Data(contentsOf: VersionStore(library: library).objectURL(kept)) == Data(bytes), "\(damage): the original kept is not byte for byte")
            if outcome == "pdf" {
                #expect(try storedPDF(url) == pdf, "\(damage)")
            } else {
                let side = try Data(contentsOf: folder.url.appendingPathComponent("Doc (partial PDF).pdf"))
                #expect(!side.isEmpty && side.count <= pdf.count && side.starts(with: pdf.prefix(200)), "\(damage): side file \(side.count) bytes")
            }
            await expectClean(library)
        }
    }
}

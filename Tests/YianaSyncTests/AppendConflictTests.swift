import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

/// The same letter appended on two devices while apart: the two versions hold the same PDF,
/// byte for byte, and the same record of the append, so the conflict a sync program makes of
/// them resolves to one document holding the letter once.
@Suite("a letter appended on two devices")
struct AppendConflictTests {
    @Test func theSameAppendOnTwoDevicesResolvesToOneDocumentWithTheLetterOnce() async throws {
        let a = try TemporaryFolder(), b = try TemporaryFolder()
        let name = "Smith_Jane_010180.yianazip"
        try CoordinatedDocument.create(at: a.path(name), metadata: DocumentMetadata(title: "Smith_Jane_010180", pageCount: 1), pdf: .data(simplePDF(["Referral"])))
        try FileManager.default.copyItem(atPath: a.path(name), toPath: b.path(name))
        let letter = a.url.appendingPathComponent("letter.pdf")
        try simplePDF(["Dear Dr Brown"]).write(to: letter)
        var options = AppendOptions()
        options.letterID = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
        _ = try Appender(library: try Library(root: a.url)).append([letter], to: a.url.appendingPathComponent(name), options: options, now: Date())
        _ = try Appender(library: try Library(root: b.url)).append([letter], to: b.url.appendingPathComponent(name), options: options,
                                                                     now: Date(timeIntervalSinceNow: 30))
        var pdfA = Data(), pdfB = Data()
        try DocumentReader(path: a.path(name)).readPDF { pdfA.append(contentsOf: $0) }
        try DocumentReader(path: b.path(name)).readPDF { pdfB.append(contentsOf: $0) }
        #expect(pdfA == pdfB, "qpdf writes the same PDF on both devices")
        var metadataA = try DocumentReader(path: a.path(name)).metadata(), metadataB = try DocumentReader(path: b.path(name)).metadata()
        #expect(metadataA.modified != metadataB.modified)
        metadataA.modified = metadataB.modified
        #expect(metadataA == metadataB && metadataA.unknownFields == metadataB.unknownFields, "the same record of the append")
        // The sync program's conflict copy, resolved.
        let copy = "Smith_Jane_010180.sync-conflict-20261124-101010-ABCDEF7.yianazip"
        try FileManager.default.copyItem(atPath: b.path(name), toPath: a.path(copy))
        var resolve = ResolveOptions(strategy: .merge)
        resolve.settle = 0
        let report = try await ConflictResolver(library: try Library(root: a.url)).resolve(resolve)
        #expect(report.failed.isEmpty && report.resolutions.flatMap(\.overruled).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: a.path(copy)))
        #expect(try DocumentReader(path: a.path(name)).metadata().pageCount == 2)
        #expect(try LibraryScanner.scan(try Library(root: a.url)).items.count == 1)
    }

    /// Apart, device A injected letter L; device B injected L and then M. Both changed the
    /// PDF, neither descends from the other, and B's holds every page A's does: the merge keeps
    /// B's PDF whole, L once, and makes no "(other PDF)" document.
    @Test func appendsOnBothSidesMergeToOnePDFWithEachLetterOnce() async throws {
        let a = try TemporaryFolder(), b = try TemporaryFolder()
        let name = "Smith_Jane_010180.yianazip"
        try CoordinatedDocument.create(at: a.path(name), metadata: DocumentMetadata(title: "Smith_Jane_010180", pageCount: 1), pdf: .data(simplePDF(["Referral"])))
        try FileManager.default.copyItem(atPath: a.path(name), toPath: b.path(name))
        let l = a.url.appendingPathComponent("l.pdf"), m = a.url.appendingPathComponent("m.pdf")
        try simplePDF(["Dear Dr Brown"]).write(to: l)
        try simplePDF(["Follow-up appointment", "Tuesday"]).write(to: m)
        func append(_ pdf: URL, letter: String, to folder: TemporaryFolder, at time: TimeInterval) throws {
            var options = AppendOptions()
            options.letterID = letter
            let report = try Appender(library: try Library(root: folder.url)).append([pdf], to: folder.url.appendingPathComponent(name), options: options,
                                                                                    now: Date(timeIntervalSinceNow: time))
            #expect(report.appended.count == 1)
        }
        try append(l, letter: "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", to: a, at: 0)
        try append(l, letter: "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", to: b, at: 10)
        try append(m, letter: "1b4e28ba-2fa1-41d2-883f-0016d3cca427", to: b, at: 20)
        var pdfB = Data()
        try DocumentReader(path: b.path(name)).readPDF { pdfB.append(contentsOf: $0) }
        let bytesA = try Data(contentsOf: a.url.appendingPathComponent(name)), bytesB = try Data(contentsOf: b.url.appendingPathComponent(name))
        // The sync program brings B's version as a conflict copy, and B's logs and versions.
        let copy = "Smith_Jane_010180.sync-conflict-20261125-101010-ABCDEF7.yianazip"
        try FileManager.default.copyItem(atPath: b.path(name), toPath: a.path(copy))
        try bringSharedState(from: b.url, to: a.url)
        var resolve = ResolveOptions(strategy: .merge)
        resolve.settle = 0
        let library = try Library(root: a.url)
        let report = try await ConflictResolver(library: library).resolve(resolve)
        #expect(report.failed.isEmpty && report.resolutions.flatMap(\.overruled).isEmpty, "\(report)")
        #expect(report.resolutions.flatMap(\.steps).map(\.action) == ["merge-metadata", "remove-copy"])
        #expect(!FileManager.default.fileExists(atPath: a.path(copy)))
        #expect(try LibraryScanner.scan(library).items.map(\.url.lastPathComponent) == [name], "no (other PDF) document")
        var merged = Data()
        try DocumentReader(path: a.path(name)).readPDF { merged.append(contentsOf: $0) }
        #expect(merged == pdfB, "B's PDF, which holds L once and M")
        let metadata = try DocumentReader(path: a.path(name)).metadata()
        #expect(metadata.pageCount == 3)
        #expect(Appender.recordedAppends(metadata).map(\.pages) == ["2", "3"])
        #expect(await Verifier(library: library).verify().clean)
        // Both devices' versions are kept, byte for byte.
        let kept = try VersionStore(library: library).records().compactMap { try? Data(contentsOf: VersionStore(library: library).objectURL($0)) }
        #expect(kept.contains(bytesA) && kept.contains(bytesB))
    }
}

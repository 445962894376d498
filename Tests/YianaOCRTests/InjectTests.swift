import Foundation
import Testing
import YianaArchive
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary
import YianaPDF
import YianaTestSupport

/// `yiana inject`: the app's grammar, its unmatched folder, and what it does better
/// (ambiguity reported, letters still arriving left, never twice, leftover claims).
@Suite(.serialized) struct InjectTests {
    let pdfs = Fixtures.sampleDocs.appendingPathComponent("pdfs")
    let letterID = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"

    func library() throws -> (TemporaryFolder, Library) {
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("Clinic"), withIntermediateDirectories: true)
        try CoordinatedDocument.create(at: folder.path("Clinic/Smith_Jane_010180.yianazip"), metadata: DocumentMetadata(title: "Smith_Jane_010180", pageCount: 1),
                                       pdf: .data(simplePDF(["Referral for Jane Smith"])))
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent(".letters/inject"), withIntermediateDirectories: true)
        return (folder, try Library(root: folder.url))
    }

    @discardableResult
    func drop(_ name: String, _ pdf: Data, in folder: TemporaryFolder) throws -> URL {
        let url = folder.url.appendingPathComponent(".letters/inject/\(name)")
        try pdf.write(to: url)
        return url
    }

    func options() -> InjectOptions {
        var options = InjectOptions()
        options.settle = 5
        return options
    }

    @Test func aLetterIsAppendedOnceAndNeverAgain() async throws {
        let (folder, library) = try library()
        let letter = simplePDF(["Dear Dr Brown, about Jane Smith"])
        try drop("Smith_Jane_010180_\(letterID).pdf", letter, in: folder)
        let report = try Injector(library: library).run(options())
        #expect(report.letters.map(\.outcome) == [.appended] && report.letters.first?.pages == "2" && !report.failed)
        let document = folder.url.appendingPathComponent("Clinic/Smith_Jane_010180.yianazip")
        #expect(try DocumentReader(path: document.path).metadata().pageCount == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path(".letters/inject")).isEmpty)
        // The same letter arrives again (another device's copy, a sync): never appended twice.
        try drop("Smith_Jane_010180_\(letterID.uppercased()).pdf", letter, in: folder)
        let again = try Injector(library: library).run(options())
        #expect(again.letters.map(\.outcome) == [.alreadyAppended] && again.letters.first?.keptAs != nil)
        #expect(try DocumentReader(path: document.path).metadata().pageCount == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path(".letters/inject")).isEmpty)
        #expect(await Verifier(library: library).verify().clean)
    }

    @Test func whatCannotBeAppendedGoesToUnmatchedOrWaits() throws {
        let (folder, library) = try library()
        let letter = simplePDF(["a letter"])
        let broken = "Smith_Jane_010180_1B4E28BA-2FA1-11D2-883F-0016D3CCA427.pdf"
        try drop("no-uuid-here.pdf", letter, in: folder)
        try drop("Nobody_\(letterID).pdf", letter, in: folder)
        try drop(broken, Data("%PDF-1.4 cut off while it arri".utf8), in: folder)
        // Just written: a PDF that does not read whole is still arriving, and waits.
        let first = try Injector(library: library).run(options())
        let outcomes = Dictionary(uniqueKeysWithValues: first.letters.map { (($0.path as NSString).lastPathComponent, $0.outcome) })
        #expect(outcomes == ["no-uuid-here.pdf": .unmatched, "Nobody_\(letterID).pdf": .unmatched, broken: .waiting])
        #expect(first.failed)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder.path(".letters/unmatched"))) == ["no-uuid-here.pdf", "Nobody_\(letterID).pdf"])
        // A minute later it has not changed: it is damaged, and goes to unmatched with the reason.
        let later = try Injector(library: library).run(options(), now: Date(timeIntervalSinceNow: 60))
        #expect(later.letters.map(\.outcome) == [.unmatched] && later.letters.first?.reason?.contains("damaged") == true)
        #expect(FileManager.default.fileExists(atPath: folder.path(".letters/unmatched/\(broken)")))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path(".letters/inject")).isEmpty)
        #expect(try DocumentReader(path: folder.path("Clinic/Smith_Jane_010180.yianazip")).metadata().pageCount == 1)
    }

    @Test func twoDocumentsOfTheNameAreReportedAndAClaimLeftIsGivenBack() throws {
        let (folder, library) = try library()
        try CoordinatedDocument.create(at: folder.path("Smith_Jane_010180.yianazip"), metadata: DocumentMetadata(title: "Other", pageCount: 1),
                                       pdf: .data(simplePDF(["another"])))
        try drop("Smith_Jane_010180_\(letterID).pdf", simplePDF(["a letter"]), in: folder)
        let report = try Injector(library: library).run(options())
        #expect(report.letters.map(\.outcome) == [.ambiguous])
        #expect(report.letters.first?.reason?.contains("Clinic/Smith_Jane_010180.yianazip") == true)
        #expect(FileManager.default.fileExists(atPath: folder.path(".letters/inject/Smith_Jane_010180_\(letterID).pdf")))
        // A claim a killed run left: reported, then given back.
        try FileManager.default.removeItem(atPath: folder.path("Smith_Jane_010180.yianazip"))
        let claim = folder.path(".letters/inject/Smith_Jane_010180_\(letterID).pdf")
        try FileManager.default.moveItem(atPath: claim, toPath: claim + ".processing")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3600)], ofItemAtPath: claim + ".processing")
        #expect(try Injector(library: library).run(options()).letters.map(\.outcome) == [.claimLeft])
        var release = options()
        release.releaseClaims = true
        #expect(try Injector(library: library).run(release).letters.map(\.outcome) == [.released])
        #expect(try Injector(library: library).run(options()).letters.map(\.outcome) == [.appended])
    }

    /// A claim this machine made and a killed run left (its record here, its lock free): the
    /// next run finishes it at once, here by sending it to unmatched under the letter's own name.
    @Test func thisMachinesUnfinishedClaimIsFinishedByTheNextRun() throws {
        let (folder, library) = try library()
        let claim = folder.url.appendingPathComponent(".letters/inject/Nobody_\(letterID).pdf.processing")
        try simplePDF(["a letter"]).write(to: claim)
        try Injector(library: library).claims.record(claim)
        let report = try Injector(library: library).run(options())
        #expect(report.letters.map(\.outcome) == [.unmatched])
        #expect(FileManager.default.fileExists(atPath: folder.path(".letters/unmatched/Nobody_\(letterID).pdf")))
        #expect(!Injector(library: library).claims.isOurs(claim))
    }
}

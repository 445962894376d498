import Foundation
import Testing
import YianaArchive
import YianaTestSupport
@testable import YianaFolder
@testable import YianaHistory
@testable import YianaLibrary

@Suite("companion files")
struct CompanionTests {
    // MARK: The path grammar

    @Test(arguments: [
        // path, kind, key, plain path, conflict copy
        (".addresses/Smith_Jane_010180.json", CompanionKind.addressExtraction, "Smith_Jane_010180", ".addresses/Smith_Jane_010180.json", false),
        (".addresses/Smith_Jane_010180.overrides.json", .addressCorrections, "Smith_Jane_010180", ".addresses/Smith_Jane_010180.overrides.json", false),
        (".addresses/Report 2.json", .addressExtraction, "Report 2", ".addresses/Report 2.json", false),
        (".addresses/Report 2.overrides.json", .addressCorrections, "Report 2", ".addresses/Report 2.overrides.json", false),
        (".addresses/X.overrides (conflict_on_2026-11-24).json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides.sync-conflict-20261124-101010-ABCDEF7.json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides.json..path1", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides.conflict2.json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides (Bob's conflicted copy 2026-11-24).json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides (conflicted copy 2026-11-24 101010).json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides-laptop-safeBackup-0001.json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides 2.json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/X.overrides (conflict_on_2026-11-24).sync-conflict-20261125-090000-ABC.json", .addressCorrections, "X", ".addresses/X.overrides.json", true),
        (".addresses/Report 2.sync-conflict-20261124-101010-ABCDEF7.json", .addressExtraction, "Report 2", ".addresses/Report 2.json", true),
        (".addresses/Zoë Ånström.overrides (conflict_on_2026-11-24).json", .addressCorrections, "Zoë Ånström", ".addresses/Zoë Ånström.overrides.json", true),
        (".addresses/Zoe\u{301} Ånstro\u{308}m.json.tmp", .addressExtraction, "Zoe\u{301} Ånstro\u{308}m", ".addresses/Zoe\u{301} Ånstro\u{308}m.json", false),
        (".worklist.json", .workList, nil, ".worklist.json", false),
        (".worklist (conflict_on_2026-11-24).json", .workList, nil, ".worklist.json", true),
        (".worklist.sync-conflict-20261124-101010-ABCDEF7.json", .workList, nil, ".worklist.json", true),
        (".worklist.json..path2", .workList, nil, ".worklist.json", true),
        (".worklist 2.json", .workList, nil, ".worklist.json", true),
        (".yiana-worklist.json", .legacyWorkList, nil, ".yiana-worklist.json", false),
        (".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json", .letterDraft, "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", ".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json", false),
        (".letters/drafts/0C1D2E3F-4A5B-4C6D-8E7F-8091A2B3C4D5.json", .letterDraft, "0C1D2E3F-4A5B-4C6D-8E7F-8091A2B3C4D5", ".letters/drafts/0C1D2E3F-4A5B-4C6D-8E7F-8091A2B3C4D5.json", false),
        (".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5 (conflict_on_2026-11-24).json", .letterDraft, "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", ".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json", true),
        (".letters/config/sender.json", .senderConfig, nil, ".letters/config/sender.json", false),
        (".letters/config/sender.sync-conflict-20261124-101010-ABCDEF7.json", .senderConfig, nil, ".letters/config/sender.json", true),
        (".letters/rendered/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5/letter.pdf", .renderedLetter, "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", ".letters/rendered/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5/letter.pdf", false),
        (".letters/inject/Smith_Jane_010180_0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.pdf", .injectLetter, "Smith_Jane_010180", ".letters/inject/Smith_Jane_010180_0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.pdf", false),
        (".letters/inject/Smith_Jane_010180_0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.pdf.processing", .injectLetter, "Smith_Jane_010180", ".letters/inject/Smith_Jane_010180_0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.pdf.processing", false),
    ] as [(String, CompanionKind, String?, String, Bool)])
    func pathGrammar(path: String, kind: CompanionKind, key: String?, plain: String, copy: Bool) throws {
        let file = try #require(CompanionFile.classify(path))
        #expect(file.kind == kind)
        #expect(file.key == key)
        #expect(file.plainPath == plain)
        #expect(file.isConflictCopy == copy)
        #expect(file.isTemp == path.hasSuffix(".tmp"))
    }

    @Test func temporaryNames() throws {
        let appTemp = try #require(CompanionFile.classify(".addresses/X.overrides.json.tmp"))
        #expect(appTemp.isTemp && appTemp.kind == .addressCorrections && appTemp.plainPath == ".addresses/X.overrides.json")
        let draftTemp = try #require(CompanionFile.classify(".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json.tmp"))
        #expect(draftTemp.isTemp && draftTemp.kind == .letterDraft)
        let workListTemp = try #require(CompanionFile.classify("E621E1F8-C36C-495A-93FC-0C247A3E6E5F.tmp"))
        #expect(workListTemp.isTemp && workListTemp.kind == .workList && workListTemp.plainPath == ".worklist.json")
        let ours = try #require(CompanionFile.classify(".addresses/.X.json.yiana-tmp-0badcafe"))
        #expect(ours.isTemp && ours.kind == .addressExtraction && ours.plainPath == ".addresses/X.json")
        #expect(CompanionFile.classify(".addresses/.DS_Store") == nil)
        #expect(CompanionFile.classify("Report.yianazip") == nil)
        #expect(CompanionFile.classify(".letters/inject/notes.pdf")?.key == nil)
    }

    @Test func aMarkThatMayBeATitleIsDecidedByTheDocumentIDInside() throws {
        let file = try #require(CompanionFile.classify(".addresses/Report 2.json"))
        #expect(file.copyByContent(documentID: "Report 2") == nil)
        let copy = try #require(file.copyByContent(documentID: "Report"))
        #expect(copy.plainPath == ".addresses/Report.json" && copy.isConflictCopy && copy.key == "Report")
        #expect(file.copyByContent(documentID: "Something else") == nil)
    }

    // MARK: The app's decoders

    @Test func everyFixtureWrittenFromTheAppsModelsDecodes() throws {
        let cases: [(CompanionKind, String)] = [
            (.addressExtraction, CompanionFixtures.extraction("Smith_Jane_010180", overrides: CompanionFixtures.correction(page: 1, date: "2026-03-01T10:00:00Z"))),
            (.addressCorrections, CompanionFixtures.corrections("Smith_Jane_010180", [CompanionFixtures.correction(page: 1, date: "2026-03-01T10:00:00Z")])),
            (.letterDraft, CompanionFixtures.draft("0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", target: "Smith_Jane_010180")),
            (.senderConfig, CompanionFixtures.sender()),
            (.workList, CompanionFixtures.workList([CompanionFixtures.workItem("A1", surname: "Smith", added: "2026-03-01T08:00:00Z", resolvedFilename: "Smith_Jane_010180")])),
            (.legacyWorkList, CompanionFixtures.legacyWorkList),
        ]
        for (kind, text) in cases {
            let value = try CompanionContent.json(Data(text.utf8)).get()
            #expect(try #require(CompanionShape.of(kind)).failures(value).isEmpty, "\(kind)")
        }
    }

    func failures(_ kind: CompanionKind, _ text: String) throws -> [CompanionDecodeFailure] {
        try #require(CompanionShape.of(kind)).failures(try CompanionContent.json(Data(text.utf8)).get())
    }

    @Test func whatTheAppRefusesIsNamedByItsKey() throws {
        // `overrides` is not optional in DocumentAddressFile: a file without it does not decode.
        let noOverrides = CompanionFixtures.extraction("X").replacingOccurrences(of: "\"overrides\" : [],", with: "")
        #expect(try failures(.addressExtraction, noOverrides).map(\.key) == ["overrides"])
        let stringPage = CompanionFixtures.corrections("X", [CompanionFixtures.correction(page: 1, date: "d")]).replacingOccurrences(of: "\"page_number\" : 1", with: "\"page_number\" : \"1\"")
        #expect(try failures(.addressCorrections, stringPage).map(\.key) == ["overrides[0].page_number"])
        let fraction = CompanionFixtures.corrections("X", [CompanionFixtures.correction(page: 1, date: "d")]).replacingOccurrences(of: "\"page_number\" : 1", with: "\"page_number\" : 1.5")
        #expect(try failures(.addressCorrections, fraction).first?.reason.contains("whole") == true)
        let wholeFloat = CompanionFixtures.corrections("X", [CompanionFixtures.correction(page: 1, date: "d")]).replacingOccurrences(of: "\"page_number\" : 1", with: "\"page_number\" : 1.0")
        #expect(try failures(.addressCorrections, wholeFloat).isEmpty)  // JSONDecoder takes 1.0 as an Int
        let nullMatch = CompanionFixtures.corrections("X", [CompanionFixtures.correction(page: 1, date: "d")]).replacingOccurrences(of: "\"match_address_type\" : \"patient\"", with: "\"match_address_type\" : null")
        #expect(try failures(.addressCorrections, nullMatch).map(\.key) == ["overrides[0].match_address_type"])
        let nullOptional = CompanionFixtures.corrections("X", [CompanionFixtures.correction(page: 1, date: "d")]).replacingOccurrences(of: "\"is_prime\" : true", with: "\"is_prime\" : null")
        #expect(try failures(.addressCorrections, nullOptional).isEmpty)
        let numericBool = CompanionFixtures.corrections("X", [CompanionFixtures.correction(page: 1, date: "d")]).replacingOccurrences(of: "\"is_prime\" : true", with: "\"is_prime\" : 1")
        #expect(try failures(.addressCorrections, numericBool).map(\.key) == ["overrides[0].is_prime"])
        let badStatus = CompanionFixtures.draft("l", target: "t").replacingOccurrences(of: "render_requested", with: "sent")
        #expect(try failures(.letterDraft, badStatus).map(\.key) == ["status"])
        let noPhones = CompanionFixtures.draft("l", target: "t").replacingOccurrences(of: "\"phones\"", with: "\"phone_numbers\"")
        #expect(try failures(.letterDraft, noPhones).map(\.key) == ["patient.phones"])
        let badUUID = CompanionFixtures.legacyWorkList.replacingOccurrences(of: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F", with: "not-a-uuid")
        #expect(try failures(.legacyWorkList, badUUID).map(\.key) == ["entries[0].id"])
        let noSource = CompanionFixtures.workList([CompanionFixtures.workItem("A", surname: "S", added: "a")]).replacingOccurrences(of: "\"source\"", with: "\"origin\"")
        #expect(try failures(.workList, noSource).map(\.key) == ["items[0].source"])
        let unknownKeys = CompanionFixtures.sender().replacingOccurrences(of: "\"role\"", with: "\"signature\" : {\"x\" : 1},\n  \"role\"")
        #expect(try failures(.senderConfig, unknownKeys).isEmpty)
        #expect(try failures(.senderConfig, "[1]").first?.reason.contains("an object") == true)
        #expect((try? CompanionContent.json(Data("{\"a\":".utf8)).get()) == nil)
    }

    // MARK: The scanner and verify

    func library(_ folder: TemporaryFolder) throws -> Library {
        try CoordinatedDocument.create(at: folder.path("Smith_Jane_010180.yianazip"),
                                       metadata: DocumentMetadata(id: UUID(), title: "Smith_Jane_010180", pageCount: 1), pdf: nil)
        let root = folder.url
        try CompanionFixtures.write(CompanionFixtures.extraction("Smith_Jane_010180"), ".addresses/Smith_Jane_010180.json", in: root)
        try CompanionFixtures.write(CompanionFixtures.corrections("Smith_Jane_010180", [CompanionFixtures.correction(page: 1, date: "2026-03-01T10:00:00Z")]),
                                    ".addresses/Smith_Jane_010180.overrides.json", in: root)
        try CompanionFixtures.write(CompanionFixtures.workList([]), ".worklist.json", in: root)
        try CompanionFixtures.write(CompanionFixtures.sender(), ".letters/config/sender.json", in: root)
        try CompanionFixtures.write(CompanionFixtures.draft("0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5", target: "Smith_Jane_010180"),
                                    ".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json", in: root)
        return try Library(root: root)
    }

    @Test func theScannerReportsCompanionsAsCompanionsNeverAsDocumentsOrJunk() throws {
        let folder = try TemporaryFolder()
        let library = try library(folder)
        try CompanionFixtures.write(CompanionFixtures.workList([]), "E621E1F8-C36C-495A-93FC-0C247A3E6E5F.tmp", in: folder.url)
        try Data("PK\u{3}\u{4}".utf8).write(to: folder.url.appendingPathComponent("0C247A3E-C36C-495A-93FC-E621E1F86E5F.tmp"))
        let scan = try LibraryScanner.scan(library)
        #expect(scan.items.map(\.documentURL.lastPathComponent) == ["Smith_Jane_010180.yianazip"])
        #expect(Set(scan.companions.map(\.path)) == [
            ".addresses/Smith_Jane_010180.json", ".addresses/Smith_Jane_010180.overrides.json", ".worklist.json",
            ".letters/config/sender.json", ".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F.tmp",
        ])
        #expect(scan.foreign.filter { $0.path.hasPrefix(".addresses") || $0.path.hasPrefix(".letters") || $0.path.hasPrefix(".worklist") }.isEmpty)
        #expect(scan.leftoverTemps.map(\.lastPathComponent) == ["0C247A3E-C36C-495A-93FC-E621E1F86E5F.tmp"])
    }

    @Test func verifyChecksCompanionsAsTheAppReadsThem() async throws {
        let folder = try TemporaryFolder()
        let library = try library(folder)
        var report = await Verifier(library: library).verify()
        #expect(report.clean, "\(report.files.flatMap(\.problems).map(\.message))")
        // An orphan is a notice, not damage.
        try CompanionFixtures.write(CompanionFixtures.corrections("Gone", []), ".addresses/Gone.overrides.json", in: folder.url)
        report = await Verifier(library: library).verify()
        #expect(report.clean)
        #expect(report.files.flatMap(\.problems).map(\.code) == [.companionOrphan])
        // A key the app cannot decode, a conflict copy it never reads, its leftover temporary file.
        try CompanionFixtures.write(#"{"schema_version":1,"document_id":"Smith_Jane_010180","overrides":[{"page_number":1}]}"#,
                                    ".addresses/Smith_Jane_010180.overrides.json", in: folder.url)
        try CompanionFixtures.write(CompanionFixtures.workList([]), ".worklist (conflict_on_2026-11-24).json", in: folder.url)
        try CompanionFixtures.write("{", ".letters/drafts/0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5.json.tmp", in: folder.url)
        report = await Verifier(library: library).verify()
        #expect(!report.clean)
        let problems = report.files.flatMap(\.problems).filter { !$0.isNotice }
        #expect(Set(problems.map(\.code)) == [.companionAppRefuses, .companionConflictCopy, .leftoverTempFile])
        #expect(problems.first { $0.code == .companionAppRefuses }?.key == "overrides[0].match_address_type")
        // The title, not only the file name, names a document.
        try CoordinatedDocument.create(at: folder.path("renamed.yianazip"), metadata: DocumentMetadata(id: UUID(), title: "Gone", pageCount: 1), pdf: nil)
        report = await Verifier(library: library).verify()
        #expect(!report.files.flatMap(\.problems).contains { $0.code == .companionOrphan })
    }
}

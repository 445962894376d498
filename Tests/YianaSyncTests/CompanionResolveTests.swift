import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSync

@Suite("companion conflicts")
struct CompanionResolveTests {
    typealias F = CompanionFixtures
    let key = "Smith_Jane_010180"
    let letter = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"

    func json(_ text: String) throws -> JSONValue { try CompanionContent.json(Data(text.utf8)).get() }
    func version(_ path: String, _ text: String, _ seconds: Double = 0) throws -> CompanionVersion {
        CompanionVersion(path: path, value: try json(text), modified: Date(timeIntervalSince1970: 1_700_000_000 + seconds))
    }

    /// What the app shows for a page and address type: the correction with the newest
    /// `override_date` (AddressRepository.resolveAddresses).
    func shown(_ value: JSONValue, page: Int, type: String) -> JSONValue? {
        CompanionMerge.entries(value, "overrides").filter {
            guard case .object(let o) = $0 else { return false }
            return o["page_number"] == .integer(Int64(page)) && o["match_address_type"] == .string(type)
        }.max { (CompanionMerge.string($0, "override_date") ?? "") < (CompanionMerge.string($1, "override_date") ?? "") }
    }

    // MARK: The rules

    @Test func correctionsFromBothDevicesAreAllKeptAndTheAppShowsTheNewest() throws {
        let a1 = F.correction(page: 1, date: "2026-03-01T10:00:00Z", name: "Jane Smyth")
        let b1 = F.correction(page: 1, date: "2026-03-02T10:00:00Z", name: "Jane Smith")
        let b2 = F.correction(page: 2, type: "gp", date: "2026-03-01T11:00:00Z", name: "Dr Brown")
        let merged = CompanionMerge.corrections([try version("a", F.corrections(key, [a1])), try version("b", F.corrections(key, [b1, b2]))], base: nil)
        #expect(CompanionMerge.entries(merged.value, "overrides").count == 3)
        #expect(shown(merged.value, page: 1, type: "patient") == (try json(b1)))
        #expect(shown(merged.value, page: 2, type: "gp") == (try json(b2)))
        // The newest is also the last of its page and type: the app's in-place edits (lastIndex) reach it.
        let entries = CompanionMerge.entries(merged.value, "overrides")
        #expect(entries.lastIndex { CompanionMerge.string($0, "match_address_type") == "patient" }.map { entries[$0] } == (try json(b1)))
        #expect(CompanionShape.of(.addressCorrections)!.failures(merged.value).isEmpty)
    }

    /// Keys a newer app writes and this toolkit does not know survive every merge.
    @Test func unknownKeysAreKeptOnEveryRewrite() throws {
        func withUnknown(_ text: String) -> String { text.replacingOccurrences(of: "\"added\" :", with: "\"colour\" : \"red\",\n      \"added\" :") }
        let entry = F.correction(page: 1, date: "2026-03-02T10:00:00Z").replacingOccurrences(of: "\"is_prime\"", with: "\"confidence_note\" : \"checked\", \"is_prime\"")
        let corrections = F.corrections(key, [entry]).replacingOccurrences(of: "\"schema_version\"", with: "\"app_build\" : 412, \"schema_version\"")
        let merged = CompanionMerge.corrections([try version("a", corrections, 10), try version("b", F.corrections(key, []), 0)], base: nil)
        guard case .object(let top) = merged.value, case .object(let first)? = CompanionMerge.entries(merged.value, "overrides").first else {
            Issue.record("not an object")
            return
        }
        #expect(top["app_build"] == .integer(412) && first["confidence_note"] == .string("checked"))
        let list = CompanionMerge.workList([try version("w", withUnknown(F.workList([F.workItem("A", surname: "S", added: "x")])))],
                                           listKey: "items", now: Date())
        #expect(CompanionMerge.entries(list.value, "items").first.map { CompanionMerge.string($0, "colour") } == "red")
        let draft = F.draft(letter, target: key).replacingOccurrences(of: "\"body\"", with: "\"signature\" : \"AC\", \"body\"")
        let base = try json(F.draft(letter, target: key).replacingOccurrences(of: "\"body\"", with: "\"signature\" : \"AC\", \"body\""))
        let byKey = CompanionMerge.byKey([try version("d1", draft, 0), try version("d2", draft.replacingOccurrences(of: "Dear Dr Brown,", with: "Dear Dr Grey,"), 5)],
                                         base: base, kind: .letterDraft)
        #expect(CompanionMerge.string(byKey.value, "signature") == "AC" && CompanionMerge.string(byKey.value, "body") == "Dear Dr Grey,")
    }

    @Test func aCorrectionDeletedOnOneDeviceSinceTheLastMergeStaysDeleted() throws {
        let old = F.correction(page: 0, date: "2026-02-01T10:00:00Z", name: "Manual")
        let kept = F.correction(page: 1, date: "2026-02-02T10:00:00Z")
        let added = F.correction(page: 3, date: "2026-03-05T10:00:00Z")
        let base = try json(F.corrections(key, [old, kept]))
        let a = try version("a", F.corrections(key, [kept]))  // deleted `old` (deleteManualAddress)
        let b = try version("b", F.corrections(key, [old, kept, added]))
        let merged = CompanionMerge.corrections([a, b], base: base)
        #expect(CompanionMerge.entries(merged.value, "overrides") == [try json(kept), try json(added)])
        // Without the base nothing is dropped.
        #expect(CompanionMerge.entries(CompanionMerge.corrections([a, b], base: nil).value, "overrides").count == 3)
    }

    @Test func theWorkListMergesAsTheAppsSaveDoes() throws {
        let plain = try version(".worklist.json", F.workList([
            F.workItem("A", surname: "Smith", added: "2026-03-01T08:00:00Z", resolvedFilename: "Smith_Jane_010180"),
            F.workItem("B", surname: "Jones", added: "2026-03-01T09:00:00Z"),
        ]), 0)
        let copy = try version(".worklist (conflict_on_2026-11-24).json", F.workList([
            F.workItem("A", surname: "Smith-Renamed", added: "2026-03-01T08:00:00Z"),  // no resolvedFilename: the plain one stays
            F.workItem("C", surname: "Brown", added: "2026-03-02T08:00:00Z"),
        ]), 10)
        let merged = CompanionMerge.workList([plain, copy], listKey: "items", now: Date(timeIntervalSince1970: 1_800_000_000))
        let items = CompanionMerge.entries(merged.value, "items")
        #expect(items.compactMap { CompanionMerge.string($0, "id") } == ["C", "B", "A"])
        #expect(CompanionMerge.string(items[2], "surname") == "Smith")
        #expect(CompanionShape.of(.workList)!.failures(merged.value).isEmpty)
    }

    @Test func draftsMergeByKeyWhenTheBaseIsKnownElseTheNewerStays() throws {
        let base = try json(F.draft(letter, target: key, body: "Dear Dr Brown,", modified: "2026-03-02T10:00:00Z"))
        let a = try version("a", F.draft(letter, target: key, body: "Dear Dr Brown, thank you", modified: "2026-03-03T10:00:00Z"))
        let bText = F.draft(letter, target: "Smith_Jane_010180 letters", body: "Dear Dr Brown,", modified: "2026-03-04T10:00:00Z")
        let b = try version("b", bText)
        let merged = CompanionMerge.byKey([a, b], base: base, kind: .letterDraft)
        #expect(CompanionMerge.string(merged.value, "body") == "Dear Dr Brown, thank you")
        #expect(CompanionMerge.string(merged.value, "yiana_target") == "Smith_Jane_010180 letters")
        #expect(CompanionMerge.string(merged.value, "modified") == "2026-03-04T10:00:00Z")
        let newer = CompanionMerge.byKey([a, b], base: nil, kind: .letterDraft)
        #expect(newer.value == b.value && newer.winner == "b")
    }

    @Test func extractionKeepsTheNewestAndCarriesOlderInFileCorrections() throws {
        let correction = F.correction(page: 1, date: "2026-01-01T10:00:00Z")
        let older = try version("old", F.extraction(key, extractedAt: "2026-01-01T09:00:00Z", overrides: correction), 50)
        let newer = try version("new", F.extraction(key, extractedAt: "2026-03-01T09:00:00Z"), 0)
        let merged = CompanionMerge.extraction([older, newer])
        #expect(merged.winner == "new")
        #expect(CompanionMerge.string(merged.value, "extracted_at") == "2026-03-01T09:00:00Z")
        #expect(CompanionMerge.entries(merged.value, "overrides") == [try json(correction)])
        #expect(merged.notes.contains { $0.hasPrefix("old is an older extraction: kept in the version store") })
    }

    // MARK: Resolving a library

    func write(_ text: String, _ path: String, in folder: TemporaryFolder) throws { try F.write(text, path, in: folder.url) }

    @Test func resolveSettlesEveryKindAndKeepsEveryByte() async throws {
        let folder = try TemporaryFolder()
        try CoordinatedDocument.create(at: folder.path("\(key).yianazip"), metadata: DocumentMetadata(id: UUID(), title: key, pageCount: 1), pdf: nil)
        let corrections = ".addresses/\(key).overrides.json"
        try write(F.corrections(key, [F.correction(page: 1, date: "2026-03-01T10:00:00Z", name: "A")]), corrections, in: folder)
        try write(F.corrections(key, [F.correction(page: 1, date: "2026-03-02T10:00:00Z", name: "B")]), ".addresses/\(key).overrides (conflict_on_2026-11-24).json", in: folder)
        try write(F.workList([F.workItem("A", surname: "S", added: "2026-03-01T08:00:00Z")]), ".worklist.json", in: folder)
        try write(F.workList([F.workItem("B", surname: "T", added: "2026-03-02T08:00:00Z")]), ".worklist.sync-conflict-20261124-101010-ABCDEF7.json", in: folder)
        try write(F.sender(), ".letters/config/sender.json", in: folder)
        try write(F.sender(), ".letters/config/sender.json..path1", in: folder)  // identical: collapses
        try write(F.draft(letter, target: key, body: "one"), ".letters/drafts/\(letter).json", in: folder)
        try write(F.draft(letter, target: key, body: "two", modified: "2026-03-05T10:00:00Z"), ".letters/drafts/\(letter) (conflict_on_2026-11-24).json", in: folder)
        let library = try Library(root: folder.url)
        let before = try LibraryScanner.scan(library).companions.map { ($0.path, try Data(contentsOf: folder.url.appendingPathComponent($0.path))) }

        let listed = try await ConflictDetector(library: library).detect()
        #expect(listed.companions.map(\.plainPath) == [corrections, ".letters/config/sender.json", ".letters/drafts/\(letter).json", ".worklist.json"])
        #expect(listed.companions.first?.document == "\(key).yianazip")
        #expect(listed.companions.first { $0.kind == .senderConfig }?.files.last?.role == .identicalCopy)

        let report = try await ConflictResolver(library: library).resolve(ResolveOptions(strategy: .merge))
        #expect(report.failed.isEmpty && report.resolutions.count == 4, "\(report)")
        let after = try LibraryScanner.scan(library)
        #expect(after.companions.allSatisfy { !$0.isConflictCopy })
        #expect(after.companions.count == 4)
        // Every byte from before is in the version store.
        let store = VersionStore(library: library)
        let kept = Set(try store.records().map { try Data(contentsOf: store.objectURL($0)) })
        for (path, bytes) in before { #expect(kept.contains(bytes), "\(path) not kept") }
        // The app reads what was written; both devices' corrections are in it.
        let merged = try CompanionContent.json(at: folder.url.appendingPathComponent(corrections)).get()
        #expect(CompanionShape.of(.addressCorrections)!.failures(merged).isEmpty)
        #expect(CompanionMerge.entries(merged, "overrides").count == 2)
        #expect(CompanionMerge.entries(try CompanionContent.json(at: folder.url.appendingPathComponent(".worklist.json")).get(), "items").count == 2)
        #expect(await Verifier(library: library).verify().clean)

        // The next round: a correction deleted on one device since this merge stays deleted.
        let mergedEntries = CompanionMerge.entries(merged, "overrides")
        let onlyB = JSONValue.object(["schema_version": .integer(1), "document_id": .string(key), "overrides": .array([mergedEntries[1]])])
        try CompanionMerge.encode(onlyB).write(to: folder.url.appendingPathComponent(corrections))
        try CompanionMerge.encode(merged).write(to: folder.url.appendingPathComponent(".addresses/\(key).overrides.json..path2"))
        _ = try await ConflictResolver(library: library).resolve(ResolveOptions(strategy: .merge))
        let third = try CompanionContent.json(at: folder.url.appendingPathComponent(corrections)).get()
        #expect(CompanionMerge.entries(third, "overrides") == [mergedEntries[1]])
    }

    /// An older extraction file's own corrections, when the document has a corrections file
    /// the app reads instead: merged into that file too, so the app shows them.
    @Test func correctionsInsideAnOlderExtractionReachTheCorrectionsFile() async throws {
        let folder = try TemporaryFolder()
        let inside = F.correction(page: 3, date: "2026-01-05T10:00:00Z", name: "Inside Old File")
        let own = F.correction(page: 1, date: "2026-03-02T10:00:00Z")
        try write(F.extraction(key, extractedAt: "2026-03-09T09:00:00Z"), ".addresses/\(key).json", in: folder)
        try write(F.extraction(key, extractedAt: "2026-01-01T09:00:00Z", overrides: inside), ".addresses/\(key) (conflict_on_2026-11-24).json", in: folder)
        try write(F.corrections(key, [own]), ".addresses/\(key).overrides.json", in: folder)
        let library = try Library(root: folder.url)
        let report = try await ConflictResolver(library: library).resolve(ResolveOptions(strategy: .merge))
        #expect(report.failed.isEmpty && report.resolutions.count == 1)
        let corrections = try CompanionContent.json(at: folder.url.appendingPathComponent(".addresses/\(key).overrides.json")).get()
        #expect(CompanionMerge.entries(corrections, "overrides") == [try json(own), try json(inside)])
        #expect(CompanionShape.of(.addressCorrections)!.failures(corrections).isEmpty)
        #expect(await Verifier(library: library).verify().clean)
    }

    @Test func identicalOnlyLeavesDivergedCopiesAndPDFsThatDifferAreLeftForAPerson() async throws {
        let folder = try TemporaryFolder()
        try write(F.workList([]), ".worklist.json", in: folder)
        try write(F.workList([F.workItem("B", surname: "T", added: "x")]), ".worklist (conflict_on_2026-11-24).json", in: folder)
        try write("%PDF-1.4 a", ".letters/rendered/\(letter)/letter.pdf", in: folder)
        try write("%PDF-1.4 b", ".letters/rendered/\(letter)/letter.sync-conflict-20261124-101010-ABCDEF7.pdf", in: folder)
        let library = try Library(root: folder.url)
        var options = ResolveOptions(strategy: .merge)
        options.identicalOnly = true
        var report = try await ConflictResolver(library: library).resolve(options)
        #expect(report.resolutions.isEmpty)
        #expect(FileManager.default.fileExists(atPath: folder.path(".worklist (conflict_on_2026-11-24).json")))
        report = try await ConflictResolver(library: library).resolve(ResolveOptions(strategy: .merge))
        #expect(report.resolutions.count == 1)
        #expect(report.skipped.contains { $0.path.hasPrefix(".letters/rendered/") })
        #expect(FileManager.default.fileExists(atPath: folder.path(".letters/rendered/\(letter)/letter.sync-conflict-20261124-101010-ABCDEF7.pdf")))
    }
}

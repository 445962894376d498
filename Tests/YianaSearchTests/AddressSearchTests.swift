import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport
@testable import YianaSearch
import YianaPeople

@Suite("the people in the app's address files")
struct AddressSearchTests {
    typealias F = CompanionFixtures

    func json(_ text: String) throws -> JSONValue { try CompanionContent.json(Data(text.utf8)).get() }

    /// A page as the app's extraction writes it.
    func page(_ number: Int, _ type: String, name: String) -> String {
        let part = type == "gp" ? "\"gp\" : {\"name\" : \"\(name)\"}" : "\"patient\" : {\"full_name\" : \"\(name)\"}"
        return "{\"page_number\" : \(number), \"address_type\" : \"\(type)\", \(part)}"
    }

    func extraction(_ key: String, pages: [String], overrides: [String] = []) -> String {
        """
        {"schema_version" : 1, "document_id" : "\(key)", "extracted_at" : "2026-03-01T09:00:00Z", "page_count" : 2,
         "pages" : [\(pages.joined(separator: ","))], "overrides" : [\(overrides.joined(separator: ","))]}
        """
    }

    /// The other name the app gives a document's address files: its file name without the
    /// documents' extension (wherever the extension is in it, as the app's own replace does).
    @Test func aDocumentsStemIsItsFileNameWithoutTheExtension() {
        #expect(AddressRecord.stem(of: "Letters/2026/Bob Smith.yianazip") == "Bob Smith")
        #expect(AddressRecord.stem(of: "Café.yianazip") == "Café")
        #expect(AddressRecord.stem(of: "Notes") == "Notes")
        #expect(AddressRecord.stem(of: "a.yianazip/b.yianazip.yianazip") == "b")
        #expect(AddressRecord.stem(of: "Scan.yianazip 2.yianazip") == "Scan 2")
    }

    // MARK: As the app resolves them

    @Test func theNewestCorrectionOfEachPageAndTypeIsWhatTheAppShows() throws {
        let pages = [page(1, "patient", name: "Jane Smyht"), page(2, "gp", name: "Dr Broun")]
        let corrections = F.corrections("X", [
            F.correction(page: 1, date: "2026-03-01T10:00:00Z", name: "Jane Smithe"),
            F.correction(page: 1, date: "2026-03-02T10:00:00Z", name: "Jane Smith"),
            F.correction(page: 0, type: "specialist", date: "2026-03-01T10:00:00Z", name: "Dr Older Manual"),
            F.correction(page: 0, type: "specialist", date: "2026-03-03T10:00:00Z", name: "Dr Manual"),
        ])
        let book = AddressBook(extraction: try json(extraction("X", pages: pages)), corrections: try json(corrections))
        #expect(book.entries.map(\.page) == [1, 2, 0])
        #expect(book.text.contains("Jane Smith,") && !book.text.contains("Smyht") && !book.text.contains("Smithe"))
        #expect(book.text.contains("Dr Broun") && book.text.contains("Dr Manual") && !book.text.contains("Older"))
        // A dismissed address is not shown.
        let dismissed = #"{"page_number" : 2, "match_address_type" : "gp", "override_date" : "2026-03-04T10:00:00Z", "is_dismissed" : true}"#
        let hidden = AddressBook(extraction: try json(extraction("X", pages: pages)), corrections: try json(F.corrections("X", [dismissed])))
        #expect(!hidden.text.contains("Broun") && hidden.text.contains("Smyht"))
        // Corrections kept inside an older extraction file count when there is no corrections file.
        let inFile = AddressBook(extraction: try json(extraction("X", pages: pages, overrides: [F.correction(page: 1, date: "2026-03-01T10:00:00Z", name: "Jane Inside")])),
                                 corrections: nil)
        #expect(inFile.text.contains("Jane Inside") && !inFile.text.contains("Smyht"))
    }

    // MARK: In the index

    func document(_ folder: TemporaryFolder, _ name: String, title: String, words: [String]) throws {
        try CoordinatedDocument.create(at: folder.path(name), metadata: DocumentMetadata(title: title, pageCount: 1), pdf: .data(simplePDF(words)))
    }

    @Test(arguments: IndexBackend.allCases)
    func searchFindsThePeopleAsAddressesAndFollowsTheirFiles(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let index = try await backend.makeIndex(for: library, in: indexFolder)
        func run() async throws -> IndexReport { try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1)) }
        func found(_ word: String) async -> [String] {
            (try? await index.search(word))?.flatMap { hit in hit.pages.filter { $0.source == .addresses }.map { _ in hit.path } } ?? []
        }
        // The app keys address files by the document's title; a file name may differ from it.
        try document(folder, "Clinic letter.yianazip", title: "Smith_Jane_010180", words: ["Dear Dr Brown, I saw Mrs Smyht today"])
        try document(folder, "Other.yianazip", title: "Other", words: ["Dear Dr Brown, I saw Mrs Smyht today"])  // the same PDF
        try F.write(extraction("Smith_Jane_010180", pages: [page(1, "patient", name: "Jane Smyht")]), ".addresses/Smith_Jane_010180.json", in: folder.url)
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 1, date: "2026-03-02T10:00:00Z", name: "Jane Smith", postcode: "LS6 1AA")]),
                    ".addresses/Smith_Jane_010180.overrides.json", in: folder.url)
        #expect(try await run().addresses == 1)
        #expect(await found("Smith") == ["Clinic letter.yianazip"], "the corrected name, on the document only")
        #expect(await found("LS6") == ["Clinic letter.yianazip"])
        let hit = try #require(try await index.search("Smith").first)
        #expect(hit.pages.first?.source == .addresses && hit.pages.first?.number == 0)
        #expect(try await run().addresses == 0, "nothing changed: nothing read again")
        // A later document with the same PDF reuses its pages, never its people.
        try document(folder, "Copy.yianazip", title: "Copy", words: ["Dear Dr Brown, I saw Mrs Smyht today"])
        let copied = try await run()
        #expect(copied.reused == 1)
        #expect(await found("Smith") == ["Clinic letter.yianazip"])

        // A new correction on another device arrives: found at once, the old one gone.
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 1, date: "2026-03-05T10:00:00Z", name: "Janet Smithson")]),
                    ".addresses/Smith_Jane_010180.overrides.json", in: folder.url)
        #expect(try await run().addresses == 1)
        #expect(await found("Smithson") == ["Clinic letter.yianazip"])
        #expect(await found("Smith").isEmpty)

        // The document's PDF changes: its pages are extracted again, its people stay found.
        try CoordinatedDocument.replace(at: folder.path("Clinic letter.yianazip"), metadata: DocumentMetadata(title: "Smith_Jane_010180", pageCount: 1),
                                        pdf: .data(simplePDF(["A new letter"])))
        _ = try await run()
        #expect(await found("Smithson") == ["Clinic letter.yianazip"])

        // The corrections go: the extraction's name is what the app shows again.
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(".addresses/Smith_Jane_010180.overrides.json"))
        #expect(try await run().addresses == 1)
        #expect(await found("Smyht") == ["Clinic letter.yianazip"])
        #expect(await found("Smithson").isEmpty)

        // Rewritten in place under its own name (older rclone): the folder does not change;
        // `--full` (or the hourly look at every file) finds it.
        let inPlace = extraction("Smith_Jane_010180", pages: [page(1, "patient", name: "Jane Okonkwo")])
        try Data(inPlace.utf8).write(to: folder.url.appendingPathComponent(".addresses/Smith_Jane_010180.json"))
        _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1, full: true))
        #expect(await found("Okonkwo") == ["Clinic letter.yianazip"])

        // A run that wrote a few documents reads those documents' records alone.
        let records = try await index.addressRecords(paths: ["Clinic letter.yianazip", "Copy.yianazip", "Gone.yianazip"])
        #expect(Set(records.map(\.path)) == ["Clinic letter.yianazip", "Copy.yianazip"])
        #expect(records.first { $0.path == "Clinic letter.yianazip" }?.fingerprint != nil)
        #expect(try await index.addressRecords(paths: []).isEmpty)
        #expect(try await index.addressRecords(paths: nil).count == 3)

        // A look at every document's address files asks only for the documents with a record
        // made from such files, and those a file's name could be: by title or by file name.
        try document(folder, "Scan 7.yianazip", title: "Referral", words: ["Nothing here"])
        _ = try await run()
        #expect(Set(try await index.addressRecords(paths: nil, named: []).map(\.path)) == ["Clinic letter.yianazip"])
        #expect(Set(try await index.addressRecords(paths: nil, named: ["Other", "Scan 7", "Nobody"]).map(\.path))
                == ["Clinic letter.yianazip", "Other.yianazip", "Scan 7.yianazip"])
        #expect(Set(try await index.addressRecords(paths: nil, named: ["Referral"]).map(\.path)) == ["Clinic letter.yianazip", "Scan 7.yianazip"])
        #expect(try await index.addressRecords(paths: nil).count == 4)
    }

    /// What the register of people keeps of each document: its path, title, id and time from
    /// the index, and the people of its address files, followed when they change or go.
    @Test(arguments: IndexBackend.allCases)
    func theRegisterReadsEachDocumentsPeopleFromTheIndex(backend: IndexBackend) async throws {
        let folder = try TemporaryFolder(), indexFolder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let index = try await backend.makeIndex(for: library, in: indexFolder)
        func run() async throws { _ = try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 1)) }
        try document(folder, "Clinic letter.yianazip", title: "Smith_Jane_010180", words: ["Dear Dr Brown"])
        try document(folder, "Whitfield_Eleanor_140352.yianazip", title: "Whitfield_Eleanor_140352", words: ["Nothing about anyone"])
        try F.write(extraction("Smith_Jane_010180", pages: [page(1, "patient", name: "Jane Smyht"), page(2, "gp", name: "Dr Brown")]),
                    ".addresses/Smith_Jane_010180.json", in: folder.url)
        try await run()
        var documents = try await index.registerDocuments()
        #expect(documents.map(\.path) == ["Clinic letter.yianazip", "Whitfield_Eleanor_140352.yianazip"])
        #expect(documents[0].title == "Smith_Jane_010180" && documents[0].documentID != nil && documents[0].modified != nil)
        #expect(documents[0].people.patients.map(\.name) == ["Jane Smyht"])
        #expect(documents[0].people.practitioners.map(\.name) == ["Dr Brown"])
        #expect(documents[1].people == DocumentPeople() && documents[1].namedPatients.map(\.name) == ["Eleanor Whitfield"])
        // A correction is followed; the file gone, the people go.
        try F.write(F.corrections("Smith_Jane_010180", [F.correction(page: 1, date: "2026-03-02T10:00:00Z", name: "Jane Smith")]),
                    ".addresses/Smith_Jane_010180.overrides.json", in: folder.url)
        try await run()
        documents = try await index.registerDocuments()
        #expect(documents[0].people.patients.map(\.name) == ["Jane Smith"] && documents[0].people.patients.first?.source == .corrected)
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(".addresses/Smith_Jane_010180.json"))
        try FileManager.default.removeItem(at: folder.url.appendingPathComponent(".addresses/Smith_Jane_010180.overrides.json"))
        try await run()
        #expect(try await index.registerDocuments()[0].people == DocumentPeople())
        // NHS England's practices, kept with the register: replaced whole by the next import.
        let practices = [ODSPractice(code: "B86001", name: "MEADOWBANK SURGERY", address: ["1 PARK ROAD", "LEEDS"], postcode: "LS6 1AA", status: .active, setting: 4),
                         ODSPractice(code: "B86002", name: "OLD SURGERY", address: [], postcode: "LS6 1AB", status: .closed, closed: "20190331")]
        try await index.replaceODSPractices(practices)
        #expect(try await index.odsPractices() == practices)
        try await index.replaceODSPractices(Array(practices.prefix(1)))
        #expect(try await index.odsPractices() == Array(practices.prefix(1)))
        await index.close()
    }
}

import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

/// `yiana extract` end to end, as a person and a script meet it.
@Suite("yiana extract")
struct ExtractCLITests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "not a JSON object: \(text)")
    }

    /// A scanned letter without a text layer: `ocr`, then `extract` writes the app's address
    /// file (which the app's decoder reads), `status` counts it until then, the index finds
    /// the patient from the address file, and `serve` lists the people on the document's page.
    @Test func aScannedLetterGivesThePatientTheAppShowsAndSearchFinds() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        func run(_ arguments: [String]) async throws -> ProcessResult { try await runYiana(arguments + ["--library", lib], environment: env) }
        #expect(try await run(["import", Fixtures.sample("scans/Eye clinic appointment (scan).pdf")]).status == 0)
        #expect(try await run(["extract"]).status == 2)  // neither --all nor documents
        let early = try json(try await run(["extract", "--all", "--json"]).stdout)
        #expect((early["counts"] as? [String: Int])?["no-text"] == 1, "\(early)")
        #expect(try await run(["ocr", "--all"]).status == 0)
        #expect(try await run(["index"]).status == 0)
        let before = try json(try await run(["status", "--json"]).stdout)
        let states = ((before["summary"] as? [String: Any])?["states"] as? [[String: Any]] ?? []).filter { $0["state"] as? String == "not-extracted" }
        #expect(states.first?["run"] as? String == "yiana extract --all" && states.first?["count"] as? Int == 1, "\(before)")
        let server = try ServeCLITests.Server(library: lib, home: home)
        defer { server.stop() }
        let health = String(decoding: try await server.get("/health").body, as: UTF8.self)
        #expect(health.contains("not-extracted") && health.contains("yiana extract --all"), "\(health)")

        let dry = try await run(["extract", "--all", "--dry-run"])
        #expect(dry.status == 0 && dry.stdout.contains("would extract") && !FileManager.default.fileExists(atPath: "\(lib)/.addresses"))
        let extracted = try await run(["extract", "--all"])
        #expect(extracted.status == 0 && extracted.stdout.contains("extracted      Eye clinic appointment (scan).yianazip: 1 page of 1 with people (Eleanor Hartley)"),
                "\(extracted.stdout)\(extracted.stderr)")
        let file = URL(fileURLWithPath: "\(lib)/.addresses/Eye clinic appointment (scan).json")
        let value = try CompanionContent.json(at: file).get()
        #expect(CompanionShape.of(.addressExtraction)!.failures(value).isEmpty, "the app's decoder reads it")
        let words = AddressBook(extraction: value, corrections: nil).entries.first?.words ?? []
        #expect(words == ["Eleanor Hartley", "14/06/1952", "27 Orchard Way", "Heavitree", "Exeter", "Devon", "EX1 2QT"], "\(words)")

        // Found from the address file (its page row), the index updated by `extract` itself.
        let hits = try #require(try JSONSerialization.jsonObject(with: Data(try await run(["search", "Orchard", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect(hits.first?["path"] as? String == "Eye clinic appointment (scan).yianazip")
        #expect((hits.first?["pages"] as? [[String: Any]] ?? []).contains { $0["source"] as? String == "addresses" }, "\(hits)")
        let after = try json(try await run(["status", "--json"]).stdout)
        #expect(!((after["summary"] as? [String: Any])?["states"] as? [[String: Any]] ?? []).contains { $0["state"] as? String == "not-extracted" }, "\(after)")
        let again = try json(try await run(["extract", "--all", "--json"]).stdout)
        #expect((again["counts"] as? [String: Int])?["up-to-date"] == 1, "\(again)")

        let page = String(decoding: try await server.get("/doc?path=Eye%20clinic%20appointment%20(scan).yianazip").body, as: UTF8.self)
        #expect(page.contains("<h2>People</h2>") && page.contains("Eleanor Hartley, 14/06/1952, 27 Orchard Way") && page.contains("<td>extracted</td>"), "\(page)")

        // Her name typed with a slip finds the scan all the same (its OCR text and its address
        // file), said as such on the command line, in --json, in the API and on the page.
        let typed = try await run(["search", "Hartly"])
        #expect(typed.status == 0 && typed.stdout.contains("these match approximately") && typed.stdout.contains("(Hartly ~ hartley)"), "\(typed.stdout)")
        let typedJSON = try #require(try JSONSerialization.jsonObject(with: Data(try await run(["search", "Hartly", "--json"]).stdout.utf8)) as? [[String: Any]])
        #expect((typedJSON.first?["approximate"] as? [[String: Any]])?.first?["matches"] as? [String] == ["hartley"], "\(typedJSON)")
        let snippet = (typedJSON.first?["pages"] as? [[String: Any]])?.first?["snippet"] as? String
        #expect(snippet?.contains("**Hartley**") == true, "\(typedJSON)")
        #expect(try await run(["search", "Hartly", "--exact"]).status == 1)
        let api = try json(String(decoding: try await server.get("/api/search?q=Hartly").body, as: UTF8.self))
        #expect(((api["hits"] as? [[String: Any]])?.first?["approximate"] as? [[String: Any]])?.first?["word"] as? String == "Hartly", "\(api)")
        let exactAPI = try json(String(decoding: try await server.get("/api/search?q=Hartly&exact=1").body, as: UTF8.self))
        #expect((exactAPI["hits"] as? [Any])?.isEmpty == true, "\(exactAPI)")
        #expect(try await server.get("/api/search?q=Hartly&exact=maybe").status == 400)
        let results = String(decoding: try await server.get("/?q=Hartly").body, as: UTF8.self)
        #expect(results.contains("these match approximately") && results.contains("also matched: <strong>Hartly</strong> ~ <mark>hartley</mark>"), "\(results)")
    }

    /// The app's own letter and another hospital's, each imported on its own (their names not the
    /// app's `Surname_Firstname_DDMMYY`): every page names the patient of the `Re:` line with her
    /// MRN, address and GP, never the consultant who signed; `search` finds the letters by her
    /// name from their address files, and the consultants' names in no address file.
    @Test func aClinicLetterNamesItsPatientAndSearchFindsHerNotTheConsultant() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        func run(_ arguments: [String]) async throws -> ProcessResult { try await runYiana(arguments + ["--library", lib], environment: env) }
        let letter = home.url.appendingPathComponent("Clinic letter of 3 March.pdf")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: Fixtures.sample("letters/Smith_Jane_120345 letter, hospital records copy.pdf")), to: letter)
        #expect(try await run(["import", letter.path, Fixtures.sample("letters/Cardiology letter to the GP.pdf")]).status == 0)
        let extracted = try await run(["extract", "--all"])
        #expect(extracted.status == 0 && extracted.stdout.contains("Clinic letter of 3 March.yianazip: 2 pages of 2 with people (Jane Smith, optician B Jones)"),
                "\(extracted.stdout)\(extracted.stderr)")
        for (name, pages) in [("Clinic letter of 3 March", 2), ("Cardiology letter to the GP", 1)] {
            let value = try CompanionContent.json(at: URL(fileURLWithPath: "\(lib)/.addresses/\(name).json")).get()
            #expect(CompanionShape.of(.addressExtraction)!.failures(value).isEmpty, "the app's decoder reads it")
            let entries = AddressBook(extraction: value, corrections: nil).entries
            let patients = entries.filter { $0.type == "patient" }
            #expect(patients.map(\.page) == Array(1...pages), "\(entries)")
            for entry in patients {
                #expect(entry.words.starts(with: ["Jane Smith", "12/03/1945", "H123456"]) && entry.words.contains("14 Oak Lane") && entry.words.contains("RH2 7AA"),
                        "\(entry.words)")
                #expect(entry.words.contains("Dr A Patel") && entry.words.contains("Reigate Medical Centre") && entry.words.contains("RH2 9AE"), "\(entry.words)")
                #expect(!entry.words.contains { $0.contains("Arblaster") || $0.contains("Stone") || $0.contains("RH1 5RH") }, "\(entry.words)")
            }
            if name == "Cardiology letter to the GP" { #expect(patients.first?.words.contains("943 476 5919") == true, "\(entries)") }
            if pages == 2 { #expect(entries.filter { $0.type == "optician" }.map(\.page) == [1, 2], "\(entries)") }
        }

        func hits(_ query: String) async throws -> [[String: Any]] {
            try #require(try JSONSerialization.jsonObject(with: Data(try await run(["search", query, "--json"]).stdout.utf8)) as? [[String: Any]])
        }
        func fromAddresses(_ hit: [String: Any]) -> Bool { (hit["pages"] as? [[String: Any]] ?? []).contains { $0["source"] as? String == "addresses" } }
        #expect(try await run(["index"]).status == 0)
        for query in ["Jane Smith", "H123456"] {
            let patient = try await hits(query)
            #expect(patient.count == 2 && patient.allSatisfy(fromAddresses), "\(query): \(patient)")
        }
        for consultant in ["Arblaster", "Stone"] {
            let found = try await hits(consultant)
            #expect(!found.isEmpty && !found.contains(where: fromAddresses), "\(consultant): \(found)")
        }
    }

    /// `watch --extract`: one pass writes the people of a document whose OCR results are there.
    @Test func theWatcherExtractsWhatItIndexes() async throws {
        let home = try TemporaryFolder()
        let lib = home.url.appendingPathComponent("Yiana")
        try FileManager.default.createDirectory(at: lib.appendingPathComponent(".ocr_results"), withIntermediateDirectories: true)
        try CoordinatedDocument.create(at: lib.appendingPathComponent("Palmer_James_250542.yianazip").path,
                                       metadata: DocumentMetadata(title: "Palmer_James_250542", pageCount: 1), pdf: nil)
        try Data(#"{"documentId":"Palmer_James_250542","pages":[{"pageNumber":1,"text":"Uri Clarke\n43 Willow Court\nChichester\nNN4 6KT"}]}"#.utf8)
            .write(to: lib.appendingPathComponent(".ocr_results/Palmer_James_250542.json"))
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        let pass = try await runYiana(["watch", "--once", "--extract", "--library", lib.path], environment: env)
        #expect(pass.status == 0, "\(pass.stdout)\(pass.stderr)")
        let value = try CompanionContent.json(at: lib.appendingPathComponent(".addresses/Palmer_James_250542.json")).get()
        // The document's name gives the patient, as the app's cascade does.
        #expect(AddressBook(extraction: value, corrections: nil).entries.first?.words.prefix(3) == ["James Palmer", "25/05/1942", "43 Willow Court"])
    }
}

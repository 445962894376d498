import Foundation
import Testing
import YianaArchive
import YianaLibrary
import YianaTestSupport

/// `yiana people` end to end: the register of a library, its possible duplicates, and the
/// decisions people record about them.
@Suite("yiana people")
struct PeopleCLITests {
    static func patientFile(_ title: String, name: String, born: String?, nhs: String? = nil) -> String {
        var patient = ["\"full_name\" : \"\(name)\""]
        if let born { patient.append("\"date_of_birth\" : \"\(born)\"") }
        if let nhs { patient.append("\"nhs_number\" : \"\(nhs)\"") }
        return """
            {"schema_version" : 1, "document_id" : "\(title)", "extracted_at" : "2026-03-01T09:00:00Z", "page_count" : 1,
             "pages" : [{"page_number" : 1, "address_type" : "patient", "patient" : {\(patient.joined(separator: ", "))},
                         "gp" : {"name" : "Dr A Patel", "practice" : "Meadowbank Surgery", "postcode" : "LS6 1AA"}}], "overrides" : []}
            """
    }

    @Test func duplicatesAreShownAndAPersonsDecisionsHoldAndAreKeptInTheLibrary() async throws {
        let home = try TemporaryFolder()
        let lib = home.path("Yiana"), pdfs = home.url.appendingPathComponent("pdf")
        let env = ["XDG_STATE_HOME": home.path("state"), "XDG_CACHE_HOME": home.path("cache")]
        func run(_ arguments: [String]) async throws -> ProcessResult { try await runYiana(arguments + ["--library", lib], environment: env) }
        func people() async throws -> [[String: Any]] {
            try #require(try JSONSerialization.jsonObject(with: Data(try await run(["people", "list", "--json"]).stdout.utf8)) as? [[String: Any]])
        }
        try FileManager.default.createDirectory(at: pdfs, withIntermediateDirectories: true)
        let files = [("Whitfield_Eleanor_140352", nil as String?), ("Scan 1", "WHITFIELD, Eleanor (Mrs)"), ("Scan 2", "Eleanor Whitfeld"), ("Scan 3", "John Smith")]
        for (title, _) in files { try simplePDF(["Letter \(title)"]).write(to: pdfs.appendingPathComponent("\(title).pdf")) }
        #expect(try await run(["people", "list"]).status != 0, "no index yet: said, not crashed")
        #expect(try await run(["import", pdfs.path]).status == 0)
        try FileManager.default.createDirectory(atPath: "\(lib)/.addresses", withIntermediateDirectories: true)
        try Self.patientFile("Scan 1", name: "WHITFIELD, Eleanor (Mrs)", born: "14/03/1952", nhs: "943 476 5919").write(toFile: "\(lib)/.addresses/Scan 1.json", atomically: true, encoding: .utf8)
        try Self.patientFile("Scan 2", name: "Eleanor Whitfeld", born: "14/03/1952").write(toFile: "\(lib)/.addresses/Scan 2.json", atomically: true, encoding: .utf8)
        try Self.patientFile("Scan 3", name: "John Smith", born: "01/06/1950", nhs: "943 476 5870").write(toFile: "\(lib)/.addresses/Scan 3.json", atomically: true, encoding: .utf8)
        #expect(try await run(["index"]).status == 0)

        var list = try await people()
        #expect(list.count == 3, "\(list)")
        let eleanor = try #require(list.first { $0["nhs_number"] as? String == "9434765919" })
        #expect(Set(eleanor["documents"] as? [String] ?? []) == ["pdf/Whitfield_Eleanor_140352.yianazip", "pdf/Scan 1.yianazip"], "\(eleanor)")
        #expect(eleanor["name"] as? String == "Eleanor Whitfield" && eleanor["date_of_birth"] as? String == "14/03/1952")
        let misspelt = try #require(list.first { ($0["documents"] as? [String]) == ["pdf/Scan 2.yianazip"] })
        #expect(misspelt["nhs_number"] is NSNull, "every key there, null when not known")

        let duplicates = try await run(["people", "duplicates", "--json"])
        #expect(duplicates.status == 1)
        let pairs = try #require(try JSONSerialization.jsonObject(with: Data(duplicates.stdout.utf8)) as? [[String: Any]])
        #expect(pairs.count == 1 && Set([pairs[0]["a"] as? String, pairs[0]["b"] as? String]) == [eleanor["id"] as? String, misspelt["id"] as? String])
        let evidence = pairs[0]["evidence"] as? [String: [String]]
        #expect(evidence?["for"]?.contains { $0.contains("a letter or two apart") } == true, "\(pairs)")

        let shown = try await run(["people", "show", "943 476 5919"])
        #expect(shown.status == 0 && shown.stdout.contains("from page 1 of pdf/Scan 1.yianazip") && shown.stdout.contains("GP now: Dr A Patel, Meadowbank Surgery"),
                "\(shown.stdout)")
        #expect(shown.stdout.contains("May be the same person as:"), "\(shown.stdout)")

        // NHS England's practice file makes her GP's practice official.
        let practices = [#""B86001","MEADOWBANK SURGERY","Y63","QWO","1 PARK ROAD","","LEEDS","","","LS6 1AA","19740401","","A","B","15F","19740401","","0113 000000","","","","0","","1","","4","""#,
                         #""B86002","OLD SURGERY","Y63","QWO","2 PARK ROAD","","LEEDS","","","LS6 1AB","19740401","20190331","C","B","15F","19740401","","","","","","0","","1","","4","""#]
        try practices.joined(separator: "\r\n").write(toFile: home.path("epraccur.csv"), atomically: true, encoding: .utf8)
        let imported = try await run(["people", "ods-import", home.path("epraccur.csv"), "--json"])
        let report = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any], "\(imported.stderr)")
        #expect(report["practices"] as? Int == 2 && report["closed"] as? Int == 1 && report["matched"] as? Int == 1, "\(report)")
        #expect(try await run(["people", "show", "943 476 5919"]).stdout.contains("GP now: Dr A Patel, Meadowbank Surgery (NHS: MEADOWBANK SURGERY, B86001)"))
        #expect(try await run(["people", "ods-import", home.path("nothing.csv")]).stderr.contains("nothing.csv cannot be read"))
        #expect(try await run(["people", "show", "Nobody Here"]).stderr.contains("no person in the register matches"))

        // Refused: two NHS numbers are two people. Nothing recorded.
        let refused = try await run(["people", "merge", "9434765919", "John Smith"])
        #expect(refused.status != 0 && refused.stderr.contains("different NHS numbers"), "\(refused.stderr)")
        func decisionFiles() -> [String] {
            (FileManager.default.enumerator(atPath: "\(lib)/.yiana/devices")?.allObjects as? [String] ?? []).filter { $0.hasSuffix("people.jsonl") }
        }
        #expect(decisionFiles().isEmpty)

        let merged = try await run(["people", "merge", eleanor["id"] as! String, misspelt["id"] as! String])
        #expect(merged.status == 0, "\(merged.stderr)")
        list = try await people()
        #expect(list.count == 2 && list.contains { ($0["documents"] as? [String])?.count == 3 }, "\(list)")
        #expect(try await run(["people", "duplicates"]).status == 0)
        #expect(decisionFiles().count == 1)

        // Apart, with the two ids `duplicates` listed, undoes the merge, and the pair is no
        // longer listed; both decisions survive a new index.
        #expect(list.contains { $0["id"] as? String == eleanor["id"] as? String }, "the merged person keeps the id of the NHS number")
        let apart = try await run(["people", "apart", eleanor["id"] as! String, misspelt["id"] as! String])
        #expect(apart.status == 0, "\(apart.stderr)")
        #expect(try await people().count == 3)
        #expect(try await run(["people", "duplicates"]).status == 0)
        try FileManager.default.removeItem(atPath: home.path("cache"))
        #expect(try await run(["index"]).status == 0)
        #expect(try await people().count == 3)
        #expect(try await run(["people", "duplicates"]).status == 0, "the decision is the library's, not the index's")
    }

    /// Scripts/bench/people.sh's short form: a generated clinic of 60 patients in 300
    /// documents with the hard cases planted (Scripts/generate/people.py, seed 1, a tuning
    /// seed): no wrong merge, every split and planted pair listed, none of the pairs that must
    /// stay two made one; then 60 random changes, and after every 20 the register equal to one
    /// rebuilt from scratch.
    @Test func aGeneratedClinicHasNoWrongMergeAndItsRegisterFollowsEveryChange() async throws {
        let script = Fixtures.packageRoot.appendingPathComponent("Scripts/bench/people.sh").path
        let run = try await runProcess(URL(fileURLWithPath: "/bin/bash"), [script, "60", "300", "60"],
                                       environment: ProcessInfo.processInfo.environment.merging(["YIANA": Fixtures.productsFolder.appendingPathComponent("yiana").path]) { $1 })
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("wrong merges: 0") && run.stdout.contains("splits not listed: 0") && run.stdout.contains("planted pairs missed: 0"), "\(run.stdout)")
        #expect(run.stdout.contains("after 60 changes (3 rounds of 20, each followed by `yiana index`): the register equals a rebuild from scratch"), "\(run.stdout)")
    }
}

import Foundation
import Testing
import YianaTestSupport
@testable import YianaPeople

/// GP practices made official from NHS England's `epraccur.csv`.
@Suite struct ODSTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/app-nhs-lookup")

    struct Case: Decodable {
        struct Input: Decodable { let postcode: String; let nameHint: String?; let addressHint: String? }
        struct Match: Decodable { let odsCode: String }
        struct Expected: Decodable {
            let matchCount: Int?, matches: [Match]?, firstMatchName: String?, shouldReturnResults: Bool?, districtPracticeCount: Int?
        }
        let id: Int
        let type: String
        let input: Input
        let expected: Expected
    }

    static func cases() throws -> [Case] {
        struct File: Decodable { let cases: [Case] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(File.self, from: Data(contentsOf: folder.appendingPathComponent("test_cases.json"))).cases
    }

    static let directory: ODSDirectory = {
        ODSDirectory((try? ODSFile.read(folder.appendingPathComponent("epraccur.csv").path).practices) ?? [])
    }()

    /// The app's 25 lookups (lh/Yiana `nhs_lookup/test_cases.json`) against the practices of
    /// their districts from the app's own `nhs_lookup.db`, written in the published layout
    /// (Fixtures/app-nhs-lookup/epraccur.csv): each answered at least as the app answers it.
    /// Where a name tells several practices at one postcode apart, ours is the one the app
    /// lists first (`first_match_name`), matched, where the app lists them all.
    @Test(arguments: try cases())
    func theAppsLookupsAreAFloor(_ lookup: Case) throws {
        #expect(Self.directory.count == 69)
        let outcome = Self.directory.match(postcode: lookup.input.postcode, name: lookup.input.nameHint, address: lookup.input.addressHint)
        let expected = lookup.expected.matches?.map(\.odsCode) ?? []
        switch lookup.type {
        case "exact_match":
            #expect(outcome == .matched(try #require(Self.practice(expected[0]))), "\(lookup.id)")
        case "exact_match_multiple":
            guard case .candidates(let found) = outcome else { Issue.record("\(lookup.id): \(outcome)"); return }
            #expect(Set(found.map(\.code)) == Set(expected), "\(lookup.id)")
        case "exact_match_with_hint":
            switch outcome {
            case .matched(let practice): #expect(practice.name == lookup.expected.firstMatchName, "\(lookup.id)")
            case .candidates(let found): #expect(Set(found.map(\.code)) == Set(expected), "\(lookup.id)")
            default: Issue.record("\(lookup.id): \(outcome)")
            }
        case "district_fallback_with_hint":
            #expect(outcome != .none, "\(lookup.id)")
        default:
            #expect(outcome == .none, "\(lookup.id): \(outcome)")
        }
    }

    static func practice(_ code: String) -> ODSPractice? {
        try? ODSFile.read(folder.appendingPathComponent("epraccur.csv").path).practices.first { $0.code == code }
    }

    /// A file in the published layout with what the real one holds beside open practices: a
    /// closed one, a branch surgery, an out-of-hours service, two practices at one postcode,
    /// names with commas in quotes, a line that is not a practice.
    @Test func theFileAsPublishedWithClosedPracticesAndBranches() throws {
        func row(_ code: String, _ name: String, _ postcode: String, status: String = "A", setting: String = "4") -> String {
            let fields = [code, name, "Y63", "QHM", "THE HEALTH CENTRE", "LAWSON STREET", "STOCKTON-ON-TEES", "CLEVELAND", "", postcode,
                          "19740401", status == "C" ? "20190331" : "", status, "B", "00K", "19740401", "", "01642 672351", "", "", "", "0", "", "1", "", setting, ""]
            return fields.map { "\"\($0.replacingOccurrences(of: "\"", with: "\"\""))\"" }.joined(separator: ",")
        }
        let lines = [
            row("A81001", "THE DENSHAM SURGERY", "TS18 1HU"),
            row("A81002", "QUEENS PARK MEDICAL CENTRE", "TS18 2AW", status: "C"),
            row("A81003", "SMITH, JONES & \"PARTNERS\"", "TS18 3AA"),
            row("A81003001", "VICTORIA ROAD BRANCH", "TS18 4BB"),
            row("Y00001", "OUT OF HOURS SERVICE", "TS18 1HU", setting: "2"),
            row("A81004", "MEADOWBANK SURGERY", "TS18 5CC"),
            row("A81005", "RIVERSIDE PRACTICE", "TS18 5CC"),
            "not,a,practice",
            #""A81006","A QUOTE LEFT OPEN,"Y63""#,
            row("A81007", "AFTER THE BROKEN LINE", "TS18 6DD"),
        ]
        let folder = try TemporaryFolder()
        try lines.joined(separator: "\r\n").write(toFile: folder.path("epraccur.csv"), atomically: true, encoding: .utf8)
        let (practices, unread) = try ODSFile.read(folder.path("epraccur.csv"))
        #expect(practices.count == 8 && unread == [8, 9], "a quote left open spoils its line only")
        #expect(practices[2].name == "SMITH, JONES & \"PARTNERS\"" && practices[2].address == ["THE HEALTH CENTRE", "LAWSON STREET", "STOCKTON-ON-TEES", "CLEVELAND"])
        let ods = ODSDirectory(practices)
        #expect(ods.match(postcode: "ts181hu") == .matched(practices[0]), "the out-of-hours service at the same postcode is no GP practice")
        #expect(ods.match(postcode: "TS18 2AW") == .closed([practices[1]]), "closed: marked, not matched")
        #expect(ods.match(postcode: "TS18 4BB") == .matched(practices[3]) && practices[3].practice == "A81003")
        #expect(ods.match(postcode: "TS18 5CC") == .candidates([practices[5], practices[6]]))
        #expect(ods.match(postcode: "TS18 5CC", name: "Meadowbank Surgery") == .matched(practices[5]))
        #expect(ods.match(postcode: "TS18 9ZZ", name: "Riverside Practice") == .matched(practices[6]), "the district, by the name's words")
        #expect(ods.match(postcode: "TS18 9ZZ") == .none, "no name: no guess")
        #expect(ods.match(postcode: "not a postcode") == .none)
        // Zipped as NHS England publishes it.
        let zip = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", "import zipfile,sys; z=zipfile.ZipFile(sys.argv[1],'w',zipfile.ZIP_DEFLATED); z.write(sys.argv[2],'epraccur.csv'); z.close()",
                                                                      folder.path("epraccur.zip"), folder.path("epraccur.csv")])
        #expect(zip.status == 0)
        #expect(try ODSFile.read(folder.path("epraccur.zip")).practices == practices)
        #expect(throws: ODSFile.Failure.self) { try ODSFile.read(folder.path("missing.csv")) }
    }
}

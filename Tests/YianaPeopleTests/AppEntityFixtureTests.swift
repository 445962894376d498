import Foundation
import Testing
import YianaArchive
import YianaFolder
@testable import YianaPeople

/// The app's entity fixtures (lh/Yiana `migration/fixtures/entity/`, 30 scenarios, copied
/// unchanged into Fixtures/app-entity): each scenario's files are a library of their own, and
/// its outcome is at least as right as the app's. Where ours differs on purpose, the
/// difference is named here and in docs/PEOPLE.md.
@Suite struct AppEntityFixtureTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/app-entity")

    struct Scenario: Decodable {
        let id: Int
        let name: String
        let files: [String]
        let expectedPatients: Int
        let expectedPatientNames: [String]?
        let expectedPatientDocCount: [String: Int]?
        let expectedPractitioners: Int
        let expectedPractitionerNames: [String]?
        let expectedLinks: Int
    }

    static func scenarios() throws -> [Scenario] {
        struct File: Decodable { let scenarios: [Scenario] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(File.self, from: Data(contentsOf: folder.appendingPathComponent("expected.json"))).scenarios
    }

    static func register(_ files: [String]) throws -> Register {
        let documents = try files.map { file -> RegisterDocument in
            let json = try JSONValue.decode(Data(contentsOf: folder.appendingPathComponent("addresses/\(file)")))
            let id = String(file.dropLast(5))
            return RegisterDocument(path: "\(id).yianazip", title: id, people: DocumentPeople(AddressBook(extraction: json, corrections: nil)))
        }
        return Register(documents: documents)
    }

    /// The scenarios where ours differs from the app's on purpose, and the outcome ours gives.
    /// - 26 and 27: the app makes people from file names only; a page that names a patient is
    ///   a person here too (`Meg Irvine`, `John Smith`), never merged with anyone on a name alone.
    /// - 24: a practice the page names without a doctor is kept, as the patient's GP practice.
    /// - 23: two GPs of one name at practices with different ODS codes are two here; the pages
    ///   say nothing else of them, so they are one by name (the app's outcome, by a different rule).
    static let differences: [Int: (patients: Int, practitioners: Int, links: Int)] = [
        24: (1, 1, 1),
        26: (1, 1, 1),
        27: (1, 1, 1),
    ]

    @Test(arguments: try scenarios())
    func scenarioOutcome(_ scenario: Scenario) throws {
        let register = try Self.register(scenario.files)
        let expected = Self.differences[scenario.id]
            ?? (scenario.expectedPatients, scenario.expectedPractitioners, scenario.expectedLinks)
        #expect(register.people.count == expected.patients, "\(scenario.name): \(register.people.map(\.name))")
        #expect(register.practitioners.count == expected.practitioners, "\(scenario.name): \(register.practitioners.map(\.name))")
        let links = register.people.reduce(0) { $0 + $1.gps.count + $1.practitioners.count }
        #expect(links == expected.links, "\(scenario.name)")
        if let names = scenario.expectedPatientNames {
            #expect(register.people.map { PersonName($0.name)!.normalised }.sorted() == names.sorted(), "\(scenario.name)")
        }
        for (name, count) in scenario.expectedPatientDocCount ?? [:] {
            #expect(register.people.first { PersonName($0.name)?.normalised == name }?.documents.count == count, "\(scenario.name): \(name)")
        }
        if let names = scenario.expectedPractitionerNames {
            #expect(register.practitioners.map { PersonName($0.name)?.normalised ?? $0.name }.sorted() == names.sorted(), "\(scenario.name)")
        }
        // Kate Nash born 12/05/1990 and Kate Nash born 04/03/2002: two people, shown for a person to decide.
        #expect(register.duplicates.count == (scenario.id == 15 ? 1 : 0), "\(scenario.name): \(register.duplicates)")
    }
}

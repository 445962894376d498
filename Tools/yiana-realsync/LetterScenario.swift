import Foundation
import YianaLibrary

/// A clinic letter reaching its patient's document under a real sync program: the patient's
/// document (`Smith_Jane_120345`, named as the app names it) is made on device a and synced;
/// on b the render service's hospital-records copy of the app's letter (SampleDocs/letters)
/// lands in `.letters/inject/`, and one pass of `yiana watch --inject --extract` appends it and
/// finds the people on every page. Two syncs carry both to a. On both devices the document
/// holds the letter once, and each of the letter's pages has an entry naming the patient of
/// its `Re:` line (her MRN and postcode, her GP from the `Cc:` line), never the consultant who
/// signed it; the app decodes the address file; nothing is left conflict-named.
struct LetterScenario {
    let base: Scenario
    static let document = "Smith_Jane_120345"
    static let letterID = "5d6c7b8a-9e0f-4a1b-8c2d-3e4f5a6b7c8d"
    static let letter = "letters/Smith_Jane_120345 letter, hospital records copy.pdf"

    struct Result: Codable {
        var program = ""
        /// The document's pages on a and b, and what they should be.
        var pages = [0, 0]
        var expectedPages = 0
        /// The letter's pages whose patient is Jane Smith with the Re: line's MRN, postcode and GP, on a and b.
        var letterPagesNamingThePatient = [0, 0]
        var letterPages = 0
        /// Entries on a and b that name the consultant who signed as a patient.
        var consultantAsPatient = [0, 0]
        var appDecodes = [false, false]
        var conflictCopiesLeft: [String] = []
        var converged = false
        var travelled: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: base)
        let a = base.a, b = base.b
        func sync() async throws { try await trip.sync(program) }
        // Her document: a referral (any PDF will do) named as the app names a patient's.
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("yiana-letter-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        let referral = staging.appendingPathComponent("\(Self.document).pdf")
        try FileManager.default.copyItem(at: base.samples.appendingPathComponent("pdfs/Filled form.pdf"), to: referral)
        try base.yiana(["import", "--library", a.path, referral.path])
        let pagesBefore = Self.pageCount(base, a)
        try await sync()

        let letter = base.samples.appendingPathComponent(Self.letter)
        result.letterPages = 2
        let inject = b.appendingPathComponent(".letters/inject")
        try FileManager.default.createDirectory(at: inject, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: letter, to: inject.appendingPathComponent("\(Self.document)_\(Self.letterID).pdf"))
        try base.yiana(["watch", "--once", "--inject", "--extract", "--library", b.path])
        try await sync()
        try await sync()  // a second round: nothing may be left to carry

        result.expectedPages = pagesBefore + result.letterPages
        let file = ".addresses/\(Self.document).json"
        for (index, root) in [a, b].enumerated() {
            result.pages[index] = Self.pageCount(base, root)
            let value = try? CompanionContent.json(at: root.appendingPathComponent(file)).get()
            result.appDecodes[index] = value.map { CompanionShape.of(.addressExtraction)!.failures($0).isEmpty } == true
            let entries = AddressBook(extraction: value, corrections: nil).entries
            let patients = entries.filter { $0.type == "patient" }
            result.letterPagesNamingThePatient[index] = patients.filter { entry in
                entry.page > pagesBefore && entry.words.first == "Jane Smith" && entry.words.contains("H123456") && entry.words.contains("RH2 7AA")
                    && entry.words.contains("Dr A Patel")
            }.count
            result.consultantAsPatient[index] = patients.filter { $0.words.contains { $0.contains("Arblaster") } }.count
        }
        result.conflictCopiesLeft = OCRScenario.conflictCopies(a).map { "a: \($0)" } + OCRScenario.conflictCopies(b).map { "b: \($0)" }
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        trip.finish(&result)

        if result.pages != [result.expectedPages, result.expectedPages] { result.problems.append("the document has \(result.pages) pages, not \(result.expectedPages) on both") }
        if result.letterPagesNamingThePatient != [result.letterPages, result.letterPages] {
            result.problems.append("the letter's pages naming Jane Smith (MRN, postcode, GP) on a/b: \(result.letterPagesNamingThePatient), not \(result.letterPages)")
        }
        if result.consultantAsPatient != [0, 0] { result.problems.append("the consultant named as a patient on a/b: \(result.consultantAsPatient)") }
        if result.appDecodes != [true, true] { result.problems.append("the app decodes the address file on a/b: \(result.appDecodes)") }
        if !result.conflictCopiesLeft.isEmpty { result.problems.append("conflict copies left: \(result.conflictCopiesLeft)") }
        if !result.converged { result.problems.append("the devices did not converge") }
        return result
    }

    private static func pageCount(_ base: Scenario, _ root: URL) -> Int {
        let info = Scenario.object((try? base.yiana(["info", "--library", root.path, "--json", document]).stdout) ?? "")
        return (info["metadata"] as? [String: Any])?["pageCount"] as? Int ?? 0
    }
}

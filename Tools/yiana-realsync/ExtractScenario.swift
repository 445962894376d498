import Foundation
import YianaArchive
import YianaLibrary

/// `yiana extract` under a real sync program: a scanned letter is imported and recognised on
/// device a and synced; while apart, a extracts its people (the app's address file) and on b
/// a person corrects the patient's name as the app writes corrections (`.overrides.json`,
/// its models encoded with `.prettyPrinted, .sortedKeys`). They sync twice: both files must
/// be on both devices as written, the app must read both and show the correction over the
/// extracted page, and nothing may be left conflict-named.
struct ExtractScenario {
    let base: Scenario
    static let document = "Eye clinic appointment (scan)"
    static var extraction: String { ".addresses/\(document).json" }
    static var corrections: String { ".addresses/\(document).overrides.json" }

    struct Result: Codable {
        var program = ""
        /// The extracted pages and the correction, on a and b after syncing.
        var pagesKept = [0, 0]
        var correctionKept = [false, false]
        var appDecodes = [false, false]
        /// What the app shows for page 1 (the corrected name), on a and b.
        var shown = ["", ""]
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
        try base.yiana(["import", "--library", a.path, base.samples.appendingPathComponent("scans/\(Self.document).pdf").path])
        try base.yiana(["ocr", "--all", "--jobs", "1", "--library", a.path])
        try await sync()
        try await program.disconnect()

        try base.yiana(["extract", "--all", "--library", a.path])
        let correction: [String: Any] = [
            "page_number": 1, "match_address_type": "patient", "address_type": "patient", "is_prime": true, "override_reason": "manual",
            "override_date": "2026-05-12T10:00:00Z", "recipient_role": "to", "patient": ["full_name": "Eleanor M Hartley"],
        ]
        let url = b.appendingPathComponent(Self.corrections)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let written = try JSONSerialization.data(withJSONObject: ["schema_version": 1, "document_id": Self.document, "overrides": [correction]],
                                                 options: [.prettyPrinted, .sortedKeys])
        try written.write(to: url)
        try await program.reconnect()
        try await sync()
        try await sync()  // a second round: nothing may be left to carry

        let extracted = FileManager.default.contents(atPath: a.appendingPathComponent(Self.extraction).path)
        for (index, root) in [a, b].enumerated() {
            let extraction = try? CompanionContent.json(at: root.appendingPathComponent(Self.extraction)).get()
            let corrections = try? CompanionContent.json(at: root.appendingPathComponent(Self.corrections)).get()
            if case .object(let file)? = extraction, case .array(let pages)? = file["pages"] { result.pagesKept[index] = pages.count }
            result.correctionKept[index] = FileManager.default.contents(atPath: root.appendingPathComponent(Self.corrections).path) == written
            result.appDecodes[index] = extraction.map { CompanionShape.of(.addressExtraction)!.failures($0).isEmpty } == true
                && corrections.map { CompanionShape.of(.addressCorrections)!.failures($0).isEmpty } == true
            let entry = AddressBook(extraction: extraction, corrections: corrections).entries.first
            result.shown[index] = entry.map { "\($0.words.first ?? "") (\($0.source.rawValue))" } ?? ""
            if FileManager.default.contents(atPath: root.appendingPathComponent(Self.extraction).path) != extracted {
                result.problems.append("\(index == 0 ? "a" : "b"): the address file is not the one a wrote")
            }
        }
        result.conflictCopiesLeft = OCRScenario.conflictCopies(a).map { "a: \($0)" } + OCRScenario.conflictCopies(b).map { "b: \($0)" }
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        trip.finish(&result)

        if result.pagesKept != [1, 1] { result.problems.append("extracted pages on a/b: \(result.pagesKept), expected 1/1") }
        if result.correctionKept != [true, true] { result.problems.append("the correction as b wrote it on a/b: \(result.correctionKept)") }
        if result.appDecodes != [true, true] { result.problems.append("the app decodes both files on a/b: \(result.appDecodes)") }
        if result.shown != ["Eleanor M Hartley (corrected)", "Eleanor M Hartley (corrected)"] { result.problems.append("the app shows \(result.shown)") }
        if !result.conflictCopiesLeft.isEmpty { result.problems.append("conflict copies left: \(result.conflictCopiesLeft)") }
        if !result.converged { result.problems.append("the devices did not converge") }
        return result
    }
}

import Foundation
import YianaLibrary

/// The app's own files under a real sync program: while apart, each device makes address
/// corrections to one document (the same page on both, and different pages), changes the
/// work list and edits the same letter draft, written as the app writes them (its models,
/// `JSONEncoder` with `.prettyPrinted, .sortedKeys`: the app itself does not run on Linux).
/// They sync (the program conflict-copies those files), `yiana conflicts resolve --strategy
/// merge` runs on one device (without `--now`), and they sync twice.
struct CompanionScenario {
    let base: Scenario
    static let document = "Flow control paper"
    static let letter = "0c1d2e3f-4a5b-4c6d-8e7f-8091a2b3c4d5"
    static var corrections: String { ".addresses/\(document).overrides.json" }

    struct Result: Codable {
        var program = ""
        /// Conflict copies of the app's files the program made.
        var companionCopiesMade = 0
        /// Corrections made on either device, and those in the plain file on both afterwards.
        var correctionsMade = 0
        var correctionsKept = [0, 0]
        var workListItemsKept = [0, 0]
        var workListItemsMade = 0
        var appDecodes = [false, false]
        var conflictCopiesLeft: [String] = []
        /// Bytes of the app's files seen on either device before resolving, and how many
        /// of them `versions list` and the version store give back.
        var versionsNeeded = 0
        var versionsRetrievable = [0, 0]
        var versionsListed = [0, 0]
        /// Versions of the document's address files any device recorded, read from the logs on disk.
        var versionsKept = 0
        var converged = false
        var verifyClean = [false, false]
        var travelled: [String] = []
        var seconds = 0.0
        var problems: [String] = []
    }

    /// One `AddressOverrideEntry` as the app writes it.
    static func correction(page: Int, type: String, date: String, name: String) -> [String: Any] {
        ["page_number": page, "match_address_type": type, "address_type": type, "is_prime": true, "override_reason": "manual",
         "override_date": date, "recipient_role": "to", "patient": ["full_name": name], "address": ["line_1": "1 Park Road", "postcode": "LS6 1AA"]]
    }

    static func write(_ object: Any, _ path: String, in root: URL) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]).write(to: url)
    }

    static func read(_ path: String, in root: URL) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent(path))) as? [String: Any]) ?? [:]
    }

    static func workItem(_ id: String, _ surname: String, _ added: String) -> [String: Any] {
        ["id": id, "surname": surname, "firstName": "Jane", "source": "clinic_list", "added": added, "mrn": id]
    }

    static func draft(body: String, modified: String) -> [String: Any] {
        ["letter_id": letter, "created": "2026-03-02T09:00:00Z", "modified": modified, "status": "draft", "yiana_target": document,
         "patient": ["name": "Jane Smith", "dob": "01/01/1980", "mrn": "A1", "address": ["1 Park Road"], "phones": []],
         "recipients": [["role": "to", "source": "gp", "name": "Dr Brown", "address": ["5 High Street"]]], "body": body]
    }

    func run(_ program: inout some SyncProgram) async throws -> Result {
        var result = Result(program: program.name)
        var trip = Trip(base: base)
        let a = base.a, b = base.b
        func sync() async throws { try await trip.sync(program) }
        let doc = Self.document, draftPath = ".letters/drafts/\(Self.letter).json"
        try base.yiana(["import", "--library", a.path, base.samples.appendingPathComponent("pdfs/\(doc).pdf").path])
        let first = Self.correction(page: 1, type: "patient", date: "2026-03-01T10:00:00Z", name: "Jane Smyth")
        try Self.write(["schema_version": 1, "document_id": doc, "overrides": [first]], Self.corrections, in: a)
        try Self.write(["modified": "2026-03-01T08:00:00Z", "items": [Self.workItem("W0", "Smith", "2026-03-01T08:00:00Z")]], ".worklist.json", in: a)
        try Self.write(Self.draft(body: "Dear Dr Brown,", modified: "2026-03-02T09:00:00Z"), draftPath, in: a)
        try await sync()
        try await program.disconnect()

        // Device A: a newer correction of page 1; device B: another of page 1 and one of page 2.
        let onA = Self.correction(page: 1, type: "patient", date: "2026-03-05T10:00:00Z", name: "Jane Smith")
        let onB = [Self.correction(page: 1, type: "patient", date: "2026-03-06T10:00:00Z", name: "Jane A Smith"),
                   Self.correction(page: 2, type: "gp", date: "2026-03-06T10:05:00Z", name: "Dr Brown")]
        try Self.write(["schema_version": 1, "document_id": doc, "overrides": [first, onA]], Self.corrections, in: a)
        try Self.write(["modified": "2026-03-05T08:00:00Z", "items": [Self.workItem("W0", "Smith", "2026-03-01T08:00:00Z"), Self.workItem("WA", "Jones", "2026-03-05T08:00:00Z")]], ".worklist.json", in: a)
        try Self.write(Self.draft(body: "Dear Dr Brown, on A", modified: "2026-03-05T09:00:00Z"), draftPath, in: a)
        try await Task.sleep(nanoseconds: 1_100_000_000)
        try Self.write(["schema_version": 1, "document_id": doc, "overrides": [first] + onB], Self.corrections, in: b)
        try Self.write(["modified": "2026-03-06T08:00:00Z", "items": [Self.workItem("W0", "Smith", "2026-03-01T08:00:00Z"), Self.workItem("WB", "Brown", "2026-03-06T08:00:00Z")]], ".worklist.json", in: b)
        try Self.write(Self.draft(body: "Dear Dr Brown, on B", modified: "2026-03-06T09:00:00Z"), draftPath, in: b)
        result.correctionsMade = 1 + 1 + onB.count
        result.workListItemsMade = 3
        try await program.reconnect()
        try await sync()

        // Every byte of the app's files on either device before anything is resolved.
        var before = Set<String>()
        for root in [a, b] {
            for companion in (try LibraryScanner.scan(Library(root: root))).companions {
                result.companionCopiesMade += companion.isConflictCopy && root == a ? 1 : 0
                if let data = FileManager.default.contents(atPath: root.appendingPathComponent(companion.path).path) { before.insert(Tree.sha(data)) }
            }
        }
        result.versionsNeeded = before.count
        try base.yiana(["conflicts", "resolve", "--library", a.path, "--strategy", "merge", "--json"])
        try await sync()
        try await sync()  // a second round: nothing may be left to carry

        let made = [first, onA] + onB
        for (index, root) in [a, b].enumerated() {
            let overrides = Self.read(Self.corrections, in: root)["overrides"] as? [[String: Any]] ?? []
            let present = Set(overrides.compactMap(Self.canonical))
            result.correctionsKept[index] = made.filter { Self.canonical($0).map(present.contains) == true }.count
            let items = Self.read(".worklist.json", in: root)["items"] as? [[String: Any]] ?? []
            result.workListItemsKept[index] = Set(items.compactMap { $0["id"] as? String }).intersection(["W0", "WA", "WB"]).count
            let library = try Library(root: root)
            let companions = try LibraryScanner.scan(library).companions
            result.conflictCopiesLeft += companions.filter { $0.isConflictCopy || $0.isTemp }.map { "\(index == 0 ? "a" : "b"): \($0.path)" }
            result.appDecodes[index] = companions.allSatisfy { companion in
                guard let shape = CompanionShape.of(companion.kind) else { return true }
                guard case .success(let value) = CompanionContent.json(at: root.appendingPathComponent(companion.path)) else { return false }
                return shape.failures(value).isEmpty
            }
            result.verifyClean[index] = try base.shell.run(base.yiana, ["verify", "--library", root.path]).status == 0
            let listed = Scenario.array(try base.yiana(["versions", "list", "--library", root.path, "--json", doc]).stdout)
            result.versionsListed[index] = listed.count
            let kept = try Tree.keptVersions(library)
            result.versionsRetrievable[index] = before.filter { kept.contains($0) || Tree.holds(root, $0) }.count
        }
        var lines = Set<String>()
        for file in Tree.files(a) where file.hasPrefix(".yiana/devices/") && file.hasSuffix("/versions.jsonl") {
            let text = (try? String(contentsOf: a.appendingPathComponent(file), encoding: .utf8)) ?? ""
            lines.formUnion(text.split(separator: "\n").map(String.init).filter { line in
                (Scenario.object(line)["originalPath"] as? String)?.hasPrefix(".addresses/\(doc).") == true
            })
        }
        result.versionsKept = lines.count
        result.converged = Tree.documentsAndState(a) == Tree.documentsAndState(b)
        trip.finish(&result)
        check(&result)
        return result
    }

    private func check(_ result: inout Result) {
        if result.companionCopiesMade == 0 { result.problems.append("the sync program made no conflict copy of the app's files: the scenario did not happen") }
        if result.correctionsKept != [result.correctionsMade, result.correctionsMade] { result.problems.append("corrections kept \(result.correctionsKept) of \(result.correctionsMade)") }
        if result.workListItemsKept != [3, 3] { result.problems.append("work-list items kept \(result.workListItemsKept) of 3") }
        if result.appDecodes != [true, true] { result.problems.append("a file the app cannot decode") }
        if !result.conflictCopiesLeft.isEmpty { result.problems.append("conflict copies left: \(result.conflictCopiesLeft)") }
        if result.versionsRetrievable != [result.versionsNeeded, result.versionsNeeded] {
            result.problems.append("bytes from before resolving retrievable \(result.versionsRetrievable) of \(result.versionsNeeded)")
        }
        if result.versionsKept == 0 || result.versionsListed != [result.versionsKept, result.versionsKept] {
            result.problems.append("versions of the address files listed \(result.versionsListed), kept \(result.versionsKept)")
        }
        if !result.converged { result.problems.append("the devices did not converge") }
        if result.verifyClean != [true, true] { result.problems.append("verify is not clean on both devices") }
    }

    /// A JSON object's bytes with its keys sorted, to compare objects whatever their order.
    static func canonical(_ object: [String: Any]) -> Data? {
        try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    }

}

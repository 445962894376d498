import ArgumentParser
import Foundation
import YianaExtract
import YianaLibrary
import YianaPostgres
import YianaSearch
import YianaSystem

extension Yiana {
    struct Extract: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "extract",
            abstract: "Find the people in each document (patient, address, date of birth, phones, GP) and write them where the app shows them.",
            discussion: """
                What the app's Mac extraction service does, on Linux. For each document, each \
                page's text is read (its OCR results in .ocr_results/, the app's service's or \
                `yiana ocr`'s, else the PDF's own text) and the people on it are found. A letter \
                is read as UK clinical correspondence is laid out: the patient is the person of \
                its Re: line (or "Patient:" block), else the addressee of a letter to the \
                patient; the consultant who signed it, its sender block and letterhead are never \
                the patient; the GP comes from a cc: with a practice (or a letter to a surgery), \
                and opticians and specialists it was copied to become entries of their own. \
                Where a letter does not say who its patient is, no one is written. Other pages \
                go by the app's rules, in its order: a registration form, a labelled form \
                ("Patient name:", "Address:"), an address label, and last a letter's prose with a \
                titled name and a postcode. A document named \
                Surname_Firstname_DDMMYY gives every page that patient's name and date of birth. \
                A postcode's sector gives the town and county where the page has none (the ONS \
                Postcode Directory's sectors of England and Wales, Open Government Licence).

                The result is the app's address file, .addresses/<title>.json, as the app writes \
                it: the app lists the people of each page, letters are addressed from them, and \
                `yiana index` makes them searchable. Its `pages` are extraction's: the \
                `overrides` and `enriched` parts of the file are kept byte for byte, and the \
                corrections a person made (.addresses/<title>.overrides.json) are never touched. \
                The file is written through the coordinated writer, the one it replaces kept \
                first in the version store (`yiana versions list DOC`). A result that is the \
                same as the file's leaves the file alone (no sync traffic), and a document \
                whose text and address file did not change since it was last extracted is not \
                read again. Documents without text yet are named (`yiana ocr` first); evicted \
                ones, conflict copies and documents a sync program is still writing are left.

                Exit code 1 when a document failed.

                Examples:
                  yiana extract --all
                  yiana extract "Clinic/Walker_Zach_190991" --json
                  yiana extract --all --dry-run
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Every document of the library.")
        var all = false

        @Flag(help: "Say what would be written; change nothing.")
        var dryRun = false

        @Option(help: ArgumentHelp("How many documents to work on at once (default: twice the cores, at least 4: each file's write waits on the disk).", valueName: "n"))
        var jobs: Int?

        @OptionGroup var arrivalOption: ArrivalOption

        @Flag(help: "Print one JSON object (counts and every document's result) instead of text.")
        var json = false

        @Argument(help: ArgumentHelp("Documents or folders of the library.", valueName: "doc"))
        var documents: [String] = []

        func validate() throws {
            guard all || !documents.isEmpty else { throw ValidationError("name documents or folders to extract, or give --all.") }
            guard !(all && !documents.isEmpty) else { throw ValidationError("give either --all or documents, not both.") }
            guard (jobs ?? 1) >= 1 else { throw ValidationError("--jobs must be at least 1.") }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let selection = try LibrarySelection.items(documents, all: all, in: library, settle: arrivalOption.settle)
            let sectors = PostcodeSectors.shared
            if let problem = sectors.problem { Output.error("warning: \(problem)") }
            var run = ExtractionRun(library: library, cascade: AddressCascade(sectors: sectors))
            run.dryRun = dryRun
            if let jobs { run.jobs = jobs }
            let bar = ProgressBar(label: dryRun ? "Checking" : "Extracting")
            let results = selection.missing.map { ExtractionResult.missing($0, in: library) }
                + run.run(selection.items, arriving: { selection.arrival?.stillArriving($0).map { "\($0)" } }) { done, total in
                    bar.update(completed: done, total: total, current: "")
                }
            bar.finish()
            let written = results.filter { $0.status == .extracted }.map(\.path)
            if !written.isEmpty { await Self.updateIndex(library, written) }
            let report = ExtractionReport(results: results)
            if json { try Output.json(report) } else { Self.render(report, all: all) }
            if report.failed > 0 { throw ExitCode.failure }
        }

        /// Brings an existing search index up to date with the address files written; a
        /// library without one gets none made.
        static func updateIndex(_ library: Library, _ paths: [String]) async {
            guard let location = try? IndexLocation.resolve(nil, library: library), location.mayExist else { return }
            do {
                guard let index = try await location.openExisting(library, writable: true) else { return }
                _ = try await index.closing { try await Indexer(library: library, index: index).updateAddresses(of: paths) }
            } catch {
                Output.error("the search index (\(location)) could not be updated with the people found: \(error); run `yiana index`.")
            }
        }

        static func render(_ report: ExtractionReport, all: Bool) {
            for result in report.results {
                // The patients first, then a letter's other recipients by their role, each once.
                var people: [String] = []
                for person in result.people.sorted(by: { ($0.role ?? "patient" == "patient" ? 0 : 1) < ($1.role ?? "patient" == "patient" ? 0 : 1) }) {
                    guard let name = person.name else { continue }
                    let shown = person.role.map { $0 == "patient" ? name : "\($0) \(name)" } ?? name
                    if !people.contains(shown) { people.append(shown) }
                }
                let who = people.isEmpty ? "no people found" : people.prefix(3).joined(separator: ", ") + (people.count > 3 ? ", …" : "")
                let pages = "\(Output.count(Set(result.people.map(\.page)).count, "page")) of \(result.pagesRead) with people"
                switch result.status {
                case .extracted: print("extracted      \(result.path): \(pages) (\(who)) → \(result.addressFile ?? "")")
                case .unchanged: print("unchanged      \(result.path): \(pages); \(result.addressFile ?? "") already says so")
                case .wouldExtract: print("would extract  \(result.path): \(pages) (\(who)) → \(result.addressFile ?? "")")
                case .upToDate: if !all { print("up to date     \(result.path): its text and \(result.addressFile ?? "its address file") did not change") }
                case .failed: Output.error("failed         \(result.path): \(result.error ?? "")")
                case .noText, .notDownloaded, .arriving, .conflictCopy:
                    print("\(result.status.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(result.path): \(result.error ?? "")")
                }
            }
            let words: [(ExtractionResult.Status, String)] = [
                (.extracted, "extracted"), (.unchanged, "unchanged"), (.upToDate, "up to date"), (.wouldExtract, "would be extracted"),
                (.noText, "without text (each says why)"), (.notDownloaded, "not downloaded"), (.arriving, "still arriving"),
                (.conflictCopy, "conflict copies left for resolving"), (.failed, "failed"),
            ]
            let summary = words.compactMap { status, text in report.count(status) > 0 ? "\(report.count(status)) \(text)" : nil }
            print("\(Output.count(report.results.count, "document")): \(summary.isEmpty ? "nothing to do" : summary.joined(separator: ", "))."
                  + Output.later(report.count(.arriving)))
        }
    }
}

/// What `yiana extract --json` prints.
struct ExtractionReport: Encodable {
    let results: [ExtractionResult]
    var failed: Int { count(.failed) }

    func count(_ status: ExtractionResult.Status) -> Int { results.filter { $0.status == status }.count }

    enum CodingKeys: String, CodingKey { case documents, counts }

    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(results, forKey: .documents)
        let statuses: [ExtractionResult.Status] = [.extracted, .unchanged, .upToDate, .wouldExtract, .noText, .notDownloaded, .arriving, .conflictCopy, .failed]
        try container.encode(Dictionary(uniqueKeysWithValues: statuses.map { ($0.rawValue, count($0)) }), forKey: .counts)
    }
}

extension ExtractionResult {
    static func missing(_ argument: String, in library: Library) -> ExtractionResult {
        ExtractionResult(path: argument, status: .failed, error: "no document \"\(argument)\" in \(library.root.path)")
    }
}

import Foundation
import YianaExtract
import YianaLibrary
import YianaSearch

extension LibraryWatcher {
    /// `--extract`: the people of the documents this pass indexed (every document on the
    /// first pass; those whose text and address file did not change are not read again) and
    /// of those OCR just recognised, written to their address files and read into the index.
    /// - Throws: when the index cannot be read.
    func extractPeople(_ report: IndexReport, everyListed: Bool, recognised: [String]) async throws {
        let paths = Set(health.passes == 1 ? report.documents.map(\.path) : report.changed).union(recognised)
        let statuses = try await statuses(of: paths, in: report, everyListed: everyListed).mapValues(\.status)
        let items = paths.sorted().filter { statuses[$0] == .ok || recognised.contains($0) }.map { path in
            let url = library.root.appendingPathComponent(path)
            return LibraryItem(kind: .document, url: url, documentURL: url)
        }
        guard !items.isEmpty else { return }
        let results = ExtractionRun(library: library).run(items)
        for result in results {
            switch result.status {
            case .extracted:
                let names = Set(result.people.compactMap(\.name)).sorted()
                record(.extracted, path: result.path, code: result.status.rawValue,
                       detail: "\(result.people.count) of \(result.pagesRead) pages with people\(names.isEmpty ? "" : ": " + names.prefix(3).joined(separator: ", ")) → \(result.addressFile ?? "")")
            case .failed:
                record(.problem, path: result.path, code: "extract-failed", detail: result.error)
            default:
                break
            }
        }
        let written = results.filter { $0.status == .extracted }.map(\.path)
        guard !written.isEmpty else { return }
        do {
            _ = try await Indexer(library: library, index: index).updateAddresses(of: written)
        } catch {
            record(.error, detail: "the people found could not be read into the index: \(error)")
        }
    }
}

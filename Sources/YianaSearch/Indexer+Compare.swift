import Foundation
import YianaLibrary
import YianaSystem

/// The library's documents against what the index holds of them: which to extract, which are
/// unchanged, and which the index holds that are gone.
struct Comparison {
    var work: [(LibraryItem, FileState)] = []
    var unchanged = 0
    /// Paths the index holds whose documents are not in the library.
    var gone: [String] = []
    /// The paths in `work` that the index holds (one that vanishes before it is read is gone).
    var knownWork = Set<String>()
    /// How many documents the index holds (of those compared, on a pass told what changed).
    var knownCount = 0

    /// `item` (at `path`) against its row, nil when the index holds none. Unchanged files are
    /// skipped, except those whose reading failed last time (an I/O error, a lock): they are
    /// tried again; with `full` nothing is skipped.
    mutating func consider(_ item: LibraryItem, path: String, stored: StoredDocument?, full: Bool) {
        guard let file = item.stamp ?? FileState(path: item.path) else { return }
        if !full, let stored, stored.file == file, stored.isPlaceholder == (item.kind == .placeholder),
           stored.status != .failed, stored.status != .stillArriving {
            unchanged += 1
            return
        }
        work.append((item, file))
        if stored != nil { knownWork.insert(path) }
    }
}

extension Indexer {
    /// A pass told what changed: `items` (those documents) against their rows, `known`; the
    /// paths it was `told` of that the index holds and no item has are gone.
    func compare(_ items: [LibraryItem], known: [String: StoredDocument], told: Set<String>, full: Bool) -> Comparison {
        var compared = Comparison()
        compared.knownCount = known.count
        var seen = Set<String>()
        for item in items {
            guard let path = library.documentPath(of: item) else { continue }
            seen.insert(path)
            compared.consider(item, path: path, stored: known[path], full: full)
        }
        compared.gone = told.filter { known[$0] != nil && !seen.contains($0) }
        return compared
    }

    /// A run over the whole library: `items` against every row the index holds, both in the
    /// order of their paths' bytes, a row at a time (``IndexStore/forEachKnown(_:)``). A run
    /// over 100,000 documents holds no table of the index's rows (about 29 MB) nor a set of
    /// every path seen; paths are the same when their bytes are (as the index's are: two
    /// names that differ only in their Unicode normalization are two documents).
    func compareWhole(_ items: [LibraryItem], full: Bool) async throws -> Comparison {
        var ordered: [(path: String, item: Int)] = []
        ordered.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if let path = library.documentPath(of: item) { ordered.append((path, index)) }
        }
        // A walk's items come sorted by path, which is this order for nearly every library.
        if zip(ordered, ordered.dropFirst()).contains(where: { Self.precedes($1.path, $0.path) }) {
            ordered.sort { Self.precedes($0.path, $1.path) }
        }
        var compared = Comparison()
        var next = 0
        try await index.forEachKnown { path, stored in
            compared.knownCount += 1
            while next < ordered.count, Self.precedes(ordered[next].path, path) {
                compared.consider(items[ordered[next].item], path: ordered[next].path, stored: nil, full: full)
                next += 1
            }
            var here = false
            while next < ordered.count, ordered[next].path.utf8.elementsEqual(path.utf8) {
                compared.consider(items[ordered[next].item], path: path, stored: stored, full: full)
                next += 1
                here = true
            }
            if !here { compared.gone.append(path) }
        }
        for (path, index) in ordered[next...] { compared.consider(items[index], path: path, stored: nil, full: full) }
        return compared
    }

    /// The order of the index's rows: by the paths' UTF-8 bytes (SQLite's BINARY collation).
    static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

import YianaSystem

/// An index's vocabulary held in memory, for a process that searches many times (`yiana
/// serve`): its words as a trie, walked against the rule's distance
/// (``Approximate/distance(_:_:limit:)``), so that a word's approximate words cost a walk of
/// the few branches within reach of it instead of hundreds of look-ups in the index (what a
/// single search does, ``Approximate/probes(for:edits:alphabet:)``, as loading every word would
/// cost it more).
///
/// The walk computes the distance's table a row per letter of the trie's path, against the
/// query word's letters: words sharing a beginning share its rows. Once a row is all beyond the
/// edits allowed, and the row before it at least at them, no word below can come back within
/// them (a later row reaches back two rows at most, for a swap or a confusion of two letters,
/// and that costs an edit), and the walk skips the branch.
/// The trie is kept as its nodes in preorder, each with where its branch ends: no pointers, a
/// few bytes a node.
public struct Lexicon: Sendable {
    /// Each node's letter.
    private let letters: [UInt32]
    /// Each node's depth (its letter's place in its words, from 1).
    private let depths: [UInt8]
    /// The node after each node's branch.
    private let branchEnds: [Int32]
    /// Whether a word ends at each node.
    private let ends: [Bool]
    /// How many words it holds.
    public let count: Int

    /// A lexicon of `words` (in any order; each kept once; words longer than
    /// ``Vocabulary/longest`` letters are not, as the vocabulary keeps none).
    public init(words: some Sequence<String>) {
        var arrays = words.map { $0.unicodeScalars.map(\.value) }.filter { !$0.isEmpty && $0.count <= Vocabulary.longest }
        if !zip(arrays, arrays.dropFirst()).allSatisfy({ !$1.lexicographicallyPrecedes($0) }) {
            arrays.sort { $0.lexicographicallyPrecedes($1) }
        }
        var letters: [UInt32] = [], depths: [UInt8] = [], branchEnds: [Int32] = [], ends: [Bool] = []
        var open: [Int] = []  // the nodes of the path to the last word, by depth - 1
        var last: [UInt32] = [], count = 0
        for word in arrays where word != last {
            var shared = 0
            while shared < last.count, shared < word.count, last[shared] == word[shared] { shared += 1 }
            while open.count > shared { branchEnds[open.removeLast()] = Int32(letters.count) }
            for depth in shared..<word.count {
                open.append(letters.count)
                letters.append(word[depth])
                depths.append(UInt8(depth + 1))
                branchEnds.append(0)
                ends.append(false)
            }
            if let node = open.last { ends[node] = true }
            last = word
            count += 1
        }
        for node in open { branchEnds[node] = Int32(letters.count) }
        self.letters = letters
        self.depths = depths
        self.branchEnds = branchEnds
        self.ends = ends
        self.count = count
    }

    /// Two lists of words in byte order (SQLite's and PostgreSQL's `COLLATE "C"`) as one.
    static func merged(_ a: [String], _ b: [String]) -> [String] {
        a.merged(with: b) { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The words within `edits` of `word` (folded) but `word` itself, nearest first (then A to
    /// Z), at most ``Approximate/maximumMatches``: what ``Approximate/matches(of:among:edits:)``
    /// finds among every word of the vocabulary.
    public func matches(of word: String, edits: Int) -> [String] {
        let query = word.unicodeScalars.map(\.value)
        var measured: [(word: String, distance: Int)] = []
        walk(query, edits: edits) { letters, distance in
            var view = String.UnicodeScalarView()
            for letter in letters { view.append(Unicode.Scalar(letter)!) }
            let found = String(view)
            if found != word { measured.append((found, distance)) }
        }
        return Approximate.nearest(measured)
    }

    /// For each of `words` (folded) that has any, its matches by the rule
    /// (``Approximate/allowedEdits(_:)``, ``matches(of:edits:)``).
    public func matches(of words: [String]) -> [String: [String]] {
        var found: [String: [String]] = [:]
        for word in Set(words) {
            let matches = matches(of: word, edits: Approximate.allowedEdits(word.unicodeScalars.count))
            if !matches.isEmpty { found[word] = matches }
        }
        return found
    }

    /// Calls `found` with each word within `edits` of `query` (its letters), and its distance.
    private func walk(_ query: [UInt32], edits: Int, found: (UnsafeBufferPointer<UInt32>, Int) -> Void) {
        let m = query.count, width = m + 1, longest = m + edits
        let confusions = Confusions(query)
        // Row d: the distances of the path's first d letters to each beginning of the query.
        var rows = [Int](repeating: 0, count: (longest + 1) * width)
        var lowest = [Int](repeating: 0, count: longest + 1)
        var path = [UInt32](repeating: 0, count: longest + 1)
        for j in 0...m { rows[j] = j }
        // One pass over the nodes, each array read without a check of its bounds: the walk is
        // most of a forgiving search's own time.
        nodes { letters, depths, branchEnds, ends in
            rows.withUnsafeMutableBufferPointer { rows in
                path.withUnsafeMutableBufferPointer { path in
                    lowest.withUnsafeMutableBufferPointer { lowest in
                        query.withUnsafeBufferPointer { query in
                            confusions.list.withUnsafeBufferPointer { list in
                                confusions.starts.withUnsafeBufferPointer { starts in
                                    var node = 0
                                    while node < letters.count {
                                        let depth = Int(depths[node])
                                        if depth > longest {
                                            node = Int(branchEnds[node])
                                            continue
                                        }
                                        path[depth - 1] = letters[node]
                                        // The row: from the one above, the one before that (a swap,
                                        // a confusion of two letters), and the cell to the left. Only
                                        // its band within `edits` of the diagonal: each edit moves a
                                        // cell at most one off it, so the others are beyond `edits`,
                                        // and are written so at the band's two sides.
                                        let letter = path[depth - 1], here = depth * width, above = here - width
                                        let low = max(1, depth - edits), high = min(m, depth + edits)
                                        rows[here + low - 1] = low == 1 ? depth : edits + 1
                                        if high < m { rows[here + high + 1] = edits + 1 }
                                        var least = low == 1 ? depth : edits + 1
                                        for j in stride(from: low, through: high, by: 1) {
                                            var value = min(rows[above + j] + 1, rows[here + j - 1] + 1,
                                                            rows[above + j - 1] + (letter == query[j - 1] ? 0 : 1))
                                            if depth > 1, j > 1, letter == query[j - 2], path[depth - 2] == query[j - 1] {
                                                value = min(value, rows[above - width + j - 2] + 1)
                                            }
                                            for index in starts[j]..<starts[j + 1] {
                                                let confusion = list[index]
                                                if confusion.count <= depth, letter == confusion.last, confusion.count == 1 || path[depth - 2] == confusion.first {
                                                    value = min(value, rows[(depth - confusion.count) * width + j - confusion.back] + 1)
                                                }
                                            }
                                            rows[here + j] = value
                                            least = min(least, value)
                                        }
                                        lowest[depth] = least
                                        if depth > 1, least > edits, lowest[depth - 1] + 1 > edits {
                                            node = Int(branchEnds[node])
                                            continue
                                        }
                                        if ends[node], high == m, rows[here + m] <= edits {
                                            found(UnsafeBufferPointer(rebasing: path[..<depth]), rows[here + m])
                                        }
                                        node += 1
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The trie's arrays, for reading without checks of their bounds.
    private func nodes(_ body: (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt8>, UnsafeBufferPointer<Int32>, UnsafeBufferPointer<Bool>) -> Void) {
        letters.withUnsafeBufferPointer { letters in
            depths.withUnsafeBufferPointer { depths in
                branchEnds.withUnsafeBufferPointer { branchEnds in
                    ends.withUnsafeBufferPointer { ends in body(letters, depths, branchEnds, ends) }
                }
            }
        }
    }

    /// For each beginning of a query (by its length), the confusions whose one side it ends
    /// with: the other side (one or two letters), and how many letters of the query it stands
    /// for; all in one list.
    private struct Confusions {
        struct Confusion {
            let first: UInt32, last: UInt32, count: Int, back: Int
        }

        var list: [Confusion] = []
        var starts: [Int] = [0]

        init(_ query: [UInt32]) {
            starts.append(0)
            for j in stride(from: 1, through: query.count, by: 1) {
                if let end = Unicode.Scalar(query[j - 1]) {
                    for unit in Approximate.units.filter({ $0.key.b == end }).flatMap(\.value) {
                        let to = unit.to.map(\.value), from = unit.from.map(\.value)
                        guard to.count <= j, query[(j - to.count)..<j].elementsEqual(to), (1...2).contains(from.count) else { continue }
                        list.append(Confusion(first: from[0], last: from[from.count - 1], count: from.count, back: to.count))
                    }
                }
                starts.append(list.count)
            }
        }
    }
}

import Foundation
import YianaLibrary
import YianaPDF

/// A word of a page and where it is drawn, in points from the page's top-left corner (an
/// OCR result's fractions are taken as of an A4 page).
public struct PlacedWord: Sendable, Equatable, Codable {
    public var text: String
    public var x0, y0, x1, y1: Double
    /// How sure OCR was of the word, 0…1 (1 for a PDF's own text).
    public var confidence: Double
    var height: Double { y1 - y0 }
    var middle: Double { (y0 + y1) / 2 }

    public init(text: String, x0: Double, y0: Double, x1: Double, y1: Double, confidence: Double = 1) {
        (self.text, self.x0, self.y0, self.x1, self.y1, self.confidence) = (text, x0, y0, x1, y1, confidence)
    }
}

/// A page as words with places (pdfplumber's way, and Tabula's "stream" mode): the words
/// made into lines by their height on the page, and each line cut into cells where a gap
/// wider than its letters' height parts them: the columns of a table, a label column beside
/// its values, two blocks side by side. A label is read with the value beside it or under it,
/// whatever the text's reading order (`FieldReader`).
struct PageLayout: Sendable {
    /// A run of words on one line with no wide gap between them.
    struct Cell: Sendable, Equatable {
        var words: [PlacedWord]
        /// The line it is on (an index into ``lines``).
        var line: Int
        var x0: Double { words.first?.x0 ?? 0 }
        var x1: Double { words.last?.x1 ?? 0 }
        var text: String { words.map(\.text).joined(separator: " ") }
    }

    /// The words it was laid out from.
    let words: [PlacedWord]
    /// Each line's cells, left to right; lines top to bottom.
    let lines: [[Cell]]
    /// Each line's top, bottom and height (its tallest word's).
    let bands: [(top: Double, bottom: Double, height: Double)]

    /// The most words laid out (a page of a letter has a few hundred).
    static let wordLimit = 6000

    init(words raw: [PlacedWord]) {
        let words = raw.prefix(Self.wordLimit).filter { !$0.text.isEmpty && $0.x1 >= $0.x0 && $0.y1 > $0.y0 }
            .sorted { $0.middle < $1.middle }
        // Lines: a word joins the line whose middle lies within half a height of its own, or whose
        // span it shares for half its height (a word without descenders beside one with them, a
        // scan a little turned).
        var rows: [[PlacedWord]] = []
        var middles: [Double] = []
        var spans: [(top: Double, bottom: Double)] = []
        for word in words {
            var joined = false
            for index in stride(from: rows.count - 1, through: max(0, rows.count - 3), by: -1) {
                let (top, bottom) = spans[index]
                let shared = min(bottom, word.y1) - max(top, word.y0)
                guard abs(middles[index] - word.middle) < 0.5 * min(bottom - top, word.height)
                        || shared >= 0.6 * min(bottom - top, word.height) && abs(middles[index] - word.middle) < 0.5 * max(bottom - top, word.height)
                else { continue }
                let count = Double(rows[index].count)
                rows[index].append(word)
                middles[index] = (middles[index] * count + word.middle) / (count + 1)
                spans[index] = ((top * count + word.y0) / (count + 1), (bottom * count + word.y1) / (count + 1))
                joined = true
                break
            }
            if !joined {
                rows.append([word])
                middles.append(word.middle)
                spans.append((word.y0, word.y1))
            }
        }
        let order = rows.indices.sorted { middles[$0] < middles[$1] }
        var lines: [[Cell]] = []
        var bands: [(top: Double, bottom: Double, height: Double)] = []
        for rowIndex in order {
            var row = rows[rowIndex].sorted { $0.x0 < $1.x0 }
            let height = Self.typicalHeight(row)
            // A mark standing alone (a scan's speck read as `_`, `.` or `©`), one OCR was half sure of beside a word
            // (`_ Address:`), or a table's rule OCR read as `|`, is no word of the page; a colon after a label is.
            row = row.enumerated().filter { index, word in
                guard word.text.count <= 2, PageLines.isSpeck(word.text) else { return true }
                if word.confidence < 0.6 || word.confidence < 1 && word.text.allSatisfy({ $0 == "|" }) { return false }
                let before = index > 0 ? word.x0 - row[index - 1].x1 : .infinity
                let after = index + 1 < row.count ? row[index + 1].x0 - word.x1 : .infinity
                return min(before, after) <= height
            }.map(\.element)
            guard !row.isEmpty else { continue }
            // A justified line's spaces are all wide: a gap parts cells only when it is wider than the line's own spaces too.
            let gaps = zip(row, row.dropFirst()).map { $1.x0 - $0.x1 }.sorted()
            let space = gaps.count >= 3 ? gaps[gaps.count / 4] : 0
            let parting = max(height, 2.5 * space)
            var cells: [Cell] = []
            for word in row {
                if var last = cells.last, word.x0 - last.x1 <= parting {
                    last.words.append(word)
                    cells[cells.count - 1] = last
                } else {
                    cells.append(Cell(words: [word], line: lines.count))
                }
            }
            lines.append(cells)
            bands.append((row.map(\.y0).min() ?? 0, row.map(\.y1).max() ?? 0, height))
        }
        self.words = words
        self.lines = lines
        self.bands = bands
    }

    /// The height of a line's letters: the median of its words' (a capital or a bracket
    /// stands taller in OCR's boxes, a word of small letters lower).
    private static func typicalHeight(_ row: [PlacedWord]) -> Double {
        let heights = row.map(\.height).sorted()
        return max(heights[heights.count / 2], 1)
    }

    init(words: [PlacedWord], lines: [[Cell]], bands: [(top: Double, bottom: Double, height: Double)]) {
        self.words = words
        self.lines = lines
        self.bands = bands
    }

    /// The layout with each cell under a row of labels without their values (a form's boxes:
    /// `Last name` beside `First name(s)`) cut where the labels' columns start: two boxes' values close enough to
    /// read as one cell (`Anderson-Dixon Tomasz`) are each their own label's again.
    func splittingValuesUnderLabelRows(isLabel: (Cell) -> Bool) -> PageLayout {
        var lines = lines
        for index in lines.indices.dropLast() where lines[index].count >= 2 && lines[index].allSatisfy(isLabel) && gap(from: index, to: index + 1) <= 1.6 {
            let starts = lines[index].dropFirst().map(\.x0)
            let tolerance = bands[index].height / 2
            var cut: [Cell] = []
            for cell in lines[index + 1] {
                var rest = cell.words
                for start in starts where rest.first.map({ $0.x0 < start - tolerance }) == true && rest.last.map({ $0.x0 >= start - tolerance }) == true {
                    let split = rest.firstIndex { $0.x0 >= start - tolerance } ?? rest.count
                    cut.append(Cell(words: Array(rest[..<split]), line: index + 1))
                    rest = Array(rest[split...])
                }
                if !rest.isEmpty { cut.append(Cell(words: rest, line: index + 1)) }
            }
            lines[index + 1] = cut
        }
        return PageLayout(words: words, lines: lines, bands: bands)
    }

    /// The cell after `cell` on its line.
    func cell(rightOf cell: Cell) -> Cell? {
        lines[cell.line].first { $0.x0 > cell.x1 }
    }

    /// The gap between the bottom of line `a` and the top of line `b` below it, in `a`'s heights.
    func gap(from a: Int, to b: Int) -> Double {
        (bands[b].top - bands[a].bottom) / max(bands[a].height, 1)
    }
}

extension PageLayout {
    /// A page laid out from its text layer's words (poppler's boxes, in points).
    init(pdfWords: [PageWord]) {
        self.init(words: pdfWords.map { PlacedWord(text: $0.text, x0: $0.x, y0: $0.y, x1: $0.x + $0.width, y1: $0.y + $0.height) })
    }

    /// A page laid out from an OCR result's words, whose boxes are fractions of the page. The
    /// app's service writes Vision's boxes, which start at the page's foot: told by its blocks
    /// running up the page as its lines run down, and turned over.
    init(ocrBlocks: [OCRResults.Block]) {
        var rising = 0, falling = 0
        for (a, b) in zip(ocrBlocks.map(\.boundingBox), ocrBlocks.dropFirst().map(\.boundingBox)) {
            if b.y + b.height / 2 < a.y + a.height / 2 - 0.002 { rising += 1 } else if b.y > a.y + 0.002 { falling += 1 }
        }
        let flip = rising > falling * 2 && rising >= 3
        let (width, height) = (595.0, 842.0)
        var words: [PlacedWord] = []
        for word in ocrBlocks.lazy.flatMap(\.lines).flatMap(\.words) where word.boundingBox.width >= 0 && word.boundingBox.height > 0 {
            let box = word.boundingBox
            let top = flip ? 1 - box.y - box.height : box.y
            words.append(PlacedWord(text: word.text, x0: box.x * width, y0: top * height, x1: (box.x + box.width) * width,
                                    y1: (top + box.height) * height, confidence: word.confidence))
        }
        self.init(words: words)
    }
}

extension PageLayout {
    /// The page's text read column by column: a block of lines that start (or end) where the
    /// one above does is read whole before the block beside it (the envelope window before the
    /// reference column beside it, a patient's block before the consultant's), where OCR reads
    /// straight across them (`Dr Joan Rahman Our ref : G56/7801`). A label and its value beside
    /// it stay one line (`Patient name: SMITH, Jane`), as a table's row reads, and so does a
    /// line of labelled fields.
    func readingText(isLabel: (Cell) -> Bool) -> String {
        struct Block {
            var lines: [String]
            var lastLine: Int
            var x0, x1: Double
            let first: (line: Int, x: Double)
        }
        var blocks: [Block] = []
        for (index, cells) in lines.enumerated() {
            // A label with the value beside it is one piece.
            var pieces: [(text: String, x0: Double, x1: Double)] = []
            var pendingLabel: Cell?
            // A row of fields (`Hospital No: …   NHS No: …   Tel: …`) is one line, as it is read.
            let isRowOfFields = cells.count > 1 && cells.allSatisfy(isLabel)
            if isRowOfFields, let first = cells.first, let last = cells.last {
                pieces.append((cells.map(\.text).joined(separator: " "), first.x0, last.x1))
            }
            // A cell of one or two marks standing apart (`oO`, `7`: a scan's specks) is left out of the text.
            let specks = Set(cells.indices.filter { index in
                cells[index].text.count <= 2 && !isLabel(cells[index]) && cells.count > 1
            }.map { cells[$0].x0 })
            for cell in cells where !isRowOfFields && !specks.contains(cell.x0) {
                if let label = pendingLabel {
                    pieces.append((label.text + " " + cell.text, label.x0, cell.x1))
                    pendingLabel = nil
                } else if isLabel(cell), cell != cells.last {
                    pendingLabel = cell
                } else {
                    pieces.append((cell.text, cell.x0, cell.x1))
                }
            }
            if let label = pendingLabel { pieces.append((label.text, label.x0, label.x1)) }
            let tolerance = 1.5 * bands[index].height
            for piece in pieces {
                // A block goes on over lines of the column beside it (a window's lines between the reference column's).
                if let open = blocks.indices.last(where: { blocks[$0].lastLine < index && blocks[$0].lastLine >= index - 3
                        && (abs(blocks[$0].x0 - piece.x0) <= tolerance || abs(blocks[$0].x1 - piece.x1) <= tolerance)
                        && gap(from: blocks[$0].lastLine, to: index) <= 1.5 }) {
                    blocks[open].lines.append(piece.text)
                    blocks[open].lastLine = index
                    blocks[open].x0 = piece.x0
                    blocks[open].x1 = piece.x1
                } else {
                    blocks.append(Block(lines: [piece.text], lastLine: index, x0: piece.x0, x1: piece.x1, first: (index, piece.x0)))
                }
            }
        }
        return blocks.sorted { ($0.first.line, $0.first.x) < ($1.first.line, $1.first.x) }.map { $0.lines.joined(separator: "\n") }.joined(separator: "\n")
    }
}

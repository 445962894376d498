import Foundation

/// The lines a value goes on over: an address's, a practice's, a name wrapped in a narrow
/// column; and an address's parts as they were before a column wrapped them.
extension FieldReader {
    /// The lines that go on from a value that started at `valueX` on `line`: each starting
    /// where it started (or, for a value run on from its label's line, where the label
    /// started), close under the line before, and no label; an address ends at its postcode.
    static func continuation(from line: Int, valueX: Double, labelX: Double, field: LabelLexicon.Field, in layout: PageLayout,
                             used: inout Set<Int>, stopAtPostcode: Bool) -> [[PlacedWord]] {
        guard !stopAtPostcode else { return [] }
        var taken: [[PlacedWord]] = []
        var last = line
        while taken.count < 6, last + 1 < layout.lines.count, layout.gap(from: last, to: last + 1) <= 1.0 {
            let next = last + 1
            let height = layout.bands[last].height
            guard let index = layout.lines[next].indices.first(where: { index in
                let cell = layout.lines[next][index]
                return !used.contains(Self.place(next, index)) && (abs(cell.x0 - valueX) <= 0.8 * height || abs(cell.x0 - labelX) <= 0.8 * height && valueX > labelX)
            }) else { break }
            let cell = layout.lines[next][index]
            // Anything left of it on its line that is not empty is another column's, unless it is a label (then the value has ended).
            if layout.lines[next][..<index].contains(where: { label($0.words) != nil }) { break }
            guard label(cell.words) == nil, cell.text.utf8.count <= PageLines.longLine, !FactCheck.isSentence(cell.text),
                  !cell.text.hasPrefix("Dear ") else { break }
            used.insert(Self.place(next, index))
            taken.append(cell.words)
            last = next
            if TextPatterns.firstPostcode(in: cell.text) != nil { break }
        }
        return taken
    }

    /// An address written as one run of parts with commas, wrapped in a narrow column
    /// (`186 Foxglove` / `Drive, Hammersmith` / `and Fulham W6 0GX`), as its lines were before
    /// the wrap: a line that ends with no comma is joined by the next one when the next goes on
    /// to a comma (or is a street's last word alone), starts with no number (a house's number
    /// starts a part), and its first word would not have fitted beside it in the column.
    static func unwrapped(_ lines: [[PlacedWord]]) -> [[PlacedWord]] {
        guard lines.count > 1, let left = lines.last?.first?.x0 else { return lines }
        // The column: the lines that start where the last starts (a first line run on from its label starts further right).
        let column = lines.filter { abs(($0.first?.x0 ?? 0) - left) <= 0.5 * ($0.first?.height ?? 0) }
        guard column.count > 1, let right = column.compactMap({ $0.last?.x1 }).max() else { return lines }
        let spaces = column.flatMap { line in zip(line, line.dropFirst()).map { $1.x0 - $0.x1 } }.filter { $0 > 0 }
        var joined: [[PlacedWord]] = []
        for line in lines {
            if let previous = joined.last, let end = previous.last, let first = line.first, !end.text.hasSuffix(","), first.text.first?.isNumber == false,
               column.contains(line), line.contains(where: { $0.text.hasSuffix(",") }) && column.contains(previous)
                   || Self.isStreetTail(line, after: previous),  // a street's last word under a first line run on from its label too
               end.x1 + (spaces.min() ?? 0.25 * end.height) + (first.x1 - first.x0) > right + 0.1 {
                joined[joined.count - 1] += line
            } else {
                joined.append(line)
            }
        }
        return joined
    }

    /// True for `Crescent` under `217 The`: a street's last word alone on a line, under a
    /// numbered line that names no street yet.
    static func isStreetTail(_ line: [PlacedWord], after previous: [PlacedWord]) -> Bool {
        line.count == 1 && AddressPage.Address.isStreetWord(line[0].text.trimmingCharacters(in: .punctuationCharacters))
            && previous.first?.text.first?.isNumber == true && previous.count >= 2
            && !AddressPage.Address.isStreetLine(previous.map(\.text).joined(separator: " "))
    }

    /// The line under a name's value that goes on from it: close under it, starting where it
    /// starts (or where its label starts, for a value run on from its label's line), with
    /// nothing left of it on its line (a table's next row has its label there), no label.
    static func wrappedName(after line: Int, valueX: Double, labelX: Double, in layout: PageLayout, used: inout Set<Int>) -> [[PlacedWord]] {
        let next = line + 1
        let height = layout.bands[line].height
        guard valueX > labelX, next < layout.lines.count, layout.gap(from: line, to: next) <= 0.8,
              let first = layout.lines[next].first, !used.contains(Self.place(next, 0)),
              abs(first.x0 - valueX) <= 0.8 * height || abs(first.x0 - labelX) <= 0.8 * height && valueX - labelX > 2 * height,
              label(first.words) == nil, first.words.count <= 3, first.text.allSatisfy({ $0.isLetter || " -'.".contains($0) }) else { return [] }
        used.insert(Self.place(next, 0))
        return [first.words]
    }
}

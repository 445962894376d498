import Foundation

/// The addressee in a letter's envelope window: a person's name line over address lines and a
/// postcode, before the body; the one the salutation speaks to when there is one. OCR reads a
/// window beside the letterhead and the reference column across: a line's right-hand part (a
/// date, a reference, a label) is cut off, and the letterhead's lines that land inside the
/// window's are stepped over.
struct LetterAddressee: Sendable, Equatable {
    var name: String
    var title: String?
    /// The address lines, the postcode's line last.
    var lines: [String]
    var postcode: String
    /// The address names a practice or a firm (a letter to a GP at their surgery).
    var isPractice: Bool
    /// The page line the name is on.
    var at: Int

    var displayName: String { title.map { "\($0) \(name)" } ?? name }

    /// Where the right-hand column (a date, a reference, a label) joins a window line when OCR reads across.
    private static let rightColumn = Pattern(#"\s+(?:Our ref|Your ref|Ref\b|Date\b|Tel\b|D\.?O\.?B\b|Date of birth|Hospital No|NHS No|MRN\b|Clinic\b|(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day\b|\d{1,2}(?:st|nd|rd|th)?\s+(?:January|February|March|April|May|June|July|August|September|October|November|December)\b|\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b)"#, [.caseInsensitive])

    /// True unless `line` has none of what ``rightColumn`` looks for (a digit, a reference, a
    /// date's or a label's word): most lines, read without the pattern.
    private static func mayHoldRightColumn(_ line: String) -> Bool {
        line.utf8.contains(where: TextPatterns.isDigit) || line.hasBytes("ref", ignoringCase: true) || line.hasBytes("date", ignoringCase: true)
            || line.hasBytes("tel", ignoringCase: true) || line.hasBytes("d.o.b", ignoringCase: true) || line.hasBytes("dob", ignoringCase: true)
            || line.hasBytes(" no", ignoringCase: true) || line.hasBytes("mrn", ignoringCase: true) || line.hasBytes("clinic", ignoringCase: true)
            || line.hasBytes("day", ignoringCase: true)
    }

    /// The window's addressee among `lines` (those before the body), spoken to by `salutation`.
    static func find(in lines: ArraySlice<String>, salutation: (title: String?, surname: String)?) -> LetterAddressee? {
        // A window is near the top of a page: its first 80 lines are read.
        let filled = lines.prefix(80).enumerated().filter { !$0.element.isEmpty }.map { index, line -> (Int, String) in
            guard mayHoldRightColumn(line), let cut = rightColumn.ranges(in: line).first, cut.lowerBound > line.startIndex else { return (lines.startIndex + index, line) }
            return (lines.startIndex + index, String(line[..<cut.lowerBound]))
        }
        var candidates: [(addressee: LetterAddressee, rank: Int)] = []
        for (position, (lineIndex, first)) in filled.enumerated() {
            guard let person = person(first, surname: salutation?.surname) else { continue }
            let after = filled[(position + 1)...].map(\.1)
            if let (lines, orgAt) = block(after, skippingLetterhead: false) {
                // A practice's name is the line under a person's; a firm's name further down is another block's.
                let rank = orgAt == nil ? 0 : orgAt == 0 ? 1 : 3
                candidates.append((LetterAddressee(name: person.name, title: person.title, lines: lines, postcode: TextPatterns.firstPostcode(in: lines.last!)!,
                                                   isPractice: orgAt == 0, at: lineIndex), rank))
            }
            if let (lines, _) = block(after, skippingLetterhead: true) {
                candidates.append((LetterAddressee(name: person.name, title: person.title, lines: lines, postcode: TextPatterns.firstPostcode(in: lines.last!)!,
                                                   isPractice: false, at: lineIndex), 2))
            }
        }
        let fitting = salutation.map { salutation in candidates.filter { LetterNames.surname($0.addressee.name) == salutation.surname } }
            ?? (Set(candidates.map(\.addressee.at)).count == 1 ? candidates : [])
        return fitting.filter { $0.rank < 3 }.min { $0.rank < $1.rank }?.addressee
    }

    /// The person a window's first line names: the whole line, or (when OCR read another column
    /// onto it) the words up to the surname the salutation speaks to.
    private static func person(_ line: String, surname: String?) -> (name: String, title: String?)? {
        guard let first = line.utf8.first, first >= 0x41, first <= 0x5A else { return nil }  // a name starts with a capital
        if PeopleText.looksLikeNameLine(line) || line.hasPrefix("Dr ") || line.hasPrefix("DR "), let person = LetterNames.person(Substring(line)) {
            return person
        }
        guard let surname else { return nil }
        let words = line.split(separator: " ")
        guard let end = words.prefix(6).firstIndex(where: { LetterNames.surname(String($0)) == surname }), end >= 1 else { return nil }
        return LetterNames.person(Substring(words[...end].joined(separator: " ")))
    }

    /// Address lines to a postcode within six lines, and the first line naming a firm or a
    /// service (nil when none does). Stepping over a letterhead: from a line naming a firm
    /// to its own postcode, and lines of labels, dates and references, within sixteen lines.
    private static func block(_ after: [String], skippingLetterhead: Bool) -> ([String], Int?)? {
        var body: [String] = []
        var orgAt: Int?
        var inLetterhead = false
        var skipped = false
        for line in after.prefix(skippingLetterhead ? 16 : 6) {
            if inLetterhead {
                if TextPatterns.firstPostcode(in: line) != nil { inLetterhead = false }
                continue
            }
            if skippingLetterhead, PeopleText.names(organisationIn: line) {
                inLetterhead = true
                skipped = true
                continue
            }
            if skippingLetterhead, line.hasBytes(":") || mayHoldRightColumn(line) && rightColumn.first(in: " " + line) != nil {
                skipped = true
                continue
            }
            if let postcode = TextPatterns.firstPostcode(in: line), line.count <= 60, !postcode.isEmpty {
                return skippingLetterhead && !skipped ? nil : (body + [line], orgAt)
            }
            guard line.count <= 60, !line.hasBytes(":") || line.hasPrefix("Flat"), body.count < 5 else { return nil }
            if orgAt == nil, PeopleText.names(organisationIn: line) { orgAt = body.count }
            body.append(line)
        }
        return nil
    }
}

import Foundation

/// The fields a page labels, read from its layout (`PageLayout`) rather than from its text's
/// reading order: each label of the lexicon (`LabelLexicon`) with its value after it in the
/// same cell (`DOB: 12/03/1945`), in the next cell to its right (a table's value column, a
/// label column beside its values), or under it (a form's box); a value that goes on over
/// several lines (an address) taken line by line while the next line starts where it started
/// and is no label. Whose a field is comes from its label (an NHS number is the patient's)
/// or, for a generic one (name, address), from the section heading above it (`GP details`,
/// `Referring optometrist`). Two values of one field that disagree leave the field unread.
struct FieldReader: Sendable {
    enum Party: Sendable, Equatable { case patient, gp, other }

    /// What the labels say of one person.
    struct Person: Sendable, Equatable {
        var names: [String] = []
        var surname: [String] = []
        var forenames: [String] = []
        var titles: [String] = []
        var datesOfBirth: [String] = []
        var hospitalNumbers: [String] = []
        var nhsNumbers: [String] = []
        /// Each labelled address: its lines.
        var addresses: [[String]] = []
        var postcodes: [String] = []
        var phones: [String] = []
        /// The GP's practice lines, for a GP.
        var practice: [[String]] = []
        /// How many labels named one of the patient's own fields (date of birth, numbers, name).
        var labels = 0
    }

    var patient = Person()
    var gp = Person()
    /// Names the labels give people who are not the patient (the consultant, the referrer, the signer).
    var others: [String] = []
    /// Postcodes of the people who are not the patient (the referrer's practice, the GP's).
    var otherPostcodes: Set<String> = []
    /// Dates the page labels as the letter's (`Clinic date`, `Date`).
    var letterDates: [String] = []
    /// The patient's name, read once the page is read (``readPatientName()``).
    private(set) var patientName: String?
    /// Every name the patient's labels give that reads (``readPatientNames()``).
    private(set) var patientNames: [String] = []
    /// The names of the people the labels say are not the patient (their other people and GP), read.
    private(set) var otherNames: [String] = []
    /// The GP the labels name (``readGP()``).
    private(set) var gpEntry: AddressPage.GP?

    private struct Section {
        var party: Party
        var line: Int
        var x0, x1: Double
    }

    /// The words OCR was unsure of (`OCRDoubt`): no value with one of them in it is written
    /// (`Dr R Brann` read at 6% for `Brennan`).
    var doubtful = OCRDoubt()
    /// Postcodes of the page's letterhead (the lines above its first label) and of its foot.
    var headAndFootPostcodes: Set<String> = []
    /// Phones (their digits) of the lines above the patient's first label and of the page's foot.
    var headAndFootPhones: Set<String> = []
    /// Where each generic field given to the patient was (a telephone, an address), to be kept
    /// only beside the patient's own labels.
    private var generic: [(field: LabelLexicon.Field, line: Int, x: Double, value: [String])] = []
    private var specific: [(line: Int, x: Double)] = []

    init(_ layout: PageLayout) {
        let layout = layout.splittingValuesUnderLabelRows { cell in Self.label(cell.words).map { $0.count == cell.words.count } ?? false }
        doubtful = OCRDoubt(layout)
        var used = Set<Int>()  // the cells read (`place`)
        var sections: [Section] = []
        var firstLabel: Int?
        for (lineIndex, cells) in layout.lines.enumerated() {
            for (cellIndex, cell) in cells.enumerated() where !used.contains(Self.place(lineIndex, cellIndex)) {
                if firstLabel == nil, Self.label(cell.words) != nil { firstLabel = lineIndex }
                read(cell.words, line: lineIndex, cellIndex: cellIndex, in: layout, used: &used, sections: &sections)
            }
        }
        // The foot: the page's last 70 points (an A4 page's, or the page's own where words go lower), where a footer stands.
        let foot = max(842, layout.bands.map(\.bottom).max() ?? 0) - 70
        for (index, cells) in layout.lines.enumerated() where index < (firstLabel ?? 0) || layout.bands[index].top > foot {
            headAndFootPostcodes.formUnion(cells.flatMap { TextPatterns.postcodes(in: $0.text) })
        }
        // Phones above the patient's first label (the letterhead's, the window's) and at the foot are not the patient's.
        let firstSpecific = specific.map(\.line).min() ?? 0
        for (index, cells) in layout.lines.enumerated() where index < firstSpecific || layout.bands[index].top > foot {
            // A phone has eleven digits (ten or more written): most cells have fewer, and are not searched.
            for cell in cells where cell.words.reduce(0, { $0 + $1.text.utf8.count(where: TextPatterns.isDigit) }) >= 10 {
                var rest = Substring(cell.text)
                while let (phone, after) = LetterIdentifiers.phone(in: rest) {
                    headAndFootPhones.insert(phone.filter(\.isNumber))
                    rest = after
                }
            }
        }
        keepGenericBesideSpecific()
        otherNames = (others + gp.names).compactMap(Self.readName)
        patientNames = readPatientNames()
        patientName = readPatientName()
        gpEntry = readGP()
    }

    /// Drops the patient's generic fields (a telephone, an address, a postcode) that stand
    /// nowhere near a label of the patient's own (a letterhead's `Tel:` is the hospital's).
    private mutating func keepGenericBesideSpecific() {
        // The patient's labels and the generic ones joined to them: rows no more than five lines apart, in one column; and
        // an address or a postcode in a form's row of labels beside one of the patient's (`DOB  Hospital Number  Home address`).
        var joined = specific
        var pending = generic
        var grew = true
        while grew {
            grew = false
            pending.removeAll { field in
                guard joined.contains(where: { abs($0.line - field.line) <= 5 && abs($0.x - field.x) <= 60
                    || $0.line == field.line && [.address, .postcode].contains(field.field) }) else { return false }
                joined.append((field.line, field.x))
                grew = true
                return true
            }
        }
        let far = pending
        for field in far {
            switch field.field {
            case .phone: patient.phones.removeAll { [$0] == field.value }
            case .address: patient.addresses.removeAll { $0 == field.value }
            case .postcode: patient.postcodes.removeAll { [$0] == field.value }
            case .name: patient.names.removeAll { [$0] == field.value }
            default: break
            }
        }
    }

    /// A cell's place on the page as one number (its line's and its own), for the set of cells read.
    static func place(_ line: Int, _ cell: Int) -> Int { line << 16 | cell }

    /// True when `cell` starts with a label.
    static func isLabel(_ cell: PageLayout.Cell) -> Bool { label(cell.words) != nil }

    /// The field a label names, or nil.
    static func label(_ words: [PlacedWord]) -> (field: LabelLexicon.Field, count: Int, colon: Bool)? {
        LabelLexicon.matches(words.map(\.text)).first
    }

    private static func isSection(_ field: LabelLexicon.Field) -> Party? {
        switch field {
        case .patientSection: .patient
        case .gpSection, .gp: .gp
        case .otherSection, .otherPerson: .other
        case .patientName: .patient
        default: nil
        }
    }

    /// Reads the labels of the words of one cell (or of what is left of one after an earlier label's value).
    private mutating func read(_ words: [PlacedWord], line: Int, cellIndex: Int, in layout: PageLayout, used: inout Set<Int>,
                               sections: inout [Section]) {
        let matches = LabelLexicon.matches(words.map(\.text))
        guard let best = matches.first else {
            // A short line that goes on from the line before (`6887, K number : K9523845`): a label after a comma starts a
            // field (searched for in short cells with a comma alone: a letter's prose is neither).
            guard words.count <= 16, words.contains(where: { $0.text.hasSuffix(",") }) else { return }
            let rest = Self.untilNextLabel(words).rest
            if !rest.isEmpty, words[words.count - rest.count - 1].text.hasSuffix(",") {
                read(rest, line: line, cellIndex: cellIndex, in: layout, used: &used, sections: &sections)
            }
            return
        }
        used.insert(Self.place(line, cellIndex))
        let (value, rest) = Self.untilNextLabel(Array(words[best.count...]))
        let cells = layout.lines[line]
        let height = layout.bands[line].height
        var valueLines: [[PlacedWord]] = []
        var valueX = value.first?.x0
        var valueLine = line
        if !value.isEmpty {
            valueLines.append(value)
        } else if rest.isEmpty, let end = words.last?.x1,
                  let rightIndex = cells.indices.first(where: { cells[$0].x0 > end && !used.contains(Self.place(line, $0)) }),
                  Self.label(cells[rightIndex].words) == nil {
            valueLines.append(cells[rightIndex].words)
            used.insert(Self.place(line, rightIndex))
            valueX = cells[rightIndex].x0
        }
        // A heading: no value beside it, and a label (or nothing) under it.
        if valueLines.isEmpty, rest.isEmpty {
            let below = Self.cellBelow(words, line: line, in: layout, used: used)
            let belowIsLabel = below.map { Self.label(layout.lines[$0.line][$0.cell].words) != nil } ?? true
            let heading = belowIsLabel ? matches.lazy.compactMap({ Self.isSection($0.field) }).first
                : [.patientSection, .gpSection, .otherSection].contains(best.field) ? Self.isSection(best.field) : nil
            if let party = heading {
                let right = cells.first { $0.x0 > (words.last?.x1 ?? 0) + 2 * height }
                sections.append(Section(party: party, line: line, x0: words[0].x0 - height, x1: right?.x0 ?? .infinity))
                return
            }
            // A label above its value (a form's box).
            if let below, !belowIsLabel {
                valueLines.append(layout.lines[below.line][below.cell].words)
                used.insert(Self.place(below.line, below.cell))
                valueX = layout.lines[below.line][below.cell].x0
                valueLine = below.line
            }
        }
        record(best.field, valueLines, valueX: valueX, valueLine: valueLine, label: words, line: line, in: layout, used: &used, sections: sections)
        if !rest.isEmpty {
            read(rest, line: line, cellIndex: cellIndex, in: layout, used: &used, sections: &sections)
        }
    }

    /// `words` up to a second label with its colon in the same cell (`DOB: 12/03/1945  NHS No: 943 476 5919`), or one of the
    /// patient's numbers after a comma, and that label on.
    private static func untilNextLabel(_ words: [PlacedWord]) -> (value: [PlacedWord], rest: [PlacedWord]) {
        guard words.count >= 2 else { return (words, []) }
        // A label's value is a few words: a cell of thousands (a damaged scan's) is searched in its first 40. The next label
        // is one with its colon, or one of the patient's numbers after a comma (`Re: O'NEILL, Ruth (Ms), Date of birth 21/05/1956`).
        for start in 1..<min(words.count, 40) {
            if let next = label(Array(words[start..<min(words.count, start + 8)])),
               next.colon || words[start - 1].text.hasSuffix(",") && [.dateOfBirth, .nhsNumber, .hospitalNumber].contains(next.field) {
                return (Array(words[..<start]), Array(words[start...]))
            }
        }
        return (words, [])
    }

    /// Takes the value of a `field` label (`label`, on `line`): its lines as found, and those that
    /// go on from them (a wrapped name, an address's lines, a `Re:` line's address), for whoever
    /// the field is of.
    private mutating func record(_ field: LabelLexicon.Field, _ found: [[PlacedWord]], valueX: Double?, valueLine: Int, label words: [PlacedWord],
                                 line: Int, in layout: PageLayout, used: inout Set<Int>, sections: [Section]) {
        var valueLines = found
        if let x = valueX, !valueLines.isEmpty, [.patientName, .name, .surname, .forenames].contains(field) {
            // A name wrapped in a narrow column (`FATIMA ELLIS-` / `MORGAN`): the next line, alone under it.
            valueLines += Self.wrappedName(after: valueLine, valueX: x, labelX: words[0].x0, in: layout, used: &used)
        }
        if field == .patientName, LabelLexicon.key(words[0].text) == "re", let address = Self.addressUnderReLine(line, x: words[0].x0, in: layout, used: &used) {
            // `Re: SMITH, Jane, DOB …` with the address on a line of its own under it (or under its numbers' line).
            patient.addresses.append([address])
            specific.append((line, words[0].x0))
        }
        if [.address, .gp, .practice].contains(field), let x = valueX, !valueLines.isEmpty {
            valueLines += Self.continuation(from: valueLine, valueX: x, labelX: words[0].x0, field: field, in: layout, used: &used,
                                            stopAtPostcode: valueLines.last.map { TextPatterns.firstPostcode(in: $0.map(\.text).joined(separator: " ")) != nil } ?? false)
        }
        if [.address, .gp, .practice].contains(field) { valueLines = Self.unwrapped(valueLines) }
        var texts = valueLines.map { $0.map(\.text).joined(separator: " ") }
        if [.patientName, .name, .surname, .forenames].contains(field), texts.count > 1 {
            texts = [texts.dropFirst().reduce(texts[0]) { $0.hasSuffix("-") ? $0 + $1 : $0 + " " + $1 }]
        }
        texts = texts.map(Self.trimmed).filter { !$0.isEmpty }
        let party = Self.party(at: line, x: words[0].x0, sections: sections)
        if party == .patient {
            switch field {
            case .phone, .address, .postcode, .name:
                generic.append((field, line, words[0].x0, field == .address ? texts : Array(texts.prefix(1))))
            case .patientName, .dateOfBirth, .hospitalNumber, .nhsNumber, .surname, .forenames: specific.append((line, words[0].x0))
            default: break
            }
        }
        assign(field, texts, party: party)
    }

    /// The cell under `words` on the next line or the one after, starting near where they start.
    private static func cellBelow(_ words: [PlacedWord], line: Int, in layout: PageLayout, used: Set<Int>) -> (line: Int, cell: Int)? {
        let height = layout.bands[line].height
        for next in (line + 1)..<min(layout.lines.count, line + 3) where layout.gap(from: line, to: next) <= 1.6 {
            if let index = layout.lines[next].indices.first(where: { index in
                let cell = layout.lines[next][index]
                return !used.contains(Self.place(next, index)) && abs(cell.x0 - words[0].x0) <= 1.5 * height
            }) {
                return (next, index)
            }
        }
        return nil
    }

    /// The address a `Re:` line's patient lives at: the first of the next three lines, starting
    /// where the `Re:` starts, that is no label and holds a postcode.
    private static func addressUnderReLine(_ line: Int, x: Double, in layout: PageLayout, used: inout Set<Int>) -> String? {
        var last = line
        for next in (line + 1)..<min(layout.lines.count, line + 4) where layout.gap(from: last, to: next) <= 1.0 {
            guard let first = layout.lines[next].first, abs(first.x0 - x) <= layout.bands[line].height else { return nil }
            last = next
            // A label's line, or the end of the `Re:` line's numbers wrapped onto a line of its own (`K8028755`), goes before the address.
            if label(first.words) != nil || layout.lines[next].count == 1 && TextPatterns.firstPostcode(in: first.text) == nil
                && (first.words.count <= 3 && first.text.contains(where: \.isNumber) || !untilNextLabel(first.words).rest.isEmpty) { continue }
            guard layout.lines[next].count == 1, let (_, before) = TextPatterns.lastPostcode(in: first.text), !FactCheck.isSentence(first.text),
                  FactCheck.isAddressLine(String(before).trimming(" ,")) else { return nil }
            used.insert(Self.place(next, 0))
            return first.text
        }
        return nil
    }

    private static func party(at line: Int, x: Double, sections: [Section]) -> Party {
        sections.last { $0.line < line && x >= $0.x0 && x < $0.x1 }?.party ?? .patient
    }

    /// A value without the punctuation around it; a word broken at its end (`ELLIS-`) is kept broken, so that it reads as no whole name.
    private static func trimmed(_ text: String) -> String {
        let inner = text.trimming(" ,;:\t")
        return inner.hasSuffix("-") && inner.dropLast().last?.isLetter == true ? inner
            : inner.trimming(" ,;:-–\t")
    }

    private mutating func assign(_ field: LabelLexicon.Field, _ lines: [String], party: Party) {
        guard let first = lines.first else { return }
        switch (field, party) {
        case (.patientName, _), (.name, .patient):
            patient.names.append(first)
            patient.labels += 1
        case (.name, .gp), (.gp, _):
            gp.names.append(first)
            if lines.count > 1 { gp.practice.append(Array(lines.dropFirst())) }
            otherPostcodes.formUnion(lines.flatMap { TextPatterns.postcodes(in: $0) })
        case (.practice, .gp), (.practice, .patient):
            gp.practice.append(lines)
            otherPostcodes.formUnion(lines.flatMap { TextPatterns.postcodes(in: $0) })
        case (.name, .other), (.otherPerson, _):
            others.append(first)
            otherPostcodes.formUnion(lines.flatMap { TextPatterns.postcodes(in: $0) })
        case (.address, .gp), (.postcode, .gp):
            gp.addresses.append(lines)
            otherPostcodes.formUnion(lines.flatMap { TextPatterns.postcodes(in: $0) })
        case (.address, .other), (.postcode, .other), (.practice, .other), (.phone, .other):
            otherPostcodes.formUnion(lines.flatMap { TextPatterns.postcodes(in: $0) })
        case (.surname, .patient):
            patient.surname.append(first)
        case (.forenames, .patient):
            patient.forenames.append(first)
        case (.title, .patient):
            patient.titles.append(first)
        case (.dateOfBirth, .patient):
            patient.datesOfBirth.append(first)
            patient.labels += 1
        case (.hospitalNumber, .patient):
            patient.hospitalNumbers.append(first)
            patient.labels += 1
        case (.nhsNumber, .patient):
            patient.nhsNumbers.append(lines.joined(separator: " "))
            patient.labels += 1
        case (.address, .patient):
            patient.addresses.append(lines)
        case (.postcode, .patient):
            patient.postcodes.append(first)
        case (.phone, .patient):
            patient.phones.append(first)
        case (.letterField, _):
            if let date = LetterIdentifiers.date(atStartOf: Substring(first)) { letterDates.append(date) }
        default:
            break
        }
    }
}

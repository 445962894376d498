import Foundation

/// A page read as UK clinical correspondence is laid out (lh/Yiana docs/LETTER-MODULE-SPEC.md
/// §1, §6.2): a sender block or letterhead, the addressee in the envelope window, a `Re:` line
/// or a labelled block naming the patient, the salutation ("Dear Mrs Smith,") or the copy's
/// cover line ("Please see below a copy of a letter I sent to Mrs Smith today."), the body, the
/// sign-off and the signer, `cc:` lines, a footer. Each person in their role: the patient is the
/// `Re:` person, else the addressee of a letter to the patient; the signer, the sender and the
/// letterhead are never the patient, nor their addresses the patient's; the GP is a `cc:` with a
/// practice or the addressee of a letter to a surgery.
struct LetterPage: Sendable {
    /// The patient named by a `Re:` line or a labelled block.
    var block: LetterPatientBlock?
    /// The surname (and title) the salutation or cover line speaks to.
    var salutation: (title: String?, surname: String)?
    /// The addressee in the envelope window.
    var addressee: LetterAddressee?
    /// A practice's window under the patient's details, the salutation speaking to it: the GP.
    var practiceWindow: LetterAddressee?
    /// The GP who signed a letter from their practice (a referral to a hospital): the patient's GP.
    var senderGP: AddressPage.GP?
    var copies: [LetterCopy] = []
    /// Names that are the letter's signer, sender or letterhead: never its patient.
    var notPatient: [String] = []
    /// Postcodes of the letterhead, the footer and the copies: never the patient's.
    var notPatientPostcodes: Set<String> = []
    /// A header says this page goes on from an earlier one (`Page 2`).
    var isContinuation = false
    /// The letter is signed on this page (its signer or its `cc:` lines are here).
    var isSignedOff = false
    /// A letter begins on this page: a `Re:` line or labelled block, or a salutation.
    var startsLetter = false
    /// A salutation ("Dear …", "Dear Colleague") or the app's cover line: the letter speaks to someone.
    var hasSalutation = false
    /// Anything of a letter at all: a salutation, a cover line, a sign-off, `cc:` lines, a `Re:` line.
    var isLetter = false

    /// `Re:`, `RE.`, `Re - …`, `Re Mrs …` (not `RE-ADMISSION`, `Regards`, `Referral`).
    private static let reAnchor = Pattern(#"^(?:Re|RE|re)(?:\s*[:.]\s*|\s+[-–]\s+|\s+(?=[A-Z]))"#)
    private static let labelAnchor = Pattern(#"^(?:Patient(?:'s)?(?:\s+name)?|Name)\s*:"#, [.caseInsensitive])
    private static let dear = Pattern(#"^Dear\s+(.{2,60}?)\s*[,.:;]?$"#)
    private static let cover = Pattern(#"(?:copy of (?:a|the|my) letter|letter I (?:sent|have sent|wrote)) (?:I sent |sent )?to\s+(.{2,60}?)\s+today"#, [.caseInsensitive])
    private static let closing = Pattern(#"^(?:Yours\s+(?:sincerely|faithfully|truly|ever)|(?:With\s+)?(?:kind|best|warm)\s+(?:regards|wishes)|Regards|Many thanks)\b"#, [.caseInsensitive])
    /// `cc:`, `Cc:`, `CC`, `c.c.`, `Copy to:`, and `Ce:` as OCR reads a `Cc:`.
    private static let copyLine = Pattern(#"^(?:cc\b\.?|c\.c\.|ce(?=\s*:)|copy(?:\s+to)?(?=\s*:)|copies\s+to\b)\s*:?\s*"#, [.caseInsensitive])
    private static let pageHeader = Pattern(#"(?:^|\s)Page\s+([2-9]|\d\d)(?:\s+of\s+\d+)?\s*$"#)
    /// The first letters of a sign-off: Yours, With, Kind, Best, Warm, Regards, Many.
    private static let closingInitials: Set<UInt8> = Set("YyWwKkBbRrMm".utf8)
    /// True when `line` names a role or a place of work (`Consultant Ophthalmologist`, `East Surrey Hospital`).
    static func namesRole(_ line: String) -> Bool {
        line.hasBytes("consultant", ignoringCase: true) || line.hasBytes("registrar", ignoringCase: true) || line.hasBytes("surgeon", ignoringCase: true)
            || line.hasBytes("physician", ignoringCase: true) || line.hasBytes("specialist", ignoringCase: true) || line.hasBytes("professor", ignoringCase: true)
            || line.hasBytes("secretary", ignoringCase: true) || line.hasBytes("nurse", ignoringCase: true) || line.hasBytes("director", ignoringCase: true)
            || line.hasBytes("clinic", ignoringCase: true) || line.hasBytes("department", ignoringCase: true) || line.hasBytes("hospital", ignoringCase: true)
            || line.hasBytes("trust", ignoringCase: true) || line.hasBytes("ologist", ignoringCase: true)
    }

    init(_ page: PageLines, sectors: PostcodeSectors) {
        let lines = page.lines
        var salutationAt: Int?
        var closingAt: Int?
        var firstCopyAt: Int?
        for (index, line) in lines.enumerated() where !line.isEmpty && line.utf8.count <= PageLines.longLine {
            // Each pattern only where the line's first letter or a word of it says it may match:
            // most lines of most pages are none of these.
            let first = line.utf8.first ?? 0
            if salutationAt == nil, first == 0x44, line.hasPrefix("Dear"), let match = Self.dear.first(in: line) {
                salutationAt = index  // "Dear Colleague" too: the body starts here
                salutation = Self.speaksTo(match[1])
            } else if salutation == nil, line.hasBytes("letter") || line.hasBytes("today"),
                      let match = Self.cover.first(in: line) ?? (index + 1 < lines.count ? Self.cover.first(in: line + " " + lines[index + 1]) : nil),
                      let who = Self.speaksTo(match[1]) {
                salutationAt = index
                salutation = who
            }
            if closingAt == nil, Self.closingInitials.contains(first), Self.closing.first(in: line) != nil { closingAt = index }
            if first == 0x43 || first == 0x63, Self.copyLine.first(in: line) != nil {
                firstCopyAt = firstCopyAt ?? index
                copies += Self.copy(at: index, in: lines).map { [$0] } ?? []
            }
            if index < 4 || index >= lines.count - 3, line.hasBytes("Page"), Self.pageHeader.first(in: line) != nil { isContinuation = true }
        }
        // The Re: line or labelled block, before the body.
        let bodyStart = salutationAt ?? lines.firstIndex(where: Self.isProse) ?? lines.count
        let searchEnd = min(lines.count, bodyStart + 12)
        var blockStart: Int?
        var tries = 0  // a page of a thousand labels is no letter's: a few are read, in its first lines
        for index in 0..<min(searchEnd, 150) where !lines[index].isEmpty && lines[index].count <= PageLines.longLine && tries < 6 {
            let line = lines[index]
            let first = line.utf8.first ?? 0
            if first == 0x52 || first == 0x72, let match = Self.reAnchor.first(in: line) {
                tries += 1
                let text = ([String(line.dropFirst(match[0].count))] + Self.blockLines(after: index, in: lines)).joined(separator: "\n")
                if let found = LetterPatientBlock(text, anchorIsLabel: false, sectors: sectors), identifies(found) { block = found; blockStart = index; break }
            } else if first == 0x50 || first == 0x70 || first == 0x4E || first == 0x6E, Self.labelAnchor.first(in: line) != nil {
                tries += 1
                let text = ([line] + Self.blockLines(after: index, in: lines)).joined(separator: "\n")
                if let found = LetterPatientBlock(text, anchorIsLabel: true, sectors: sectors), identifies(found) { block = found; blockStart = index; break }
            }
        }
        startsLetter = block != nil || salutationAt != nil
        hasSalutation = salutationAt != nil
        isLetter = block != nil || salutationAt != nil || closingAt != nil || !copies.isEmpty || isContinuation
        guard isLetter else { return }
        isSignedOff = closingAt != nil || firstCopyAt != nil
        addressee = LetterAddressee.find(in: lines[..<min(blockStart ?? bodyStart, bodyStart, lines.count)], salutation: salutation)
        if addressee == nil, let blockStart, let salutationAt, blockStart < salutationAt, salutation?.title?.lowercased().hasPrefix("dr") == true {
            // The patient's details above the window (a header in two columns): a practice's window under them, spoken to
            // by the salutation, is the GP's.
            practiceWindow = LetterAddressee.find(in: lines[(blockStart + 1)..<salutationAt], salutation: salutation)
                .flatMap { $0.isPractice && LetterNames.surname($0.name) == salutation?.surname ? $0 : nil }
        }
        findOthers(lines, headEnd: min(blockStart ?? bodyStart, bodyStart), letterheadEnd: [blockStart, addressee?.at].compactMap { $0 }.min(),
                   closingAt: closingAt, firstCopyAt: firstCopyAt)
    }

    /// True when a block names a person, not a subject (`Re: Annual Review`): a title before the
    /// name, or a date of birth, a hospital or NHS number, an address, or the salutation's surname.
    private func identifies(_ block: LetterPatientBlock) -> Bool {
        block.title != nil || block.dateOfBirth != nil || block.mrn != nil || block.nhsNumber != nil || block.address != nil
            || (block.name.map(LetterNames.surname) == salutation?.surname && salutation != nil)
    }

    /// "Mrs Smith", "Dr Patel", "Jane" → the title and surname spoken to.
    private static func speaksTo(_ raw: String) -> (title: String?, surname: String)? {
        let words = raw.split(separator: " ").map { $0.trimming(",.;:") }.filter { !$0.isEmpty }
        guard let last = words.last, words.count <= 5, last.first?.isLetter == true, !["sir", "madam", "colleague", "colleagues", "all"].contains(last.lowercased()) else { return nil }
        let title = words.first.flatMap { PeopleText.titles.contains($0.lowercased()) ? $0 : nil }
        return (title, LetterNames.surname(last))
    }

    /// The lines that go on from a `Re:` or label line: up to the salutation, the body's prose,
    /// a `cc:` or sign-off, at most 16.
    private static func blockLines(after index: Int, in lines: [String]) -> [String] {
        var taken: [String] = []
        for line in lines[(index + 1)...].prefix(24) where !line.isEmpty {
            if line.hasPrefix("Dear ") || cover.first(in: line) != nil || closing.first(in: line) != nil || copyLine.first(in: line) != nil
                || isProse(line) || line.count > PageLines.longLine || taken.count >= 16 { break }
            taken.append(line)
        }
        return taken
    }

    /// A line of the body: six or more words, at least half of them lowercase, and no label.
    static func isProse(_ line: String) -> Bool {
        var words = 0
        var lower = 0
        var atWordStart = true
        for byte in line.utf8 {
            if byte == 0x3A { return false }  // a label's colon
            if byte == 0x20 || byte == 0x09 {
                atWordStart = true
            } else if atWordStart {
                atWordStart = false
                words += 1
                if byte >= 0x61 && byte <= 0x7A { lower += 1 }
            }
        }
        return words >= 6 && lower * 2 >= words
    }

    /// True for a line of a hospital's footer (`East Surrey Hospital, Canada Avenue … · Switchboard …`),
    /// where a copy's line whose postcode OCR misread must not run on to.
    private static func isFooterLine(_ line: String) -> Bool {
        line.hasBytes("hospital", ignoringCase: true) || line.hasBytes("trust", ignoringCase: true) || line.hasBytes("switchboard", ignoringCase: true)
            || line.hasBytes("\u{B7}")
    }

    /// A `cc:` line and the lines that go on from it, until its postcode.
    private static func copy(at index: Int, in lines: [String]) -> LetterCopy? {
        guard let match = copyLine.first(in: lines[index]) else { return nil }
        var text = String(lines[index].dropFirst(match[0].count))
        var next = index + 1
        while TextPatterns.postcodes(in: text).isEmpty, next < lines.count, next <= index + 3, !lines[next].isEmpty,
              copyLine.first(in: lines[next]) == nil, !lines[next].contains("|"), !Self.isFooterLine(lines[next]) {
            text += (text.hasSuffix("-") ? "" : " ") + lines[next]  // `Aston-on-` / `Trent`
            next += 1
        }
        return LetterCopy(text)
    }

    /// The GP who signed: the signer's name over `General Practitioner` (or `GP`), their practice
    /// the line under it or the letterhead's, its address the letterhead's lines under the
    /// practice's name down to its postcode.
    private static func sendingGP(signed: [String], head: ArraySlice<String>) -> AddressPage.GP? {
        guard signed.count >= 2, let person = LetterNames.person(Substring(signed[0])), person.title != nil,
              ["general practitioner", "gp", "gp partner", "salaried gp", "gp principal"].contains(signed[1].lowercased().trimmingCharacters(in: .punctuationCharacters))
        else { return nil }
        let isPractice = { (line: String) in LetterCopy.namesPractice(line) && !line.contains(where: \.isNumber) }
        let practice = signed.count > 2 && isPractice(signed[2]) ? signed[2] : head.first(where: isPractice)
        var address: [String] = []
        var postcode: String?
        if let practice, let at = head.firstIndex(of: practice) {
            for line in head[(at + 1)...].prefix(6) where !line.isEmpty {
                if let (found, before) = TextPatterns.lastPostcode(in: line) {
                    postcode = found
                    let rest = before.trimming(" ,")
                    if !rest.isEmpty { address.append(rest) }
                    break
                }
                address.append(line)
            }
        }
        return AddressPage.GP(name: "\(person.title ?? "") \(person.name)".trimmingCharacters(in: .whitespaces), practice: practice,
                              address: postcode == nil ? nil : address.joined(separator: ", ").nilIfEmpty, postcode: postcode)
    }

    /// The signer, the sender block and the letterhead (names never the patient), and the
    /// postcodes that are not the patient's.
    private mutating func findOthers(_ lines: [String], headEnd: Int, letterheadEnd: Int?, closingAt: Int?, firstCopyAt: Int?) {
        // The signer: the name lines after the sign-off, or the line before the first cc:.
        var signerLines: [String] = []
        if let closingAt {
            let signed = Array(lines[(closingAt + 1)...].filter { !$0.isEmpty }.prefix(3))
            signerLines += signed.prefix(2)
            senderGP = Self.sendingGP(signed: signed, head: lines[..<min(headEnd, lines.count)])
        }
        if let firstCopyAt, let before = lines[..<firstCopyAt].last(where: { !$0.isEmpty }) { signerLines.append(before) }
        // The sender block and letterhead: titled names and names beside a role, before the addressee and Re:.
        let head = lines[..<min(headEnd, lines.count)]
        let addresseeLines = Set(addressee?.lines ?? [])
        for (index, line) in head.enumerated() where !line.isEmpty {
            let nextIsRole = index + 1 < head.count && Self.namesRole(head[head.startIndex + index + 1])
            if let first = line.utf8.first, first >= 0x41, first <= 0x5A, nextIsRole || line.utf8.count > 20,
               LetterNames.person(Substring(line)).map({ _ in nextIsRole || line.split(separator: " ").count > 4 }) == true {
                signerLines.append(line)
            }
            if !addresseeLines.contains(line), Self.namesRole(line) || line.hasBytes("Tel") {
                notPatientPostcodes.formUnion(TextPatterns.postcodes(in: line))
            }
        }
        notPatient = signerLines.compactMap { LetterNames.person(Substring($0))?.name }
        // Postcodes in the letterhead (above the addressee or Re:, outside the addressee's block), the footer and the copies.
        // The letterhead: above the addressee's block or the Re: line (when the page has either).
        for line in lines[..<min(letterheadEnd ?? 0, lines.count)] where !addresseeLines.contains(line) {
            notPatientPostcodes.formUnion(TextPatterns.postcodes(in: line))
        }
        // A postcode under a hospital's, a trust's or a department's name, wherever OCR put it.
        for (index, line) in lines.enumerated() where !line.isEmpty && !addresseeLines.contains(line) && !Self.isProse(line) {
            let postcodes = TextPatterns.postcodes(in: line)
            guard !postcodes.isEmpty else { continue }
            let above = lines[max(0, index - 6)...index].filter { !$0.isEmpty }
            if above.contains(where: { above in PeopleText.names(organisationIn: above) && !Self.isProse(above) }) { notPatientPostcodes.formUnion(postcodes) }
        }
        for line in lines.suffix(from: min(lines.count, max(firstCopyAt ?? closingAt ?? lines.count, 0))) where line.hasBytes("|") || line.hasBytes("Tel") {
            notPatientPostcodes.formUnion(TextPatterns.postcodes(in: line))
        }
        for copy in copies where (block?.name).map({ LetterNames.same($0, copy.name) }) != true {
            if let postcode = copy.postcode { notPatientPostcodes.insert(postcode) }
        }
    }
}

extension LetterPage {
    /// The page's people: its patient first (with the GP in their `gp` object), then the other
    /// recipients of its copies (opticians, specialists). Empty when the letter does not say
    /// who its patient is: no guess is written as a fact.
    /// The patient's GP as the letter names them: a copy to a practice, else the addressee at one.
    var gp: AddressPage.GP? {
        if let copy = copies.first(where: { $0.kind == .gp }) { return copy.gp }
        guard let addressee = addressee ?? practiceWindow, addressee.isPractice else { return senderGP }
        let body = addressee.lines.dropLast()
        return AddressPage.GP(name: addressee.displayName, practice: body.first,
                              address: body.dropFirst().joined(separator: ", ").nilIfEmpty, postcode: addressee.postcode)
    }

    func entries(_ page: PageLines, number: Int, sectors: PostcodeSectors) -> [AddressPage] {
        let gp = gp
        var patient: AddressPage?
        if let block, let name = block.name, !notPatient.contains(where: { LetterNames.same($0, name) }) {
            var address = block.address
            if address == nil, let addressee, !addressee.isPractice, LetterNames.same(addressee.name, name) {
                address = windowAddress(addressee, sectors: sectors)
            }
            if address == nil, let copy = copies.first(where: { LetterNames.same($0.name, name) }), let postcode = copy.postcode {
                address = OneLineAddress.split(Substring(copy.address ?? ""), postcode: postcode, sectors: sectors)
            }
            patient = AddressPage(page: number, method: block.isLabelled ? "form" : "letter", confidence: block.isLabelled ? 0.8 : 0.85,
                                  name: name, dateOfBirth: block.dateOfBirth,
                                  address: address ?? AddressPage.Address(), phones: block.phones, mrn: block.mrn, gp: gp)
            patient?.patient?.nhsNumber = block.nhsNumber
        } else if let addressee, !addressee.isPractice, let salutation, LetterNames.surname(addressee.name) == salutation.surname,
                  !notPatient.contains(where: { LetterNames.same($0, addressee.name) }) {
            // A letter to the patient: the window's person, their numbers from the page's labels.
            let labels = LetterPatientBlock(page.lines.filter { !$0.isEmpty && !LetterPage.isProse($0) }.prefix(60).joined(separator: "\n"),
                                            anchorIsLabel: true, sectors: sectors, requireName: false)
            patient = AddressPage(page: number, method: "letter", confidence: 0.75, name: addressee.name, dateOfBirth: labels?.dateOfBirth,
                                  address: windowAddress(addressee, sectors: sectors), phones: labels?.phones, mrn: labels?.mrn, gp: gp)
            patient?.patient?.nhsNumber = labels?.nhsNumber ?? LetterIdentifiers.nhsNumbers(in: page.text).first
        }
        let patientName = patient?.patient?.fullName
        let others = copies.filter { copy in patientName.map { !LetterNames.same($0, copy.name) } ?? true }.compactMap { $0.entry(page: number, sectors: sectors) }
        return (patient.map { [$0] } ?? []) + others
    }

    /// True when an entry the app's extractors found on this page names no one the letter
    /// says is someone else (its signer, sender, GP or another recipient), at no address of theirs.
    /// A titled name anywhere in a letter that speaks to someone (the app's last rule) is whoever
    /// its body mentions; a "name" with a document's words is its heading; an "address" running
    /// through the salutation or the sign-off is the letter's own lines.
    func allows(_ entry: AddressPage) -> Bool {
        if hasSalutation, entry.extraction?.method == "unstructured" { return false }
        if let name = entry.patient?.fullName {
            if notPatient.contains(where: { LetterNames.same($0, name) }) || copies.contains(where: { LetterNames.same($0.name, name) }) { return false }
            if let addressee, addressee.isPractice, LetterNames.same(addressee.name, name) { return false }
            if name.split(separator: " ").contains(where: { Self.documentWords.contains($0.lowercased()) }) { return false }
        }
        let parts = [entry.address?.line1, entry.address?.line2, entry.address?.city].compactMap { $0 }
        if parts.contains(where: { $0.hasPrefix("Dear ") || Self.closing.first(in: $0) != nil || Self.isProse($0) }) { return false }
        if let postcode = entry.address?.postcode, notPatientPostcodes.contains(postcode) { return false }
        return true
    }

    /// Words of a letter's heading (`RE-ADMISSION SUMMARY`, `Clinic Report`), never of a name.
    private static let documentWords: Set<String> = ["summary", "report", "letter", "referral", "admission", "re-admission", "discharge",
                                                     "review", "appointment", "results", "correspondence", "outpatient", "confidential"]

    private func windowAddress(_ addressee: LetterAddressee, sectors: PostcodeSectors) -> AddressPage.Address {
        var address = AddressPage.Address(lines: Array(addressee.lines.dropLast()), postcodeLine: addressee.lines.last, postcode: addressee.postcode,
                                          sectors: sectors)
        if address.line1.map({ !$0.contains(where: \.isLowercase) }) == true {
            address.line1 = address.line1.map(LetterNames.titleCased)
            address.line2 = address.line2.map(LetterNames.titleCased)
            address.city = address.city.map(LetterNames.titleCased)
        }
        address.fill(from: sectors)
        return address
    }
}

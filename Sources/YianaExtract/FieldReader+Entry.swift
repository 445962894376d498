import Foundation

extension FieldReader {
    /// The patient the labels name, every value checked: the name from its label or from the
    /// `Surname` / `Forename(s)` / `Title` fields, in any form letters write it; nil without a
    /// name that reads as one, when two labels give two names, or when the labels name no date
    /// of birth, hospital number or NHS number beside it (thin evidence is no patient).
    /// ``identifiers(check:)`` gives the identifiers alone.
    func patientEntry(page: Int, check: FactCheck, ids: Identifiers) -> AddressPage? {
        guard let name = patientName, !isSomeoneElse(name) else { return nil }
        guard ids.dateOfBirth != nil || ids.nhsNumber != nil || ids.mrn != nil else { return nil }
        var entry = AddressPage(page: page, method: "fields", confidence: 0.9, name: name, dateOfBirth: ids.dateOfBirth,
                                address: address(check: check) ?? AddressPage.Address(), phones: ids.phones, mrn: ids.mrn, gp: gpEntry)
        entry.patient?.nhsNumber = ids.nhsNumber
        if entry.address == AddressPage.Address() { entry.address = nil }
        return entry
    }

    /// Every name the patient's labels give that reads as one (a `Name:` label's, the
    /// `Surname` / `Forename(s)` fields').
    func readPatientNames() -> [String] {
        var candidates = patient.names.compactMap { Self.readName($0) }
        if let surname = Self.one(patient.surname), let forenames = Self.one(patient.forenames) {
            let title = Self.one(patient.titles).map { $0 + " " } ?? ""
            if let person = LetterNames.person(Substring(title + forenames + " " + surname)), FactCheck.isPersonName(person.name) {
                candidates.append(person.name)
            }
        }
        return candidates
    }

    /// The name the patient's labels give, when every one of them reads and they agree.
    func readPatientName() -> String? {
        guard let first = patientNames.first, patientNames.allSatisfy({ LetterNames.same($0, first) }),
              patientNames.count == patient.names.count + (patient.surname.isEmpty ? 0 : 1) else { return nil }
        return first
    }

    /// True when the labels name the patient in a way that does not read or does not agree.
    var namesDisagree: Bool {
        patientName == nil && !(patient.names.isEmpty && patient.surname.isEmpty && patient.forenames.isEmpty)
    }

    /// True when `name` is one of the people the labels say are someone else.
    func isSomeoneElse(_ name: String) -> Bool {
        otherNames.contains { LetterNames.same($0, name) }
    }

    /// The one value of a field, or nil when there is none or two that disagree.
    private static func one(_ values: [String]) -> String? {
        guard let first = values.first, values.allSatisfy({ $0.lowercased() == first.lowercased() }) else { return nil }
        return first
    }

    /// The value all of `values` give, read by `read`: nil when none reads or two disagree.
    private static func agreed(_ values: [String], _ read: (String) -> String?) -> String? {
        let read = values.compactMap(read)
        guard read.count == values.count, let first = read.first, read.allSatisfy({ $0 == first }) else { return nil }
        return first
    }

    /// The patient's date of birth, hospital number, NHS number and phones, each checked.
    typealias Identifiers = (dateOfBirth: String?, mrn: String?, nhsNumber: String?, phones: AddressPage.Phones?)

    func identifiers(check: FactCheck) -> Identifiers {
        // A date the page labels as its own (`Clinic date`, `Date`) is never the patient's date of birth.
        let dob = Self.agreed(patient.datesOfBirth) { value in
            LetterIdentifiers.date(atStartOf: Substring(value)).flatMap { check.isDateOfBirth($0) && !letterDates.contains($0) ? $0 : nil }
        }
        let nhs = Self.agreed(patient.nhsNumbers) { value in LetterIdentifiers.nhsNumber(atStartOf: Substring(value)) }
        let mrn = Self.agreed(patient.hospitalNumbers) { value in
            LetterIdentifiers.hospitalNumber(atStartOf: Substring(value)).flatMap { FactCheck.isHospitalNumber($0, nhs: nhs) ? $0 : nil }
        }
        var phones: AddressPage.Phones?
        for value in patient.phones {
            guard let (number, _) = LetterIdentifiers.phone(in: Substring(value)) else { continue }
            var found = phones ?? AddressPage.Phones()
            if number.hasPrefix("07") { found.mobile = found.mobile ?? number } else if found.home == nil { found.home = number } else { found.work = found.work ?? number }
            phones = found
        }
        return (dob, mrn, nhs, phones)
    }

    /// The patient's address from its labelled lines (and a `Postcode` field), its postcode
    /// checked and never one of the people's who are not the patient.
    func address(check: FactCheck) -> AddressPage.Address? {
        guard var lines = patient.addresses.first, patient.addresses.dropFirst().allSatisfy({ $0 == lines }) else { return nil }
        if let postcode = Self.one(patient.postcodes) { lines.append(postcode) }
        lines = lines.map { $0.trimming(" ,.;") }.filter { !$0.isEmpty }
        // A place's name broken at its hyphen where a column wrapped it (`…, Ashton-in-` / `Makerfield WN4 9WE`) is one word again.
        var index = 0
        while index + 1 < lines.count {
            if lines[index].hasSuffix("-"), lines[index].dropLast().last?.isLetter == true {
                lines[index] += lines.remove(at: index + 1)
            } else {
                index += 1
            }
        }
        // A postcode broken over two lines (`… York YO31` / `8DU`) is one again.
        if lines.count >= 2, let last = lines.last, TextPatterns.lastPostcode(in: last) == nil,
           TextPatterns.lastPostcode(in: lines[lines.count - 2] + " " + last) != nil {
            lines[lines.count - 2] += " " + last
            lines.removeLast()
        }
        guard let lastLine = lines.last, let (postcode, before) = TextPatterns.lastPostcode(in: lastLine),
              check.isPostcode(postcode), !otherPostcodes.contains(postcode) else { return nil }
        var address: AddressPage.Address
        // Its lines, and the parts commas make of them (`116 Kingsway, Nutfield,` / `Keighley BD20 5DD`).
        var parts = lines.flatMap { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }.filter { !$0.isEmpty }
        // A town of the table whose name has a comma or was wrapped (`Longfield, New Ash Green and Hartley`, `Hutton` /
        // `Cranswick`) is one part again, wherever it stands (before a county, beside the postcode).
        if let town = check.sectors.place(of: postcode)?.town, parts.count >= 2 {
            let beside = TextPatterns.townBeside(postcode: postcode, in: parts[parts.count - 1])
            var candidates = Array(parts.dropLast())
            if let beside { candidates.append(beside) }
            let bare = Self.bare(town)
            search: for count in 2...4 where candidates.count >= count {
                for start in stride(from: candidates.count - count, through: max(0, candidates.count - count - 2), by: -1) {
                    let run = candidates[start..<(start + count)].joined(separator: " ")
                    guard Self.bare(run) == bare else { continue }
                    // The page's words, with the commas the table's name has (`Chafford Hundred, West Thurrock and …`).
                    let named = !town.contains(",") ? run : run == run.uppercased() ? town.uppercased() : town
                    candidates.replaceSubrange(start..<(start + count), with: [named])
                    parts = beside == nil ? candidates + [parts[parts.count - 1]] : Array(candidates.dropLast()) + [candidates[candidates.count - 1] + " " + postcode]
                    break search
                }
            }
        }
        if parts.count == 1 {
            address = OneLineAddress.split(before, postcode: postcode, sectors: check.sectors)
        } else {
            var last = parts.removeLast()
            // `…, Oxfordshire OX10 8FN`: a county beside the postcode is the county; the town is the part before it.
            if let beside = TextPatterns.townBeside(postcode: postcode, in: last), check.sectors.counties.contains(beside.lowercased()) {
                parts.append(beside)
                last = postcode
            }
            address = AddressPage.Address(lines: parts, postcodeLine: last, postcode: postcode, sectors: check.sectors)
        }
        address.fill(from: check.sectors)
        return address
    }

    /// A place's name lowercased, without its commas and with single spaces: to compare the page's with the table's.
    private static func bare(_ name: String) -> String {
        name.lowercased().split { $0 == " " || $0 == "," }.joined(separator: " ")
    }

    /// The GP the labels name: their name, practice, address and postcode.
    func readGP() -> AddressPage.GP? {
        guard let raw = Self.one(gp.names), let person = LetterNames.person(Substring(raw.split(separator: ",").first ?? "")) else { return nil }
        let titled = person.title.map { "\($0) \(person.name)" } ?? person.name
        let rest = raw.split(separator: ",").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) }
        let lines = rest + (gp.practice.first ?? []) + (gp.addresses.first ?? [])
        var text = lines.joined(separator: ", ")
        var postcode: String?
        if let (found, before) = TextPatterns.lastPostcode(in: text) {
            postcode = found
            text = String(before)
        }
        let parts = text.split(separator: ",").map { $0.trimming(" ,.") }.filter { !$0.isEmpty }
        let practice = parts.first { !$0.contains(where: \.isNumber) && PeopleText.names(organisationIn: $0) } ?? parts.first
        let address = parts.filter { $0 != practice }.joined(separator: ", ")
        return AddressPage.GP(name: titled, practice: practice, address: address.nilIfEmpty, postcode: postcode)
    }

    /// A name as a label's value gives it (`Mrs Jane Smith`, `SMITH, Jane (Mrs)`, `SMITH Jane`,
    /// `Jane SMITH`), as `Jane Smith`; nil when it does not read as a person's name.
    static func readName(_ raw: String) -> String? {
        guard !raw.hasSuffix("-") else { return nil }  // a name broken at its end and not found whole
        var text = raw
        // A bracketed title (`(Mrs)`) stands before the name.
        var title = ""
        if let open = text.firstIndex(of: "("), let close = text[open...].firstIndex(of: ")") {
            let inside = text[text.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            if PeopleText.titles.contains(inside.lowercased().trimming(".")) { title = inside + " " }
            text.removeSubrange(open...close)
        }
        // The name ends at a number or a label of another field.
        var words: [String] = []
        for word in text.split(separator: " ").map(String.init) {
            if word.contains(where: \.isNumber) || !LabelLexicon.matches([word]).isEmpty && !PeopleText.titles.contains(LabelLexicon.key(word)) { break }
            words.append(word)
        }
        var joined = words.joined(separator: " ").trimming(" ,;")
        if let comma = joined.firstIndex(of: ",") {
            let before = joined[..<comma].trimmingCharacters(in: .whitespaces)
            let after = joined[joined.index(after: comma)...].trimming(" ,")
            guard !after.contains(",") else { return nil }
            // `SMITH, Jane`: a surname before the comma; `Mrs Jane Smith, Reigate`: the name before it.
            let surnameFirst = !before.contains(" ") || !before.contains(where: \.isLowercase)
            joined = surnameFirst && !after.isEmpty ? "\(after) \(before)" : before
        } else {
            // `SMITH Jane`: the one word in capitals among words that are not is the surname.
            let parts = joined.split(separator: " ").map(String.init).filter { !PeopleText.titles.contains(LabelLexicon.key($0)) }
            let capitals = parts.filter { $0.count >= 2 && !$0.contains(where: \.isLowercase) }
            if capitals.count == 1, parts.count >= 2, parts.first == capitals.first {
                joined = (parts.dropFirst() + [capitals[0]]).joined(separator: " ")
                if let leading = joined.split(separator: " ").first, PeopleText.titles.contains(LabelLexicon.key(String(leading))) { title = "" }
            }
            if let first = words.first, PeopleText.titles.contains(LabelLexicon.key(first)), !joined.hasPrefix(first) { title = first + " " }
        }
        guard let person = LetterNames.person(Substring(title + joined)), FactCheck.isPersonName(person.name) else { return nil }
        return person.name
    }
}

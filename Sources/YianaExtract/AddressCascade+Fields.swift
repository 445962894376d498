import Foundation

extension AddressCascade {
    /// A page's entries once its labelled fields have had their say and every value its check:
    /// the patient the labels name (with their date of birth, hospital or NHS number) is the
    /// page's patient; where the letter's reading names someone else, the evidence disagrees
    /// and no patient is written; where it names the same person, or the labels name no one,
    /// the labels' identifiers fill what it lacks, and an identifier two readings give
    /// differently is not written (a date of birth or an NHS number that disagrees: no
    /// patient). Then no value that fails its check is written (`FactCheck`), and no patient
    /// who is someone the page says is someone else (its signer, sender, GP, referrer).
    func reconciled(_ entries: [AddressPage], fields: FieldReader?, letter: LetterPage, check: FactCheck, page: Int) -> [AddressPage] {
        var entries = entries
        var patientIndex = entries.firstIndex { $0.addressType == "patient" }
        var readByLetter = patientIndex.map { entries[$0].extraction?.method == "letter" } ?? false
        if let fields {
            let ids = fields.identifiers(check: check)
            let labelled = fields.patientEntry(page: page, check: check, ids: ids)
            if let index = patientIndex {
                let found = entries[index]
                if let labelled, let name = found.patient?.fullName, let labelledName = labelled.patient?.fullName, !LetterNames.same(name, labelledName) {
                    if found.extraction?.method == "letter" {
                        entries.remove(at: index)  // two readings, two people: write neither
                    } else {
                        entries[index] = labelled  // the app's weaker rules found someone; the labels name the patient
                    }
                } else if labelled == nil, let name = found.patient?.fullName, fields.patientNames.contains(where: { !LetterNames.same(name, $0) }) {
                    entries.remove(at: index)  // the labels name someone else than the one found
                } else if let merged = Self.merge(labelled ?? found, with: labelled == nil ? nil : found, fields: fields,
                                                  ids: fields.namesDisagree ? (nil, nil, nil, nil) : ids, check: check) {
                    entries[index] = merged
                    readByLetter = readByLetter && merged.extraction?.method == "fields"
                } else {
                    entries.remove(at: index)
                }
            } else if let labelled {
                entries.insert(labelled, at: 0)
            }
            // A form whose labels name the patient's own fields, and whose name the labels did not give: what the app's
            // address-block and prose rules make of it is not read from its labels, and is not written.
            // Nor when the labels give the patient's name in ways that do not read or do not agree.
            if let index = entries.firstIndex(where: { $0.addressType == "patient" }), fields.patientName == nil,
               ["label", "unstructured"].contains(entries[index].extraction?.method ?? "") && fields.patient.labels >= 2
                || ["form", "label", "unstructured", "clearwater_form"].contains(entries[index].extraction?.method ?? "") && fields.namesDisagree {
                entries.remove(at: index)
            }
            patientIndex = entries.firstIndex { $0.addressType == "patient" }
        }
        let notPatient = letter.notPatient + (fields.map { $0.others + $0.gp.names } ?? [])
        // A copy to someone of the patient's surname and another first name (`Re: Jaan NOWAK` … `cc: Mrs Joan Nowak`): a
        // misread or another person of the family: the page does not say which, and no patient is written.
        if let index = patientIndex, let name = entries[index].patient?.fullName,
           letter.copies.contains(where: { LetterNames.surname($0.name) == LetterNames.surname(name) && !LetterNames.same($0.name, name) }) {
            entries.remove(at: index)
            patientIndex = nil
        }
        if let index = patientIndex {
            // The letter's reading of its own patient has kept its letterhead's and footer's postcodes out already;
            // a patient read from labels keeps out the postcodes above its labels and at the page's foot.
            var notPatientPostcodes = fields?.otherPostcodes ?? []
            if entries[index].extraction?.method == "fields", !readByLetter { notPatientPostcodes.formUnion(fields?.headAndFootPostcodes ?? []) }
            if let checked = check.checked(entries[index], notPatient: notPatient, notPatientPostcodes: notPatientPostcodes,
                                           notPatientPhones: fields?.headAndFootPhones ?? [], doubtful: fields?.doubtful ?? OCRDoubt()) {
                entries[index] = checked
            } else {
                entries.remove(at: index)
            }
        }
        // The other people copied (an optician, a specialist): a name that reads as a person's, a postcode that is one.
        return entries.compactMap { entry in
            guard entry.addressType != "patient" else { return entry }
            guard let name = entry.patient?.fullName, FactCheck.isPersonName(name), fields?.doubtful.contains(name) != true else { return nil }
            var entry = entry
            if let postcode = entry.address?.postcode, !check.isPostcode(postcode) || fields?.doubtful.contains(postcode) == true {
                entry.address?.postcode = nil
            }
            return entry
        }
    }

    /// `base` with what `other` (another reading of the same person) and the labels' identifiers
    /// add; nil when they disagree on the date of birth or the NHS number.
    private static func merge(_ base: AddressPage, with other: AddressPage?, fields: FieldReader, ids: FieldReader.Identifiers,
                              check: FactCheck) -> AddressPage? {
        var merged = base
        var person = merged.patient ?? AddressPage.Patient()
        func agree(_ mine: String?, _ theirs: String?, normalise: (String) -> String = { $0 }) -> (value: String?, conflict: Bool) {
            guard let mine else { return (theirs, false) }
            guard let theirs else { return (mine, false) }
            return normalise(mine) == normalise(theirs) ? (mine, false) : (nil, true)
        }
        let digits: (String) -> String = { $0.filter(\.isNumber) }
        var dob = agree(person.dateOfBirth, ids.dateOfBirth)
        var nhs = agree(person.nhsNumber, ids.nhsNumber, normalise: digits)
        var mrn = agree(person.mrn, ids.mrn)
        if let other = other?.patient {
            dob = dob.conflict ? dob : agree(dob.value, other.dateOfBirth)
            nhs = nhs.conflict ? nhs : agree(nhs.value, other.nhsNumber, normalise: digits)
            mrn = mrn.conflict ? mrn : agree(mrn.value, other.mrn)
            person.phones = person.phones ?? other.phones
        }
        guard !dob.conflict, !nhs.conflict else { return nil }
        person.dateOfBirth = dob.value
        person.nhsNumber = nhs.value
        person.mrn = mrn.value
        person.phones = person.phones ?? ids.phones
        merged.patient = person
        if let name = person.fullName, fields.isSomeoneElse(name) { return nil }
        if let mine = merged.address?.postcode, let theirs = other?.address?.postcode {
            // Two readings of one address: the letter's own (its lines read as letters write them), unless its first line
            // fails its check where the labels' passes (`Case` of `Case note number: …`); two addresses: neither.
            let letters = other?.extraction?.method == "letter"
                && (other?.address?.line1.map(FactCheck.isAddressLine) ?? false || !(merged.address?.line1.map(FactCheck.isAddressLine) ?? false))
            merged.address = mine != theirs ? nil : letters ? other?.address : merged.address
        } else if merged.address == nil {
            merged.address = other?.address ?? fields.address(check: check)
        }
        merged.gp = merged.gp ?? other?.gp ?? fields.gpEntry
        return merged
    }
}

extension FactCheck {
    /// `entry` with every value that fails its check left out; nil when its name fails (no
    /// person is written without a name that reads as one) or names someone who is not the patient.
    func checked(_ entry: AddressPage, notPatient: [String], notPatientPostcodes: Set<String>, notPatientPhones: Set<String>,
                 doubtful: OCRDoubt = OCRDoubt()) -> AddressPage? {
        var entry = entry
        guard var person = entry.patient, !doubtful.contains(person.fullName) else { return nil }
        // A value with a word OCR was unsure of is not written.
        if doubtful.contains(person.dateOfBirth) { person.dateOfBirth = nil }
        if doubtful.contains(person.mrn, halfSure: true) { person.mrn = nil }
        if doubtful.contains(person.nhsNumber) { person.nhsNumber = nil }
        if let address = entry.address, doubtful.contains(address.postcode) || doubtful.contains(address.city) { entry.address = nil }
        if let line = entry.address?.line1, doubtful.contains(line) { entry.address?.line1 = nil; entry.address?.line2 = nil }
        if let line = entry.address?.line2, doubtful.contains(line) { entry.address?.line2 = nil }
        // A page the app's rules read with a placeholder for a name (`Unknown`) keeps its address, as the app keeps it.
        if let name = person.fullName {
            guard Self.isPersonName(name), !notPatient.contains(where: { LetterNames.same($0, name) }), !isSplitByOCR(name) else { return nil }
            if let gpName = entry.gp?.name, LetterNames.same(gpName, name) { return nil }
        }
        // The app's own rules keep a postcode of the right form, as the app does (its fixtures are of invented
        // sectors); what this project's readers find must be in a sector that exists.
        let appRule = ["clearwater_form", "form", "label", "unstructured"].contains(entry.extraction?.method ?? "")
        if let dob = person.dateOfBirth, !isDateOfBirth(dob) { person.dateOfBirth = nil }
        if let nhs = person.nhsNumber, !Self.isNHSNumber(nhs) { person.nhsNumber = nil }
        if let mrn = person.mrn, !Self.isHospitalNumber(mrn, nhs: person.nhsNumber) { person.mrn = nil }
        entry.patient = person
        if var phones = person.phones {
            for phone in [phones.home, phones.work, phones.mobile].compactMap({ $0 }) where notPatientPhones.contains(phone.filter(\.isNumber)) {
                if phones.home == phone { phones.home = nil }
                if phones.work == phone { phones.work = nil }
                if phones.mobile == phone { phones.mobile = nil }
            }
            person.phones = phones == AddressPage.Phones() ? nil : phones
            entry.patient = person
        }
        if var address = entry.address {
            if let postcode = address.postcode, !isPostcode(postcode, formOnly: appRule) || notPatientPostcodes.contains(postcode) {
                address = AddressPage.Address()  // a postcode that is no patient's: the lines with it are no patient's either
            }
            // A speck or a rule OCR read at a line's ends is no part of it (`14 Park View . .`, `| Flat 30`).
            // A line that is the patient's own name (a label's block read from its name line) is no line of the address: the
            // next moves up. A first line that fails its check leaves the second unplaced: neither is written.
            var lines = [address.line1, address.line2].compactMap { $0.map(Self.withoutSpecks)?.trimmingCharacters(in: Self.lineEdges) }
            if let first = lines.first, let name = person.fullName, LetterNames.same(first, name) { lines.removeFirst() }
            // A first line followed by a street's last word alone (`146 Foxglove` / `Drive`) was broken by a column: neither is written.
            if let first = lines.first, !Self.isAddressLine(first)
                || lines.count > 1 && lines[1].split(separator: " ").count == 1 && AddressPage.Address.isStreetWord(lines[1]) { lines = [] }
            lines = Array(lines.prefix { Self.isAddressLine($0) })
            address.line1 = lines.first
            address.line2 = lines.count > 1 ? lines[1] : nil
            address.city = address.city?.trimmingCharacters(in: Self.lineEdges)
            if let city = address.city, !Self.isAddressLine(city) || city.contains(where: \.isNumber) { address.city = nil }
            // A town OCR misread (`Bowser Regis`, `Cwmbran`) that is all but the town of its postcode's sector: the sector's.
            if let city = address.city, let postcode = address.postcode, let town = sectors.place(of: postcode)?.town,
               city.lowercased() != town.lowercased(), Self.isMisreading(city, of: town) {
                address.city = town
            }
            entry.address = address == AddressPage.Address() ? nil : address
        }
        entry.gp = checked(entry.gp, doubtful: doubtful, formOnly: appRule)
        return entry
    }

    /// What is no part of an address line at its ends: anything but letters, digits, `)` and `'`.
    private static let lineEdges = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: ")'")).inverted

    /// A GP with a name that fails its check left nameless, a postcode that fails left out; nil
    /// when OCR was unsure of a word of either (or nothing is left).
    func checked(_ gp: AddressPage.GP?, doubtful: OCRDoubt, formOnly: Bool = false) -> AddressPage.GP? {
        guard var gp, !doubtful.contains(gp.name), !doubtful.contains(gp.postcode) else { return nil }
        gp.name = gp.name?.trimming(" .,;'|")
        if let gpName = gp.name, LetterNames.person(Substring(gpName)).map({ Self.isPersonName($0.name) }) != true { gp.name = nil }
        if let postcode = gp.postcode, !isPostcode(postcode, formOnly: formOnly) { gp.postcode = nil }
        return gp.isEmpty ? nil : gp
    }
}

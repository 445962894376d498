import Foundation

/// The words UK clinical paperwork labels its fields with, each with the field it names: the
/// one place to add a label. A label is matched at the start of a cell (`PageLayout`), word by
/// word, case, full stops, colons and brackets aside (`D.O.B.:` is `dob`, `Forename(s)` is
/// `forenames`); the longest label that matches wins. Labels that name the patient's own
/// fields (an NHS number, a date of birth) are the patient's wherever they stand; the generic
/// ones (name, address, telephone) are of whoever the section they stand in is about (a
/// `GP details` heading, a `Referring optometrist` box); a label of someone else (`Consultant`,
/// `Seen by`, `Signed`) names a person who is never the patient.
enum LabelLexicon {
    enum Field: String, Sendable, CaseIterable {
        case patientName, surname, forenames, title, dateOfBirth, hospitalNumber, nhsNumber, address, postcode, phone
        /// A name, an address, a phone: the section's person's.
        case name
        case gp, practice
        /// Someone who is not the patient: the consultant, the referrer, the signer, the typist.
        case otherPerson
        /// A field of the letter, not of a person (a date, a reference, a clinic).
        case letterField
        /// A heading that says whom the labels under it are about.
        case patientSection, gpSection, otherSection
    }

    /// Each label (its words as matched) and the field it names.
    static let labels: [(words: [String], field: Field)] = {
        let table: [(Field, [String])] = [
            (.patientName, ["patient", "patient name", "patients name", "patient's name", "name of patient", "full name", "patient full name",
                            "client name", "patient surname and forename", "re", "regarding"]),
            (.surname, ["surname", "family name", "last name", "patient surname"]),
            (.forenames, ["forename", "forenames", "first name", "first names", "firstname", "given name", "given names", "christian name",
                          "patient forename", "patient forenames"]),
            (.title, ["title"]),
            (.dateOfBirth, ["date of birth", "dob", "birth date", "born", "d/o/b", "birthdate", "date birth"]),
            (.hospitalNumber, ["hospital number", "hospital no", "hosp no", "hospital num", "hosp number", "hospital id", "mrn", "unit number",
                               "unit no", "case note number", "case note no", "casenote number", "casenote no", "case number", "k number",
                               "k no", "patient number", "patient no", "patient id", "pas number", "pas no", "record number",
                               "medical record number", "hospital reference", "crn", "district number"]),
            (.nhsNumber, ["nhs number", "nhs no", "nhs num", "nhs", "new nhs number", "nhs id"]),
            (.address, ["address", "home address", "patient address", "patients address", "patient's address", "addr", "add",
                        "address of patient", "permanent address", "usual address"]),
            (.postcode, ["postcode", "post code", "postal code"]),
            (.phone, ["telephone", "tel", "tel no", "telephone no", "telephone number", "phone", "phone number", "mobile", "mob",
                      "mobile no", "home tel", "home phone", "home telephone", "contact number", "contact tel", "daytime tel"]),
            (.name, ["name"]),
            (.gp, ["gp", "registered gp", "gp name and address", "general practitioner", "gp details", "gp name", "usual gp", "gp address",
                   "registered general practitioner", "gp practice", "gp surgery", "practitioner", "family doctor"]),
            (.practice, ["practice", "practice name", "practice address", "surgery"]),
            (.otherPerson, ["consultant", "seen by", "referred by", "referrer", "referring clinician", "referring doctor", "referred to",
                            "optometrist", "referring optometrist", "optometrist name", "signed", "signature", "typed by", "dictated by",
                            "clinician", "responsible clinician", "author", "secretary",
                            "next of kin", "nok", "contact", "emergency contact", "relative", "carer", "reviewed by", "verified by",
                            "consultant in charge", "named consultant", "specialist", "doctor", "registrar", "nurse"]),
            (.letterField, ["clinic date", "date", "date of clinic", "date of letter", "date typed", "date dictated", "dictated", "typed",
                            "clinic", "our ref", "your ref", "ref", "reference", "goc number", "goc no", "location", "ward",
                            "specialty", "speciality", "department", "date seen", "appointment", "appointment date", "date of referral",
                            "priority", "urgency", "hospital", "trust", "reason for referral", "diagnosis", "page"]),
            (.patientSection, ["patient", "patient details", "patient information", "patient demographics", "details of patient", "patient's details",
                               "patients details", "about the patient", "demographics"]),
            (.gpSection, ["gp details", "registered gp details", "gp information", "general practitioner details", "practice details"]),
            (.otherSection, ["referring optometrist", "optometrist details", "referrer details", "referrer", "referring practitioner",
                             "referred by", "next of kin", "next of kin details", "consultant details", "clinician details", "signed by",
                             "practitioner details", "from"]),
        ]
        return table.flatMap { field, phrases in phrases.map { (words: $0.split(separator: " ").map(String.init), field: field) } }
    }()

    /// The labels by their first word, longest first.
    static let byFirstWord: [String: [(words: [String], field: Field)]] = {
        var map: [String: [(words: [String], field: Field)]] = [:]
        for label in labels { map[label.words[0], default: []].append(label) }
        return map.mapValues { $0.sorted { $0.words.count > $1.words.count } }
    }()

    /// True when `words` are the first words of a label and no more (`Case` of `Case note number`).
    static func isLabelStart(_ words: [String]) -> Bool {
        let keys = words.map(key)
        guard let first = keys.first, let candidates = byFirstWord[first] else { return false }
        return candidates.contains { $0.words.count > keys.count && Array($0.words.prefix(keys.count)) == keys }
    }

    /// `word` as labels are matched: lowercase, without full stops, colons, brackets and
    /// apostrophes (`D.O.B.:` → `dob`, `Forename(s)` → `forenames`, `Patient's` → `patients`).
    static func key(_ word: String) -> String {
        // Nearly every word is ASCII: its bytes folded and filtered without Foundation.
        if word.utf8.allSatisfy({ $0 < 0x80 }) {
            return String(decoding: word.utf8.compactMap { byte -> UInt8? in
                switch byte {
                case 0x2E, 0x3A, 0x28, 0x29, 0x27, 0x2C, 0x3B, 0x2A, 0x5B, 0x5D: nil
                case 0x41...0x5A: byte | 0x20
                default: byte
                }
            }, as: UTF8.self)
        }
        var out = ""
        for scalar in word.unicodeScalars {
            switch scalar {
            case ".", ":", "(", ")", "'", "\u{2019}", ",", ";", "*", "[", "]": continue
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out.lowercased()
    }

    /// The labels that start `words` (a cell's), longest first, with how many words each takes
    /// (its own, and a colon or dash standing apart after it).
    static func matches(_ words: [String]) -> [(field: Field, count: Int, colon: Bool)] {
        // Most cells start with no label's first word: told from that word alone.
        guard let first = words.first, first.utf8.count <= 24, let candidates = byFirstWord[key(first)] else { return [] }
        let keys = words.prefix(6).map(key)
        var found: [(field: Field, count: Int, colon: Bool)] = []
        for label in candidates where label.words.count <= keys.count && Array(keys.prefix(label.words.count)) == label.words {
            var count = label.words.count
            var colon = words[count - 1].hasSuffix(":") || words[count - 1].hasSuffix(":-")
            // A label's words end where its colon is: `Patient name:` is one, `Patient: name` is not.
            if words[..<(count - 1)].contains(where: { $0.hasSuffix(":") }) { continue }
            while count < words.count, [":", "-", ":-", "–", "."].contains(words[count]) {
                colon = colon || words[count].hasPrefix(":")
                count += 1
            }
            found.append((label.field, count, colon))
        }
        return found
    }
}

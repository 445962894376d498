import Foundation

/// One recipient of a letter's copies, from its `cc:` line: `Dr J Shaw Thornton Surgery 12
/// Thornton Side, RH1 2NP.` (the app's: name, practice and address joined by spaces) or
/// `cc: Dr S Patel, Brockwood Medical Centre, 47 Bell Street, Porthmadog LL49 9DN` (other
/// hospitals': by commas); what kind of recipient they are told by their practice's words.
struct LetterCopy: Sendable, Equatable {
    enum Kind: Sendable, Equatable { case gp, optician, specialist, other }

    /// `Dr J Shaw`: the name as the letter writes it, title kept (the app's GP names keep it).
    var displayName: String
    /// `J Shaw`: without the title.
    var name: String
    var practice: String?
    /// Their role when the copy says it (`Consultant Cardiologist`).
    var role: String?
    /// The address before the postcode (`12 Thornton Side, Reigate`).
    var address: String?
    var postcode: String?
    var kind: Kind

    private static let practiceWords: Set<String> = ["surgery", "centre", "center", "practice", "partnership", "clinic", "opticians",
                                                     "optometrists", "optician", "optometrist", "hospital", "group", "eyecare", "unit"]
    private static let gpWords = ["surgery", "medical centre", "health centre", "medical practice", "family practice", "practice", "general practitioner",
                                  "medical group", "partnership"]
    private static let opticianWords = ["optician", "optometrist", "eyecare", "eye care", "vision", "specsavers", "boots opticians"]
    private static let specialistWords = ["hospital", "consultant", "department", "clinic", "unit", "infirmary", "specialist"]

    init?(_ raw: String) {
        var text = raw.replacingOccurrences(of: "\n", with: " ").trimming(" .;")
        guard !text.isEmpty, text.count <= 300 else { return nil }
        if !text.contains(where: \.isLowercase) { text = LetterNames.titleCased(text) }
        var head = Substring(text)
        if let (postcode, before) = TextPatterns.lastPostcode(in: text) {
            self.postcode = postcode
            head = before
        }
        let segments = head.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard let first = segments.first else { return nil }
        var addressParts: [String] = []
        if let person = LetterNames.person(Substring(first)) {
            name = person.name
            displayName = person.title.map { "\($0) \(person.name)" } ?? person.name
            var rest = segments.dropFirst()
            if let next = rest.first, !next.contains(where: \.isNumber), LetterPage.namesRole(next), !PeopleText.names(organisationIn: next) {
                role = next  // `Mr P Grant, Consultant Cardiologist, St Mary's Hospital, …`
                rest = rest.dropFirst()
            }
            if let next = rest.first, !next.contains(where: \.isNumber), Self.hasPracticeWord(next) || rest.count >= 3 {
                practice = next
                rest = rest.dropFirst()
            }
            addressParts = Array(rest)
        } else {
            // The app's: `Dr J Shaw Thornton Surgery 12 Thornton Side` before the first comma.
            let words = first.split(separator: " ").map(String.init)
            guard let (person, practiceWords, addressWords) = Self.splitHead(words) else { return nil }
            name = person.name
            displayName = person.title.map { "\($0) \(person.name)" } ?? person.name
            practice = practiceWords.isEmpty ? nil : practiceWords.joined(separator: " ")
            addressParts = (addressWords.isEmpty ? [] : [addressWords.joined(separator: " ")]) + segments.dropFirst()
        }
        address = addressParts.isEmpty ? nil : addressParts.joined(separator: ", ")
        kind = Self.kind(of: "\(displayName) \(role ?? "") \(practice ?? "")".lowercased())
    }

    /// A name, a practice and the start of an address, from words run together: the address
    /// from the first house number (else after the practice's last word); the name is the
    /// title, any initials and a surname, else the title, a first name and a surname.
    private static func splitHead(_ words: [String]) -> ((name: String, title: String?), [String], [String])? {
        let numberAt = words.firstIndex { $0.first?.isNumber == true } ?? words.count
        var nameAndPractice = Array(words[..<numberAt])
        var addressWords = Array(words[numberAt...])
        if numberAt == words.count, let last = nameAndPractice.lastIndex(where: { practiceWords.contains($0.lowercased()) }) {
            addressWords = Array(nameAndPractice[(last + 1)...])
            nameAndPractice = Array(nameAndPractice[...last])
        }
        guard let first = nameAndPractice.first, PeopleText.titles.contains(first.lowercased().trimmingCharacters(in: .punctuationCharacters)) else {
            return nil
        }
        var end = 1
        while end < nameAndPractice.count, nameAndPractice[end].filter(\.isLetter).count == 1 { end += 1 }  // initials
        let initials = end > 1
        end += initials ? 1 : 2
        if !initials, end < nameAndPractice.count || end > nameAndPractice.count,
           nameAndPractice[min(end, nameAndPractice.count)...].allSatisfy({ practiceWords.contains($0.lowercased()) || ["medical", "health", "family"].contains($0.lowercased()) }) {
            end -= 1  // `Dr Shaw Thornton Surgery`: the practice needs a word of its own
        }
        end = min(end, nameAndPractice.count)
        guard let person = LetterNames.person(Substring(nameAndPractice[..<end].joined(separator: " "))) else { return nil }
        return (person, Array(nameAndPractice[end...]), addressWords)
    }

    /// True when `text` names a GP's practice (`Thornton Medical Practice`, `Riverside Surgery`).
    static func namesPractice(_ text: String) -> Bool {
        let lowered = text.lowercased()
        return gpWords.contains(where: lowered.contains)
    }

    private static func hasPracticeWord(_ text: String) -> Bool {
        text.lowercased().split(separator: " ").contains { practiceWords.contains(String($0)) }
    }

    private static func kind(of text: String) -> Kind {
        if opticianWords.contains(where: text.contains) { return .optician }
        if gpWords.contains(where: text.contains) || text.hasPrefix("gp ") { return .gp }
        if specialistWords.contains(where: text.contains) { return .specialist }
        return .other
    }

    /// The page entry of a recipient who is not the patient's GP (an optician, a specialist):
    /// their name, and their address with the practice as its first line.
    func entry(page: Int, sectors: PostcodeSectors) -> AddressPage? {
        guard kind == .optician || kind == .specialist, let postcode else { return nil }
        var address = OneLineAddress.split(Substring(address ?? ""), postcode: postcode, sectors: sectors)
        if let practice {
            address.line2 = [address.line1, address.line2].compactMap { $0 }.joined(separator: ", ").nilIfEmpty
            address.line1 = practice
        }
        var entry = AddressPage(page: page, method: "letter", confidence: 0.8, name: name, dateOfBirth: nil, address: address)
        entry.addressType = kind == .optician ? "optician" : "specialist"
        entry.specialistName = kind == .specialist ? role ?? displayName : nil
        return entry
    }

    /// The page's `gp` object.
    var gp: AddressPage.GP {
        AddressPage.GP(name: displayName, practice: practice, address: address, postcode: postcode)
    }
}

extension String {
    var nilIfEmpty: String? { isEmpty ? nil : self }
}

import Foundation

/// The people on each page of a document, found as the app's `ExtractionCascade` finds them
/// (lh/Yiana, YianaExtraction): a registration form first, then a labelled form, an address
/// label, and last a letter's prose; the first that finds a name (or a placeholder) and a
/// postcode wins. A document named `Surname_Firstname_DDMMYY` gives every page that name and
/// date of birth, and a postcode whose sector the table knows gives the town and county the
/// page did not.
public struct AddressCascade: Sendable {
    public let sectors: PostcodeSectors
    private let registration: RegistrationForm
    private let form: LabelledForm
    private let label: AddressLabel
    private let fallback: LetterFallback

    public init(sectors: PostcodeSectors = .shared) {
        self.sectors = sectors
        registration = RegistrationForm(sectors: sectors)
        form = LabelledForm(sectors: sectors)
        label = AddressLabel(sectors: sectors)
        fallback = LetterFallback(sectors: sectors)
    }

    /// The person on one page of OCR text, or nil when the page names none.
    public func page(_ text: String, number: Int) -> AddressPage? {
        entries(text, number: number).entries.first
    }

    /// Everyone on one page: the patient first, then the other recipients of a letter's copies.
    /// A page that reads as a letter is read as one first (`LetterPage`); where the letter does
    /// not say who its patient is, the app's extractors may, unless they name someone the letter
    /// says is someone else (its signer, sender, GP) or an address of theirs.
    /// The letter comes with its GP checked (`letterGP`), as the letter's other pages are given it.
    func entries(_ text: String, number: Int, layout: PageLayout? = nil) -> (entries: [AddressPage], letter: LetterPage?, letterGP: AddressPage.GP?) {
        guard text.utf8.contains(where: TextPatterns.isDigit) else { return ([], nil, nil) }  // no postcode without a digit
        let lines = PageLines(text)
        let letter = LetterPage(lines, sectors: sectors)
        let fields = layout.map(FieldReader.init)
        let check = FactCheck(sectors: sectors, pageText: lines.text)
        var entries: [AddressPage] = []
        if letter.isLetter {
            entries = letter.entries(lines, number: number, sectors: sectors)
        }
        if entries.first?.addressType != "patient", let found = registration.extract(lines, number: number) ?? form.extract(lines, number: number)
            ?? label.extract(lines, number: number) ?? fallback.extract(lines, number: number), !letter.isLetter || letter.allows(found) {
            entries.insert(found, at: 0)
        }
        return (reconciled(entries, fields: fields, letter: letter, check: check, page: number), letter.isLetter ? letter : nil,
                letter.isLetter ? check.checked(letter.gp, doubtful: fields?.doubtful ?? OCRDoubt()) : nil)
    }

    /// Every page's people; `documentID` (the app's: the document's title) gives the
    /// patient's name and date of birth when it follows `Surname_Firstname_DDMMYY`. The pages
    /// of one letter (from its `Re:` line or salutation, on through pages that go on from it:
    /// a `Page 2` header, or the letter not yet signed) are its patient's, each with the
    /// letter's GP and other recipients, wherever on the letter they are named.
    public func document(_ documentID: String, pages: [(number: Int, text: String)]) -> [AddressPage] {
        document(documentID, pages: pages.map { (number: $0.number, text: $0.text, layout: nil) })
    }

    /// ``document(_:pages:)`` with each page's words and their places (empty where they are not
    /// known), for its labelled fields to be read by where they stand.
    public func document(_ documentID: String, laidOutPages pages: [(number: Int, text: String, words: [PlacedWord])]) -> [AddressPage] {
        document(documentID, pages: pages.map { (number: $0.number, text: $0.text, layout: $0.words.isEmpty ? nil : PageLayout(words: $0.words)) })
    }

    /// ``document(_:pages:)`` with each page's layout, where there is one.
    func document(_ documentID: String, pages: [(number: Int, text: String, layout: PageLayout?)]) -> [AddressPage] {
        let identity = FileNameIdentity(documentID)
        var perPage: [[AddressPage]] = []
        var readAs: [LetterPage?] = []
        var letterGPs: [AddressPage.GP?] = []
        var letters: [[Int]] = []  // runs of indexes into perPage
        var letterOpen = false
        for (number, text, layout) in pages {
            let (entries, letter, letterGP) = entries(text, number: number, layout: layout)
            let index = perPage.count
            perPage.append(entries)
            readAs.append(letter)
            letterGPs.append(letterGP)
            guard let letter else { letterOpen = false; continue }
            if letter.startsLetter || letters.isEmpty || !(letter.isContinuation || letterOpen) {
                letters.append([index])
            } else {
                letters[letters.count - 1].append(index)
            }
            letterOpen = !letter.isSignedOff
        }
        for run in letters {
            guard let patient = run.lazy.compactMap({ perPage[$0].first }).first(where: { $0.addressType == "patient" && ["letter", "form", "fields"].contains($0.extraction?.method) })
            else { continue }
            let gp = run.lazy.compactMap { letterGPs[$0] }.first
            var others: [AddressPage] = []
            for entry in run.flatMap({ perPage[$0] }) where entry.addressType != "patient"
                && !others.contains(where: { $0.addressType == entry.addressType && $0.patient?.fullName == entry.patient?.fullName && $0.address == entry.address }) {
                others.append(entry)
            }
            for index in run {
                let number = perPage[index].first?.pageNumber ?? pages[index].number
                // A page's own patient where it names one as a letter does; else the letter's (what the
                // app's extractors found in the body of a continuation is someone the body mentions).
                var own = perPage[index].first.flatMap { $0.addressType == "patient" && ["letter", "form", "fields"].contains($0.extraction?.method) ? $0 : nil } ?? patient
                own.pageNumber = number
                own.gp = own.gp ?? gp
                perPage[index] = [own] + others.map { other in
                    var other = other
                    other.pageNumber = number
                    return other
                }
            }
        }
        return perPage.flatMap { entries in
            entries.map { page in
                guard let identity, page.addressType == "patient" else { return page }
                var page = page
                page.patient = page.patient ?? AddressPage.Patient()
                page.patient?.fullName = identity.fullName
                page.patient?.dateOfBirth = identity.dateOfBirth
                return page
            }
        }
    }
}

/// The patient a document's name gives, by the app's convention `Surname_Firstname_DDMMYY`
/// (anything may follow the date): `Anderson-Dixon_Anthony_200461` is Anthony
/// Anderson-Dixon, born 20/04/1961 (a two-digit year of 26 or more is of the 1900s).
public struct FileNameIdentity: Sendable, Equatable {
    public let surname: String
    public let firstName: String
    public let dateOfBirth: String
    public var fullName: String { "\(firstName) \(surname)" }

    public init?(_ documentID: String) {
        let parts = documentID.replacingOccurrences(of: "\u{2018}", with: "'").replacingOccurrences(of: "\u{2019}", with: "'")
            .split(separator: "_").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard parts.count >= 3, Self.isName(parts[0]), Self.isName(parts[1]) else { return nil }
        let digits = parts[2].utf8.prefix(6)
        guard digits.count == 6, digits.allSatisfy(TextPatterns.isDigit) else { return nil }
        let number = Array(digits).map { Int($0 - 0x30) }
        let (day, month, year) = (number[0] * 10 + number[1], number[2] * 10 + number[3], number[4] * 10 + number[5])
        guard let date = PeopleText.formatted(day: day, month: month, year: year >= 26 ? 1900 + year : 2000 + year) else { return nil }
        surname = parts[0].prefix(1).uppercased() + parts[0].dropFirst()
        firstName = parts[1].prefix(1).uppercased() + parts[1].dropFirst()
        dateOfBirth = date
    }

    /// ASCII letters, hyphens and apostrophes, starting with a letter.
    private static func isName(_ part: String) -> Bool {
        guard let first = part.utf8.first, TextPatterns.isLetter(first) else { return false }
        return part.utf8.allSatisfy { TextPatterns.isLetter($0) || $0 == 0x2D || $0 == 0x27 }
    }
}

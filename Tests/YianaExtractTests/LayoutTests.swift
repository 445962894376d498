import Foundation
import Testing
import YianaArchive
import YianaExtract
import YianaTestSupport

/// Fields read by their labels and their places on the page (issue 76): tables, label
/// columns, labels above values, two blocks side by side, sections; and no value written that
/// fails its check, no patient where the readings disagree.
@Suite("layouts")
struct LayoutTests {
    let cascade = AddressCascade()

    static let fixtures = Fixtures.packageRoot.appendingPathComponent("Tests/YianaExtractTests/Fixtures/layouts")

    /// A page drawn as rows of text at places: each row's cells (a left edge in points and
    /// its text) on one line, `lineHeight` apart; a word is 5.5 points a character, 10 high.
    static func page(_ rows: [[(x: Double, text: String)]], top: Double = 300, lineHeight: Double = 14) -> [PlacedWord] {
        var words: [PlacedWord] = []
        for (index, row) in rows.enumerated() {
            let y = top + Double(index) * lineHeight
            for cell in row {
                var x = cell.x
                for word in cell.text.split(separator: " ") {
                    let width = 5.5 * Double(word.count)
                    words.append(PlacedWord(text: String(word), x0: x, y0: y, x1: x + width, y1: y + 10))
                    x += width + 3
                }
            }
        }
        return words
    }

    /// The text of `rows`, a line each, as a text layer gives it.
    static func text(_ rows: [[(x: Double, text: String)]]) -> String {
        rows.map { $0.map(\.text).joined(separator: " ") }.joined(separator: "\n")
    }

    func read(_ rows: [[(x: Double, text: String)]], title: String = "Letter") -> [AddressPage] {
        cascade.document(title, laidOutPages: [(number: 1, text: Self.text(rows), words: Self.page(rows))])
    }

    static let letterhead: [[(x: Double, text: String)]] = [
        [(340, "East Surrey Hospital")], [(340, "Canada Avenue")], [(340, "Redhill RH1 5RH")], [(340, "Tel: 01737 768511")], [],
    ]

    /// The documents of Scripts/generate/layouts.py (seed 11: a tuning seed, 42 documents in its
    /// seven families, 8 of them scanned and read by tesseract), as `extract` lays them out,
    /// scored by Scripts/bench/layouts-score.py: no wrong fact at all, and on the text pages
    /// every patient's name and date of birth, nearly every postcode and GP.
    @Test func everyGeneratedLayoutGivesNoWrongFact() async throws {
        let data = try Data(contentsOf: Self.fixtures.appendingPathComponent("pages.json"))
        guard case .object(let root) = try JSONValue.decode(data), case .array(let documents)? = root["documents"] else {
            Issue.record("pages.json does not read")
            return
        }
        #expect(documents.count == 50)
        let folder = try TemporaryFolder()
        let addresses = folder.url.appendingPathComponent(".addresses")
        try FileManager.default.createDirectory(at: addresses, withIntermediateDirectories: true)
        for document in documents {
            guard case .object(let fields) = document, case .string(let id)? = fields["document_id"], case .array(let pages)? = fields["pages"] else { continue }
            let laidOut = pages.compactMap { page -> (number: Int, text: String, words: [PlacedWord])? in
                guard case .object(let page) = page, case .integer(let number)? = page["page_number"], case .string(let text)? = page["text"],
                      case .array(let words)? = page["words"] else { return nil }
                return (Int(number), text, words.compactMap(Self.word))
            }
            #expect(laidOut.allSatisfy { !$0.words.isEmpty }, "\(id): a page without its words' places")
            try JSONEncoder().encode(["pages": cascade.document(id, laidOutPages: laidOut)]).write(to: addresses.appendingPathComponent("\(id).json"))
        }
        let scorer = Fixtures.packageRoot.appendingPathComponent("Scripts/bench/layouts-score.py").path
        let truth = Self.fixtures.appendingPathComponent("truth.json").path
        let run = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", scorer, truth, folder.url.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: [String: Int]]])
        let misses = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["python3", scorer, truth, folder.url.path, "--misses"]).stdout
        #expect(counts.keys.filter { $0.hasSuffix("(text)") && !$0.hasPrefix("all") }.count == 7, "the seven families")
        for (group, fields) in counts {
            for (field, cell) in fields { #expect(cell["wrong"] == 0, "\(group) \(field): \(cell["wrong"] ?? 0) wrong\n\(misses)") }
        }
        let text = try #require(counts["all (text)"])
        func share(_ field: String) -> Double {
            guard let cell = text[field] else { return 0 }
            return Double(cell["right"] ?? 0) / Double(max(1, (cell["right"] ?? 0) + (cell["missing"] ?? 0) + (cell["wrong"] ?? 0)))
        }
        #expect(share("name") == 1 && share("date of birth") == 1, "\(misses)")
        for field in ["postcode", "nhs number", "line_1", "city", "gp name"] { #expect(share(field) >= 0.95, "\(field): \(share(field))\n\(misses)") }
        #expect((counts["all (scans)"]?["name"]?["right"] ?? 0) >= 5, "the scans' patients\n\(misses)")
    }

    static func word(_ value: JSONValue) -> PlacedWord? {
        guard case .array(let parts) = value, parts.count == 5 || parts.count == 6, case .string(let text) = parts[0] else { return nil }
        let numbers = parts.dropFirst().compactMap { part -> Double? in
            switch part {
            case .integer(let number): Double(number)
            case .number(let number): number
            default: nil
            }
        }
        guard numbers.count == parts.count - 1 else { return nil }
        return PlacedWord(text: text, x0: numbers[0], y0: numbers[1], x1: numbers[2], y1: numbers[3], confidence: numbers.count > 4 ? numbers[4] : 1)
    }

    /// An electronic record's letter to the GP: the patient's details in a label column beside
    /// a value column, the address over three lines of its cell; the GP in the window.
    @Test func aTableOfDetailsGivesThePatientAndTheWindowTheGP() throws {
        let rows = Self.letterhead + [
            [(50, "Dr A Patel")], [(50, "Reigate Medical Centre")], [(50, "12 High Street")], [(50, "Reigate")], [(50, "RH2 9AE")], [],
            [(50, "Dear Dr Patel,")], [],
            [(50, "Patient"), (150, "John MACLEOD")],
            [(50, "Date of birth"), (150, "26-Feb-1951")],
            [(50, "NHS No."), (150, "943 476 5919")],
            [(50, "Address"), (150, "118 Priory Gardens")],
            [(150, "York")],
            [(150, "YO31 8DU")],
            [(50, "Hospital No"), (150, "RH21218642")], [],
            [(50, "I saw Mr Macleod in clinic today with his daughter, and we discussed the plan at length.")],
            [(50, "Yours sincerely,")], [(50, "Mr L Arblaster")], [(50, "Consultant Ophthalmologist")],
        ]
        let patient = try #require(read(rows).first)
        #expect(patient.addressType == "patient" && patient.extraction?.method == "fields")
        #expect(patient.patient?.fullName == "John Macleod" && patient.patient?.dateOfBirth == "26/02/1951")
        #expect(patient.patient?.nhsNumber == "943 476 5919" && patient.patient?.mrn == "RH21218642")
        #expect(patient.address?.line1 == "118 Priory Gardens" && patient.address?.city == "York" && patient.address?.postcode == "YO31 8DU")
        #expect(patient.gp?.name == "Dr A Patel" && patient.gp?.postcode == "RH2 9AE")
    }

    /// A clinic summary: `Name: SURNAME, Forename (Title)`, the GP under a `GP:` label with their
    /// practice and its address: the GP is never the patient, nor their postcode the patient's.
    @Test func aClinicSummaryNeverMakesTheGPThePatient() throws {
        let rows = Self.letterhead + [
            [(200, "CLINIC SUMMARY")], [],
            [(50, "Name:"), (150, "SMITH, Jane (Mrs)")],
            [(50, "D.O.B.:"), (150, "12.03.1945")],
            [(50, "Hosp No:"), (150, "K123456")],
            [(50, "NHS No:"), (150, "943 476 5919")],
            [(50, "Address:"), (150, "14 Oak Lane")],
            [(150, "Reigate")],
            [(150, "RH2 7AA")],
            [(50, "GP:"), (150, "Dr A Patel, Reigate Medical Centre")],
            [(150, "12 High Street, Reigate RH2 9AE")],
            [(50, "Consultant:"), (150, "Mr L Arblaster")],
        ]
        let patient = try #require(read(rows).first)
        #expect(patient.patient?.fullName == "Jane Smith" && patient.patient?.dateOfBirth == "12/03/1945" && patient.patient?.mrn == "K123456")
        #expect(patient.address?.line1 == "14 Oak Lane" && patient.address?.postcode == "RH2 7AA")
        #expect(patient.gp?.name == "Dr A Patel" && patient.gp?.practice == "Reigate Medical Centre" && patient.gp?.postcode == "RH2 9AE")
    }

    /// An optometrist's referral form: sections, `Surname` / `Forename(s)` / `Title` boxes with
    /// their values under them (the first two close enough to read as one cell, cut again at
    /// the labels' columns), the
    /// optometrist's own name and address in a section of their own.
    @Test func aReferralFormReadsItsBoxesAndSections() throws {
        let rows: [[(x: Double, text: String)]] = [
            [(200, "Optometrist Referral")], [],
            [(50, "Patient details")],
            [(55, "Surname"), (138, "Forename(s)"), (255, "Title")],
            [(55, "ANDERSON-DIXON"), (138, "Zofia"), (255, "Miss")],
            [(55, "Date of birth"), (155, "NHS number")],
            [(55, "25-Feb-1983"), (155, "603 072 8458")],
            [(55, "Address"), (155, "Postcode")],
            [(55, "80A Priory Gardens"), (155, "YO31 8DU")],
            [(55, "York")],
            [(50, "Referring optometrist")],
            [(55, "Name"), (155, "Practice")],
            [(55, "Mr Sunil Mehta"), (155, "Mehta Eyecare")],
            [(55, "Address")],
            [(55, "8 Orchard Close, Reigate RH2 7AA")],
            [(50, "Signed: Mr Sunil Mehta")],
        ]
        let patient = try #require(read(rows).first)
        #expect(patient.patient?.fullName == "Zofia Anderson-Dixon" && patient.patient?.dateOfBirth == "25/02/1983")
        #expect(patient.patient?.nhsNumber == "603 072 8458")
        #expect(patient.address?.postcode == "YO31 8DU")
        #expect(read(rows).allSatisfy { $0.patient?.fullName != "Sunil Mehta" })
    }

    /// A form's row of labels (`DOB  Hospital Number  Home address`) with the address under its
    /// own label, beside the patient's: the address is the patient's.
    @Test func anAddressInARowOfThePatientsLabelsIsThePatients() throws {
        let rows: [[(x: Double, text: String)]] = [
            [(200, "Optometrist Referral")], [], [(50, "Patient details")],
            [(55, "Family name"), (150, "Given name"), (240, "Title")],
            [(55, "DALY"), (150, "Beatrice"), (240, "Miss")],
            [(55, "DOB"), (150, "Hospital Number"), (260, "Home address")],
            [(55, "21/04/1971"), (150, "H509711"), (260, "14 Holly Rise")],
            [(260, "Nutfield")], [(260, "Reigate")],
            [(55, "Postcode"), (150, "Telephone")],
            [(55, "RH2 7AA"), (150, "01333 115554")],
        ]
        let patient = try #require(read(rows).first { $0.addressType == "patient" })
        #expect(patient.patient?.fullName == "Beatrice Daly" && patient.address?.line1 == "14 Holly Rise" && patient.address?.postcode == "RH2 7AA")
    }

    /// A `Re:` line whose numbers wrap onto a line of their own, its address on the line after;
    /// and an address both the letter and the labels read, the letter's first line failing its
    /// check (`Case` of `Case note number: …`): the labels' lines are written.
    @Test func aReLinesAddressAfterItsWrappedNumbers() throws {
        let wrapped = Self.letterhead + [
            [(50, "Dear Professor Marsh,")],
            [(50, "Re: O'NEILL, Ibrahim, Date of birth: 09.05.1948, NHS Number: 943 476 5919, Case note number:")],
            [(50, "K8028755")], [(50, "46 Meadow Way, Reigate RH2 7AA")],
            [(50, "I saw him in clinic today and we discussed the plan at length with the family.")],
        ]
        let patient = try #require(read(wrapped).first { $0.addressType == "patient" })
        #expect(patient.patient?.fullName == "Ibrahim O'Neill" && patient.address?.line1 == "46 Meadow Way" && patient.address?.postcode == "RH2 7AA")
        let numbers = Self.letterhead + [
            [(50, "Dr M Shaw")], [(50, "Station Road Surgery")], [(50, "75 Park View")], [(50, "Leeds LS1 4AP")], [],
            [(50, "Dear Dr Shaw,")],
            [(50, "Re: FATIMA DALY D.O.B. : 12.12.1995")],
            [(50, "Case note number : RH19922225 NHS Number : 943 476 5919")],
            [(50, "80 Orchard Close, Reigate RH2 7AA")],
            [(50, "We discussed the options, including the risks and the expected benefits of treatment.")],
        ]
        let labelled = try #require(read(numbers).first { $0.addressType == "patient" })
        #expect(labelled.patient?.fullName == "Fatima Daly" && labelled.address?.line1 == "80 Orchard Close" && labelled.address?.city == "Reigate")
    }

    /// A header in two columns: the patient's labelled block beside the consultant's.
    @Test func aPatientBlockBesideTheConsultantsIsThePatients() throws {
        let rows = Self.letterhead + [
            [(50, "Patient name: RAHMAN, Joan (Mrs)"), (320, "Consultant: Mr Luke Herbert")],
            [(50, "D.O.B.: 23.04.1973"), (320, "Clinic date: 21/02/2026")],
            [(50, "Hosp No: K8656702"), (320, "Typed by: lm")],
            [(50, "Home address: 42A Meadow Way,")],
            [(50, "Reigate RH2 7AA")], [],
            [(50, "Dear Dr Fraser,")],
        ]
        let patient = try #require(read(rows).first)
        #expect(patient.patient?.fullName == "Joan Rahman" && patient.patient?.mrn == "K8656702" && patient.address?.line1 == "42A Meadow Way")
        #expect(patient.patient?.dateOfBirth == "23/04/1973")
    }

    /// Two readings that name two people (a table and a `Re:` line): no patient is written.
    @Test func readingsThatDisagreeWriteNoPatient() throws {
        let rows = Self.letterhead + [
            [(50, "Dear Dr Patel,")],
            [(50, "Re: Mrs Jane Brown, DOB: 12/03/1945, 14 Oak Lane, Reigate RH2 7AA")], [],
            [(50, "Patient"), (150, "John SMITH")],
            [(50, "Date of birth"), (150, "01/01/1950")],
            [(50, "NHS number"), (150, "943 476 5919")], [],
            [(50, "I saw them in clinic today and we discussed the plan at length with the family.")],
        ]
        #expect(read(rows).first { $0.addressType == "patient" } == nil)
        // Two names under one label column: which is the patient is not known.
        let twice = Self.letterhead + [
            [(50, "Name"), (150, "John SMITH")], [(50, "Date of birth"), (150, "01/01/1950")], [(50, "Name"), (150, "Jane BROWN")],
        ]
        #expect(read(twice).first { $0.addressType == "patient" } == nil)
    }

    /// Every value is checked before it is written: an NHS number whose check digit fails, a
    /// date of birth after the letter's date, a postcode of a sector that does not exist, a
    /// label's word as a name: each left out, never written.
    @Test func aValueThatFailsItsCheckIsNotWritten() throws {
        func patient(_ details: [[(x: Double, text: String)]]) -> AddressPage? {
            read(Self.letterhead + [[(50, "21 March 2026")], []] + details).first { $0.addressType == "patient" }
        }
        let nhs = try #require(patient([[(50, "Patient"), (150, "John SMITH")], [(50, "NHS number"), (150, "943 476 5918")],
                                        [(50, "Date of birth"), (150, "01/01/1950")]]))
        #expect(nhs.patient?.fullName == "John Smith" && nhs.patient?.nhsNumber == nil)
        // A "date of birth" that is the page's latest date is the letter's: none, and so no patient on a name alone.
        #expect(patient([[(50, "Patient"), (150, "John SMITH")], [(50, "Date of birth"), (150, "22/03/2026")]]) == nil)
        let postcode = try #require(patient([[(50, "Patient"), (150, "John SMITH")], [(50, "Date of birth"), (150, "01/01/1950")],
                                             [(50, "Address"), (150, "14 Oak Lane, Reigate RH2 3ZZ")]]))
        #expect(postcode.address == nil, "RH2 3 is no sector")
        #expect(patient([[(50, "Patient"), (150, "Title Mr")], [(50, "Date of birth"), (150, "01/01/1950")]]) == nil)
        // The hospital's own telephone in its letterhead is never the patient's.
        let phone = try #require(patient([[(50, "Patient"), (150, "John SMITH")], [(50, "Date of birth"), (150, "01/01/1950")],
                                          [(50, "Telephone"), (150, "01737 123456")]]))
        #expect(phone.patient?.phones?.home == "01737 123456")
        #expect(patient([[(50, "Patient"), (150, "John SMITH")], [(50, "Date of birth"), (150, "01/01/1950")]])?.patient?.phones == nil)
    }

    /// A value with a word OCR was unsure of is not written: a name read at 6% is no name.
    @Test func aWordOCRWasUnsureOfIsNoFact() throws {
        let rows = Self.letterhead + [[(50, "Name:"), (150, "Mrs Jane BRANN")], [(50, "DOB:"), (150, "12/03/1945")], [(50, "NHS No:"), (150, "943 476 5919")]]
        let words = Self.page(rows).map { word in
            var word = word
            if word.text == "BRANN" { word.confidence = 0.06 }
            return word
        }
        #expect(cascade.document("Letter", laidOutPages: [(1, Self.text(rows), Self.page(rows))]).first?.patient?.fullName == "Jane Brann")
        #expect(cascade.document("Letter", laidOutPages: [(1, Self.text(rows), words)]).first { $0.addressType == "patient" } == nil)
    }

    /// A word OCR was half sure of that a value gives with a letter made a digit (`ONY` read at
    /// 0.47 where the page says `9NY`) is no fact; the same word read surely, or read as the
    /// digit it is, is. A GP OCR was unsure of in a copy is not the letter's GP on any page.
    @Test func aLetterOCRMayHaveMisreadAsADigitIsNoFact() throws {
        func address(_ read: String, confidence: Double) -> AddressPage.Address? {
            let rows = Self.letterhead + [[(50, "Name:"), (150, "Mr John SMITH")], [(50, "DOB:"), (150, "12/03/1945")],
                                          [(50, "Address:"), (150, "117 Holly Rise, Aylesbury HP22 \(read)")]]
            let words = Self.page(rows).map { word in
                var word = word
                if word.text == read { word.confidence = confidence }
                return word
            }
            return cascade.document("Letter", laidOutPages: [(1, Self.text(rows), words)]).first { $0.addressType == "patient" }?.address
        }
        #expect(address("ONY", confidence: 0.97)?.postcode == "HP22 0NY")
        #expect(address("ONY", confidence: 0.47)?.postcode == nil)
        #expect(address("0NY", confidence: 0.47)?.postcode == "HP22 0NY")

        func gp(_ confidence: Double) -> AddressPage.GP? {
            let rows = Self.letterhead + [
                [(50, "Dear Mr Quigley,")], [(50, "Re: Mr Edward QUIGLEY DOB: 21/07/2003 NHS No: 943 476 5919")], [],
                [(50, "I saw you in clinic today and we discussed the plan at length with your family.")],
                [(50, "Yours sincerely,")], [(50, "Mr L Arblaster")], [(50, "Consultant Ophthalmologist")],
                [(50, "cc: Dr M MiicKionvic, Oak Tree Family Practice, 102 Priory Gardens, Reigate RH2 7AA")],
            ]
            let words = Self.page(rows).map { word in
                var word = word
                if word.text == "MiicKionvic," { word.confidence = confidence }
                return word
            }
            return cascade.document("Letter", laidOutPages: [(1, Self.text(rows), words)]).first { $0.addressType == "patient" }?.gp
        }
        #expect(gp(0.96)?.name == "Dr M MiicKionvic")
        #expect(gp(0)?.name == nil)
    }

    /// A scan's speck OCR was half sure of beside a label (`_ Address:`), and a table's rule read
    /// as `|` between a label and its value, are no words of the page: the label is read.
    @Test func specksAndRulesBesideALabelAreNoWords() throws {
        let rows = Self.letterhead + [[(50, "Name:"), (150, "Mr John SMITH")], [(50, "DOB:"), (150, "12/03/1945")],
                                      [(44, "_ Address:"), (150, "| 14 Oak Lane, Reigate RH2 7AA")]]
        let words = Self.page(rows).map { word in
            var word = word
            word.confidence = word.text == "_" ? 0.52 : 0.95
            return word
        }
        let patient = try #require(cascade.document("Letter", laidOutPages: [(1, Self.text(rows), words)]).first { $0.addressType == "patient" })
        #expect(patient.address?.line1 == "14 Oak Lane" && patient.address?.postcode == "RH2 7AA")
    }

    /// An address wrapped in a narrow column is read as it was written before the wrap: a run
    /// of parts with commas (`186 Foxglove` / `Drive, Reigate`), a street's last word alone
    /// (`212A High` / `Street`), a town of the table whose name has commas or was broken at its
    /// hyphen (`Ashton-in-` / `Makerfield`); lines written one
    /// a line stay so; a line broken where no line ends (`217 The`) is never written.
    @Test func anAddressWrappedInANarrowColumnIsReadWhole() throws {
        func address(_ lines: [String]) -> AddressPage.Address? {
            var rows = Self.letterhead + [[(50, "Patient:"), (150, "John SMITH")], [(50, "DOB:"), (150, "01/01/1950")]]
            for (index, line) in lines.enumerated() { rows.append(index == 0 ? [(50, "Address:"), (150, line)] : [(150, line)]) }
            return read(rows).first { $0.addressType == "patient" }?.address
        }
        let run = try #require(address(["186 Foxglove", "Drive, Reigate", "RH2 7AA"]))
        #expect(run.line1 == "186 Foxglove Drive" && run.line2 == nil && run.city == "Reigate")
        let street = try #require(address(["212A High", "Street", "Reigate", "RH2 7AA"]))
        #expect(street.line1 == "212A High Street" && street.city == "Reigate")
        let lines = try #require(address(["Flat 2, 10 High Street", "Reigate", "RH2 7AA"]))
        #expect(lines.line1 == "Flat 2" && lines.line2 == "10 High Street" && lines.city == "Reigate")
        let town = try #require(address(["22 Queens Terrace,", "Chafford Hundred,", "West Thurrock and", "Purfleet-on-Thames", "RM20 4UT"]))
        #expect(town.line1 == "22 Queens Terrace" && town.line2 == nil && town.city == "Chafford Hundred, West Thurrock and Purfleet-on-Thames")
        let hyphen = try #require(address(["120 Oak Lane, Ashton-in-", "Makerfield WN4 9WE"]))
        #expect(hyphen.line1 == "120 Oak Lane" && hyphen.city == "Ashton-in-Makerfield")
        let broken = try #require(address(["217 The", "Crescent", "Nutfield and South Merstham", "RH1 4AB"]))
        #expect(broken.line1 == nil && broken.line2 == nil)
    }

    /// Two mentions of the patient that disagree on the first name (a `Re:` line OCR misread, a
    /// copy to her), or a name whose two words the page writes as one (`STAN LEY` for `Stanley`):
    /// no patient.
    @Test func aNameThePageContradictsIsNoPatient() throws {
        let copy = Self.letterhead + [
            [(50, "Dear Dr Patel,")], [(50, "Re: Jaan NOWAK DOB: 23/05/1928 NHS No: 943 476 5919")], [],
            [(50, "I saw her in clinic today and we discussed the plan at length with the family.")],
            [(50, "Yours sincerely,")], [(50, "Mr L Arblaster")], [(50, "Consultant Ophthalmologist")],
            [(50, "cc: Mrs Joan Nowak, 14 Oak Lane, Reigate RH2 7AA")],
        ]
        #expect(read(copy).first { $0.addressType == "patient" } == nil)
        let split = Self.letterhead + [
            [(50, "Name:"), (150, "Mr STAN LEY LLEWELLYN")], [(50, "DOB:"), (150, "12/03/1945")], [(50, "NHS No:"), (150, "943 476 5919")], [],
            [(50, "Stanley reports a gradual change over the last six months, and we discussed it.")],
        ]
        #expect(read(split).first { $0.addressType == "patient" } == nil)
        let whole = split.dropLast() + [[(50, "He reports a gradual change over the last six months, and we discussed it.")]]
        #expect(read(Array(whole)).first?.patient?.fullName == "Stan Ley Llewellyn", "without the page's word, the name is what its label says")
    }

    /// Pages no paperwork is (a line of thousands of labels, thousands of one-word lines, words
    /// piled on one place) are read without harm, and give no patient.
    @Test func hostileLayoutsAreReadWithoutHarm() {
        let oneLine = (0..<6000).map { PlacedWord(text: $0 % 2 == 0 ? "Name:" : "DOB:", x0: Double($0) * 3, y0: 100, x1: Double($0) * 3 + 2, y1: 110) }
        let column = (0..<6000).map { PlacedWord(text: "Address", x0: 50, y0: Double($0) * 12, x1: 90, y1: Double($0) * 12 + 10) }
        let pile = (0..<6000).map { PlacedWord(text: "Patient \($0)", x0: 50, y0: 50, x1: 90, y1: 60) }
        for words in [oneLine, column, pile, []] {
            #expect(cascade.document("Letter", laidOutPages: [(1, "Name: DOB: 12/03/1945", words)]).allSatisfy { $0.extraction?.method != "fields" })
        }
    }

    /// A patient's name and nothing that identifies them (no date of birth, hospital or NHS
    /// number): thin evidence, not read from the labels.
    @Test func aNameAloneIsNoPatientOfTheLabels() throws {
        let rows = Self.letterhead + [[(50, "Patient"), (150, "John SMITH")], [(50, "Address"), (150, "14 Oak Lane, Reigate RH2 7AA")]]
        #expect(read(rows).first { $0.extraction?.method == "fields" } == nil)
    }
}

import Foundation
import Testing
import YianaArchive
import YianaExtract
import YianaTestSupport

/// Clinic letters read as UK clinical correspondence (issue 53): the patient from the `Re:`
/// line or the addressee, never the consultant who signed; the GP from a `cc:`; everyone else
/// in their role.
@Suite("letters")
struct LetterTests {
    let cascade = AddressCascade()

    static let fixtures = Fixtures.packageRoot.appendingPathComponent("Tests/YianaExtractTests/Fixtures/letters")

    /// The generated letters (Scripts/generate/letter-fixtures.sh: the app's letters in their three
    /// copies, other hospitals' in five layouts, scans of both recognised by tesseract), their
    /// pages as `extract` reads them, scored by Scripts/bench/letters-score.py. The issue's goals:
    /// name, date of birth, MRN, postcode and GP name on every page; line_1 and town on 95%; the
    /// signer or sender the patient on none.
    @Test func everyGeneratedLetterNamesItsPatientAndNeverItsSigner() async throws {
        let fixtures = try AppExtractionFixtures(at: Self.fixtures.appendingPathComponent("pages.json"))
        #expect(fixtures.documents.count == 156)
        let folder = try TemporaryFolder()
        let addresses = folder.url.appendingPathComponent(".addresses")
        try FileManager.default.createDirectory(at: addresses, withIntermediateDirectories: true)
        for document in fixtures.documents {
            let pages = cascade.document(document.id, pages: document.pages)
            try JSONEncoder().encode(["pages": pages]).write(to: addresses.appendingPathComponent("\(document.id).json"))
        }
        let scorer = Fixtures.packageRoot.appendingPathComponent("Scripts/bench/letters-score.py").path
        let run = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                       ["python3", scorer, Self.fixtures.appendingPathComponent("truth.json").path, folder.url.path, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let counts = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: [String: [Int]]])
        let misses = try await runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["python3", scorer, Self.fixtures.appendingPathComponent("truth.json").path, folder.url.path, "--misses"]).stdout
        // Every group was there to be scored: the app's three copies, five other layouts, scans.
        #expect(counts.keys.filter { $0.hasPrefix("app: ") }.count == 3 && counts.keys.filter { $0.hasPrefix("other-") }.count >= 8)
        #expect(counts.keys.contains("scans (app)") && counts.keys.contains("scans (other)"))
        for (group, fields) in counts {
            for field in ["name", "date of birth", "mrn", "postcode", "gp name"] {
                guard let cell = fields[field] else { continue }
                #expect(cell[0] == cell[1], "\(group) \(field): \(cell[0]) of \(cell[1])\n\(misses)")
            }
            if let signer = fields["signer as patient"] { #expect(signer[0] == signer[1], "\(group): the signer named as the patient\n\(misses)") }
        }
        let all = try #require(counts["all"])
        for field in ["line_1", "city"] {
            let cell = try #require(all[field])
            #expect(Double(cell[0]) >= 0.95 * Double(cell[1]), "\(field): \(cell[0]) of \(cell[1])\n\(misses)")
        }
        #expect(all["name"]?[1] ?? 0 >= 200 && all["nhs number"]?[1] ?? 0 >= 20 && all["others"]?[1] ?? 0 >= 60)
    }

    /// The app's own letter as its template lays it out: the sender block and the signer are the
    /// consultant; the `Re:` line the patient, her address on one line split by its postcode; the
    /// `Cc:` lines her GP (into `gp`) and her optician (an entry of his own).
    @Test func theAppsLetterGivesThePatientHerGPAndHerOptician() throws {
        let page = """
            Mr Luke Herbert MBBS BSc FRCOphth
            Consultant Ophthalmologist
            Ophthalmology Department
            Tuesday, 3rd March 2026.
            Re: Mrs Jane O'Brien-Smith. DOB: 1945-03-12. MRN: H123456. Add: Rose Cottage Church Road Reigate Surrey RH2 7AA. Tel: 01737
            123456.
            Please see below a copy of a letter I sent to Mrs O'Brien-Smith today.
            Thank you for asking me to see Mrs O'Brien-Smith, who attended with her daughter, Mrs Karen Jones of 3 Station Road, Dorking RH4 1AA.
            Mr Luke Herbert
            Cc: Dr A Patel Reigate Medical Centre 12 High Street, Reigate, RH2 9AE.
            Cc: Mr B Jones Reigate Opticians 5 Bell Street, Reigate, RH2 7AB.
            Secretary: Mrs J Davies | Tel: 01737 768511 ext 1234 | Email: j.davies@nhs.net
            East Surrey Hospital | Canada Avenue, Redhill, Surrey, RH1 5RH | Tel: 01737 768511
            """
        let pages = cascade.document("Letter of 3 March", pages: [(1, page)])
        let patient = try #require(pages.first)
        #expect(patient.addressType == "patient" && patient.extraction?.method == "letter")
        #expect(patient.patient?.fullName == "Jane O'Brien-Smith" && patient.patient?.dateOfBirth == "12/03/1945" && patient.patient?.mrn == "H123456")
        #expect(patient.patient?.phones?.home == "01737 123456")
        #expect(patient.address == AddressPage.Address(line1: "Rose Cottage", line2: "Church Road", city: "Reigate", county: "Surrey", postcode: "RH2 7AA"))
        #expect(patient.gp == AddressPage.GP(name: "Dr A Patel", practice: "Reigate Medical Centre", address: "12 High Street, Reigate", postcode: "RH2 9AE"))
        let optician = try #require(pages.dropFirst().first)
        #expect(optician.addressType == "optician" && optician.patient?.fullName == "B Jones" && optician.address?.line1 == "Reigate Opticians")
        #expect(optician.address?.line2 == "5 Bell Street" && optician.address?.postcode == "RH2 7AB" && pages.count == 2)
    }

    /// Another hospital's letter to the GP: the window is the GP's (into `gp`), the Re: block the
    /// patient's with her hospital and NHS numbers (the NHS number under a key the app passes
    /// over, never taken for a phone), the letterhead's and footer's postcodes never hers.
    @Test func aLetterToTheGPNamesThePatientOfItsReLine() throws {
        let page = """
            Surrey and Sussex Healthcare NHS Trust
            East Surrey Hospital
            Canada Avenue
            Redhill
            RH1 5RH
            Dr M Patel Monday 3 March 2026
            Station Road Family Practice Our ref: G80/3409
            53 The Crescent
            Harwell
            OX11 0HZ
            Dear Dr Patel,
            RE: OLWEN THISTLETHWAITE-JONES  D.O.B. 28.07.1950  HOSPITAL NO: K9945489  NHS NO: 943
            476 5919
            FLAT 6, 134 THE CRESCENT, DERBY DE22 4FE
            I saw Mrs Thistlethwaite-Jones today with her son, Mr Peter Grant of 72 Bell Street, Eastbourne BN20 0FT.
            Yours sincerely,
            Dr Amelia Stone MD FRCP
            Consultant Cardiologist
            cc: Mrs Olwen Thistlethwaite-Jones, Flat 6, 134 The Crescent, Derby DE22 4FE
            """
        let entry = try #require(cascade.page(page, number: 1))
        #expect(entry.patient?.fullName == "Olwen Thistlethwaite-Jones" && entry.patient?.dateOfBirth == "28/07/1950")
        #expect(entry.patient?.mrn == "K9945489" && entry.patient?.nhsNumber == "943 476 5919" && entry.patient?.phones == nil)
        #expect(entry.address?.line1 == "Flat 6" && entry.address?.line2 == "134 The Crescent" && entry.address?.city == "Derby" && entry.address?.postcode == "DE22 4FE")
        #expect(entry.gp?.name == "Dr M Patel" && entry.gp?.practice == "Station Road Family Practice" && entry.gp?.postcode == "OX11 0HZ")
        // Its JSON: the app's keys, and ours beside them.
        let json = String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        #expect(json.contains(#""nhs_number":"943 476 5919""#) && json.contains(#""mrn":"K9945489""#))
    }

    /// A specialist the letter was copied to is an entry of their own, their role as the app's
    /// `specialist_name`, their hospital the first line of their address.
    @Test func aSpecialistCopiedIsAnEntryOfTheirOwn() throws {
        let page = """
            Re: Mrs Jane Smith, DOB 12/03/1945, Hospital No: H123456
            14 Oak Lane, Reigate, Surrey RH2 7AA
            Dear Mrs Smith,
            I have asked my colleague to see you about your heart.
            Yours sincerely,
            Mr Luke Herbert
            Consultant Ophthalmologist
            cc: Dr A Patel, Reigate Medical Centre, 12 High Street, Reigate RH2 9AE
            cc: Mr P Grant, Consultant Cardiologist, St Mary's Hospital, Praed Street, London W2 1NY
            """
        let entries = cascade.document("Letter", pages: [(1, page)])
        #expect(entries.map(\.addressType) == ["patient", "specialist"])
        #expect(entries.first?.gp?.name == "Dr A Patel" && entries.first?.patient?.fullName == "Jane Smith")
        let specialist = try #require(entries.last)
        #expect(specialist.patient?.fullName == "P Grant" && specialist.specialistName == "Consultant Cardiologist")
        #expect(specialist.address?.line1 == "St Mary's Hospital" && specialist.address?.line2 == "Praed Street" && specialist.address?.postcode == "W2 1NY")
        let json = String(decoding: try JSONEncoder().encode(specialist), as: UTF8.self)
        #expect(json.contains(#""address_type":"specialist""#) && json.contains(#""specialist_name":"Consultant Cardiologist""#))
    }

    /// A letter to the patient without a Re: line: the window's person, spoken to by the
    /// salutation, their numbers from the reference block; the signer never.
    @Test func aLetterToThePatientNamesItsAddressee() throws {
        let page = """
            Frimley Park Hospital
            Portsmouth Road
            Frimley
            GU16 7UJ
            Miss Harriet D'Souza 21/01/2026
            207 High Street Our ref: D36/7451
            Lower Kingswood DOB: 11/11/1973
            Harpenden Hospital No: H933571
            AL5 1YE NHS No: 556 638 3033
            Dear Miss D'Souza,
            Thank you for coming to the clinic today with your husband, Mr Tom Hughes.
            Yours sincerely
            Dr Amelia Stone
            Consultant Cardiologist
            """
        let entry = try #require(cascade.page(page, number: 1))
        #expect(entry.patient?.fullName == "Harriet D'Souza" && entry.patient?.dateOfBirth == "11/11/1973" && entry.patient?.mrn == "H933571")
        #expect(entry.patient?.nhsNumber == "556 638 3033" && entry.address?.line1 == "207 High Street" && entry.address?.postcode == "AL5 1YE")
    }

    /// What a letter does not say stays out: a letter with no Re: line and no addressee names no
    /// patient, not the consultant who signed, nor someone its body mentions at the hospital's
    /// address; the app's extractors still read a letter whose patient they can tell.
    @Test func noGuessIsWrittenAsAFact() throws {
        let signedOnly = """
            Department of Cardiology, East Surrey Hospital, Canada Avenue, Redhill RH1 5RH
            Dear Colleague,
            I reviewed this patient with Dr Amelia Stone today.
            Yours sincerely,
            Mr Luke Herbert
            Consultant Ophthalmologist
            East Surrey Hospital
            Canada Avenue
            Redhill
            RH1 5RH
            """
        #expect(cascade.page(signedOnly, number: 1) == nil)
        // A Re: line that names a subject, not a person, is no patient.
        #expect(cascade.page("Re: Annual Review\nDear Colleague,\nI saw her with Dr Amelia Stone of 3 Mill Lane, Reigate RH2 7AA.\nYours sincerely,\nMr Luke Herbert", number: 1) == nil)
        #expect(cascade.page("RE-ADMISSION SUMMARY\nDear Colleague,\nYours sincerely,\nMr Luke Herbert\nEast Surrey Hospital, Redhill RH1 5RH", number: 1) == nil)
        let labelled = "Clinical Correspondence\n\nPatient name: Neel Cross\n\nAddress: 52 Pine Road\nReigate\nRH2 7AA\n\nDear Colleague,\nYours sincerely,\n\nConsultant Surgeon"
        let entry = try #require(cascade.page(labelled, number: 1))
        #expect(entry.patient?.fullName == "Neel Cross" && entry.extraction?.method == "form" && entry.address?.postcode == "RH2 7AA")
    }

    /// Every page of a letter is its patient's: a second page (its header `Page 2`, the rest of
    /// the body, the signer and the copies) takes the patient of the first and gives the letter its GP.
    @Test func aLettersSecondPageIsItsPatients() throws {
        let first = "Dr Amelia Stone MD FRCP\nConsultant Cardiologist\nRe: Dr Peter Greaves. DOB: 19/04/1976. MRN: 0073456115.\nAdd: 14 Oak Lane Reigate RH2 7AA.\n"
            + "Dear Dr Greaves,\nI saw you in the clinic with your daughter, Mrs Ann Bell, who has moved from 88 Queens Terrace, Langstone NP18 2AQ."
        let second = "Mrs Ann Bell\n9 Queens Terrace\nLangstone\nNP18 2AQ\nshe was well when I saw her today.\nDr Amelia Stone\n"
            + "Cc: Dr J Fraser The Birches Medical Centre 5 Victoria Avenue, Green\u{AD}\nwich, SE7 9QR.\nPage 2"
        let pages = cascade.document("Greaves letter", pages: [(1, first), (2, second)])
        #expect(pages.map(\.pageNumber) == [1, 2] && pages.allSatisfy { $0.patient?.fullName == "Peter Greaves" && $0.patient?.mrn == "0073456115" })
        #expect(pages.allSatisfy { $0.gp?.name == "Dr J Fraser" && $0.gp?.address == "5 Victoria Avenue, Greenwich" && $0.gp?.postcode == "SE7 9QR" })
    }

    /// An address written on one line, cut where its lines were joined.
    @Test(arguments: [
        ("14 Oak Lane Reigate Surrey", "RH2 7AA", "14 Oak Lane", nil, "Reigate", "Surrey"),
        ("Flat 9 8 Orchard Close Reigate", "RH2 7AA", "Flat 9", "8 Orchard Close", "Reigate", "Surrey"),
        ("7 Church Road South Park Reigate", "RH2 7AA", "7 Church Road", "South Park", "Reigate", "Surrey"),
        ("The Old Forge Park View Reigate", "RH2 7AA", "The Old Forge", "Park View", "Reigate", "Surrey"),
        ("12 Old Mill Lane Reigate", "RH2 7AA", "12 Old Mill Lane", nil, "Reigate", "Surrey"),
        ("FLAT 20, 2 ST MARY'S WALK, REIGATE", "RH2 7AA", "Flat 20", "2 St Mary's Walk", "Reigate", "Surrey"),
        ("19 Kingsway Sutton in Ashfield Nottinghamshire", "NG17 1HD", "19 Kingsway", nil, "Sutton in Ashfield", "Nottinghamshire"),
    ] as [(String, String, String, String?, String, String)])
    func anAddressOnOneLineIsSplitIntoItsLines(_ text: String, _ postcode: String, _ line1: String, _ line2: String?, _ city: String, _ county: String) {
        let address = OneLineAddressProbe.split(text, postcode: postcode)
        #expect(address.line1 == line1 && address.line2 == line2 && address.city == city && address.county == county && address.postcode == postcode,
                "\(address)")
    }

    /// NHS numbers: ten digits whose modulus-11 check holds; a misread digit, eleven digits (a
    /// phone) and a check of 10 are none.
    @Test func nhsNumbersAreCheckedAndNeverPhones() throws {
        #expect(cascade.page("Re: Mr John Smith, NHS No: 943 476 5919, Tel: 01737 123456\n14 Oak Lane, Reigate RH2 7AA", number: 1)?.patient?.nhsNumber == "943 476 5919")
        #expect(cascade.page("Re: Mr John Smith, NHS No: 943 476 5918\n14 Oak Lane, Reigate RH2 7AA", number: 1)?.patient?.nhsNumber == nil)
        let phone = try #require(cascade.page("Re: Mr John Smith, Tel: 9434765919 or 01737 123456\n14 Oak Lane, Reigate RH2 7AA", number: 1))
        #expect(phone.patient?.nhsNumber == nil && phone.patient?.phones?.home == "01737 123456")
    }
}

/// `OneLineAddress` through the cascade's public face: a `Re:` line holding only the address.
enum OneLineAddressProbe {
    static func split(_ text: String, postcode: String) -> AddressPage.Address {
        let page = "Re: Mr John Smith. DOB: 01/01/1950. Add: \(text) \(postcode).\nDear Mr Smith,"
        return AddressCascade().page(page, number: 1)?.address ?? AddressPage.Address()
    }
}

import Foundation
import Testing
@testable import YianaExtract

/// Each value's own check, case by case (what `FactCheck` lets through and what it stops).
struct FactCheckTests {
    let check = FactCheck(sectors: .shared, pageText: "Clinic date: 21/03/2026\nDOB: 12/03/1945", now: Date(timeIntervalSince1970: 1_796_000_000))

    @Test func todayIsTheCalendarsDate() {
        #expect(FactCheck.civil(daysSince1970: 0) == (1970, 1, 1))
        #expect(FactCheck.civil(daysSince1970: 11_016) == (2000, 2, 29))
        #expect(FactCheck.civil(daysSince1970: 20_794) == (2026, 12, 7))
        #expect(FactCheck.civil(daysSince1970: -1) == (1969, 12, 31))
        #expect(check.today == (2026, 11, 30))
    }

    @Test func aDateOfBirthIsRealPastAndBeforeTheLettersDate() {
        #expect(check.isDateOfBirth("12/03/1945"))
        #expect(!check.isDateOfBirth("22/03/2026"), "after every other date of the page: the letter's")
        #expect(!check.isDateOfBirth("01/01/1880") && !check.isDateOfBirth("01/01/2027"))
        #expect(FactCheck(sectors: .shared, pageText: "no other date", now: Date(timeIntervalSince1970: 1_796_000_000)).isDateOfBirth("22/03/2026"))
    }

    @Test func identifiersAndPostcodesAreChecked() {
        #expect(FactCheck.isNHSNumber("943 476 5919") && !FactCheck.isNHSNumber("943 476 5918") && !FactCheck.isNHSNumber("943-476-5919x"))
        #expect(FactCheck.isHospitalNumber("K123456", nhs: nil) && FactCheck.isHospitalNumber("0012386780", nhs: nil))
        #expect(!FactCheck.isHospitalNumber("9434765919", nhs: "943 476 5919"), "the NHS number is no hospital number")
        #expect(!FactCheck.isHospitalNumber("01737123456", nhs: nil) && !FactCheck.isHospitalNumber("12/03/1945", nhs: nil) && !FactCheck.isHospitalNumber("ABC", nhs: nil))
        #expect(check.isPostcode("RH2 7AA") && !check.isPostcode("RH2 3ZZ"), "RH2 3 is no sector")
        #expect(check.isPostcode("EH1 1YZ"), "a Scottish area the table does not hold: its form alone")
        #expect(check.isPostcode("RH2 3ZZ", formOnly: true) && !check.isPostcode("RH23ZZ X"))
        #expect(!check.isPostcode("C03 4LD") && check.isPostcode("CO3 4LD"), "no area C: a CO3 read with a zero")
    }

    @Test func namesAndAddressLinesHoldNoLabelNumberOrDate() {
        #expect(FactCheck.isPersonName("Jane O'Brien") && FactCheck.isPersonName("Mary-Anne St John") && FactCheck.isPersonName("Karen"))
        #expect(!FactCheck.isPersonName("Title Mr") && !FactCheck.isPersonName("Date Of Birth") && !FactCheck.isPersonName("Riverside Surgery"))
        #expect(!FactCheck.isPersonName("Jane Smith 12") && !FactCheck.isPersonName("Fatima Ellis-") && !FactCheck.isPersonName("jane smith"))
        #expect(FactCheck.isAddressLine("14 Oak Lane") && FactCheck.isAddressLine("Rose Cottage") && FactCheck.isAddressLine("Flat 5"))
        #expect(FactCheck.isAddressLine("City and County of the City of London"), "a town's long name is no sentence")
        #expect(FactCheck.withoutSpecks("Rose. Cottage") == "Rose Cottage" && FactCheck.withoutSpecks("14 Oak . Lane") == "14 Oak Lane")
        #expect(FactCheck.withoutSpecks("12 St. Mary's Walk") == "12 St. Mary's Walk")
        for line in ["Date of birth 17 12 1963", "NHS No: 943 476 5919", "12/03/1945", "01737 123456", "943 476 5919", "Case", "Mr Flat 5",
                     "I saw her in clinic today with her daughter and we talked", "217 The", "Crescent", "West Thurrock and"] {
            #expect(!FactCheck.isAddressLine(line), "\(line)")
        }
    }

    /// A county known with a scan's speck after it (`Lincolnshire .`) is the county, and the town the line before it.
    @Test func aCountyWithASpeckIsTheCounty() {
        let address = AddressPage.Address(lines: ["Willow Barn", "Queens Terrace", "Boston", "Lincolnshire ."], postcodeLine: "PE21 6TJ",
                                          postcode: "PE21 6TJ", sectors: .shared)
        #expect(address.line1 == "Willow Barn" && address.line2 == "Queens Terrace" && address.city == "Boston" && address.county == "Lincolnshire")
    }

    /// A town OCR misread is all but its postcode's sector's town; another place's name is not.
    @Test func aMisreadTownIsToldFromAnotherPlace() {
        #expect(FactCheck.isMisreading("Bowser Regis", of: "Bognor Regis") && FactCheck.isMisreading("Cwmbran", of: "Cwmbrân"))
        #expect(FactCheck.isMisreading("South Darenth and Sutton at Hens", of: "South Darenth and Sutton at Hone"))
        #expect(!FactCheck.isMisreading("Hope", of: "Hove") && !FactCheck.isMisreading("Reigate", of: "Redhill"))
        #expect(!FactCheck.isMisreading("Kingston", of: "Kingston upon Thames"))
    }

    /// A word OCR read at under 60% is doubtful in a hospital number (no check digit holds it) even when given as read.
    @Test func aHalfSureWordIsNoHospitalNumber() {
        let words = [PlacedWord(text: "Hosp", x0: 50, y0: 100, x1: 72, y1: 110, confidence: 0.97),
                     PlacedWord(text: "3700970", x0: 120, y0: 100, x1: 160, y1: 110, confidence: 0.45)]
        let doubt = OCRDoubt(PageLayout(words: words))
        #expect(!doubt.contains("3700970") && doubt.contains("3700970", halfSure: true))
        #expect(!doubt.contains("K8656702", halfSure: true))
    }
}

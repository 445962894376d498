import Foundation

/// One page's person and address, as the app's `AddressPageEntry` (lh/Yiana,
/// YianaExtraction `AddressSchema.swift`) encodes it: snake_case keys, a missing value
/// left out rather than written as null.
public struct AddressPage: Codable, Sendable, Equatable {
    public struct Phones: Codable, Sendable, Equatable {
        public var home: String?
        public var work: String?
        public var mobile: String?
    }

    public struct Patient: Codable, Sendable, Equatable {
        public var fullName: String?
        public var dateOfBirth: String?
        public var phones: Phones?
        public var mrn: String?
        /// The NHS number (`943 476 5919`, its check digit valid): a key of ours, which the app's
        /// decoder passes over.
        public var nhsNumber: String?

        enum CodingKeys: String, CodingKey {
            case fullName = "full_name", dateOfBirth = "date_of_birth", phones, mrn, nhsNumber = "nhs_number"
        }
    }

    public struct Address: Codable, Sendable, Equatable {
        public var line1: String?
        public var line2: String?
        public var city: String?
        public var county: String?
        public var postcode: String?

        public init(line1: String? = nil, line2: String? = nil, city: String? = nil, county: String? = nil, postcode: String? = nil) {
            (self.line1, self.line2, self.city, self.county, self.postcode) = (line1, line2, city, county, postcode)
        }

        enum CodingKeys: String, CodingKey {
            case line1 = "line_1", line2 = "line_2", city, county, postcode
        }
    }

    public struct GP: Codable, Sendable, Equatable {
        public var name: String?
        public var practice: String?
        public var address: String?
        public var postcode: String?

        public init(name: String? = nil, practice: String? = nil, address: String? = nil, postcode: String? = nil) {
            (self.name, self.practice, self.address, self.postcode) = (name, practice, address, postcode)
        }

        var isEmpty: Bool { name == nil && practice == nil && address == nil && postcode == nil }
    }

    public struct Extraction: Codable, Sendable, Equatable {
        /// `clearwater_form`, `form`, `label` or `unstructured`, as the app names its extractors;
        /// `letter` for a page read as a letter (its `Re:` line, its addressee, its copies).
        public var method: String
        public var confidence: Double
    }

    public var pageNumber: Int
    public var patient: Patient?
    public var address: Address?
    public var gp: GP?
    public var extraction: Extraction?
    public var addressType: String? = "patient"
    /// Who a `specialist` entry is (the app's `specialist_name`).
    public var specialistName: String?

    enum CodingKeys: String, CodingKey {
        case pageNumber = "page_number", patient, address, gp, extraction, addressType = "address_type", specialistName = "specialist_name"
    }

    init(page: Int, method: String, confidence: Double, name: String?, dateOfBirth: String?, address: Address, phones: Phones? = nil,
         mrn: String? = nil, gp: GP? = nil) {
        pageNumber = page
        patient = Patient(fullName: name, dateOfBirth: dateOfBirth, phones: phones, mrn: mrn)
        self.address = address
        self.gp = gp.flatMap { $0.isEmpty ? nil : $0 }
        extraction = Extraction(method: method, confidence: confidence)
    }
}

extension AddressPage.Address {
    /// An address from the lines between a name and a postcode (`lines`, town last when it
    /// has one) and the postcode's own line: the street lines become `line_1` and `line_2`
    /// (a third and more join the second); the town is what stands beside the postcode, else
    /// the last line unless it starts with a number or names a street (and when the last line
    /// is a county the table knows, the one before it).
    init(lines: [String], postcodeLine: String?, postcode: String, sectors: PostcodeSectors) {
        // Without the marks at a line's ends (`Lincolnshire .`, a scan's speck), so that a county is known for one.
        var lines = lines.map { $0.trimming(" .,;") }.filter { !$0.isEmpty && !$0.contains(":") && TextPatterns.firstPostcode(in: $0) == nil }
        if let last = lines.last, sectors.counties.contains(last.lowercased()), lines.count >= 2 {
            county = last
            lines.removeLast()
        }
        if let town = postcodeLine.flatMap({ TextPatterns.townBeside(postcode: postcode, in: $0) }) {
            city = town
        } else if let last = lines.last, last.first?.isNumber != true, !Self.isStreetLine(last) {
            city = last
            lines.removeLast()
        }
        line1 = lines.first
        line2 = lines.count > 1 ? lines.dropFirst().joined(separator: ", ") : nil
        self.postcode = postcode
    }

    /// Words that end a street's name, not a town's.
    private static let streetWords: Set<String> = ["road", "street", "lane", "avenue", "drive", "close", "way", "court", "grove", "green",
                                                   "place", "crescent", "gardens", "terrace", "square", "walk", "rise", "hill", "row", "mews", "park"]

    /// True for `Road`, `Crescent`: a word that ends a street's name.
    static func isStreetWord(_ word: some StringProtocol) -> Bool { streetWords.contains(word.lowercased()) }

    /// True for `Church Road`, `The Green`: a line that names a street (and is no town).
    static func isStreetLine(_ line: String) -> Bool {
        guard let last = line.split(separator: " ").last?.lowercased() else { return false }
        return streetWords.contains(last) && line.split(separator: " ").count >= 2
    }

    /// Town and county filled from the postcode's sector where the text gave none.
    mutating func fill(from sectors: PostcodeSectors) {
        guard let postcode, let place = sectors.place(of: postcode) else { return }
        if city?.isEmpty ?? true { city = place.town }
        if county?.isEmpty ?? true { county = place.county }
    }
}

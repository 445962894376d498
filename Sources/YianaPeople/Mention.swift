import Foundation
import YianaArchive
import YianaExtract
import YianaFolder

/// One place that names a patient: a document's file name or folder (the app's
/// `Surname_Firstname_DDMMYY`), or a page of its address files as the app shows it (the
/// extraction with a person's newest correction laid over it, or a person's own entry).
/// Every identifier the register holds comes from one, so each can say where it came from.
public struct Mention: Sendable, Codable, Equatable {
    public enum Source: String, Sendable, Codable, Equatable {
        /// The document's file name (or its title, the app's key).
        case fileName = "file-name"
        /// A folder the document is in, named for a patient.
        case folderName = "folder-name"
        /// A page, as extraction read it.
        case page
        /// A page, as a person corrected it (`.overrides.json`).
        case corrected
        /// A person's own entry (a correction of no extracted page).
        case added
    }

    /// The page (1-based); 0 for a file or folder name and a person's own entry.
    public var page: Int
    public var source: Source
    /// The name as written.
    public var name: String?
    /// `DD/MM/YYYY`.
    public var dateOfBirth: String?
    /// Ten digits, the modulus-11 check valid (an invalid one is not kept).
    public var nhsNumber: String?
    public var hospitalNumbers: [HospitalNumber] = []
    /// `SW1A 1AA`.
    public var postcode: String?
    /// The address lines and town, joined by commas.
    public var address: String?
    /// Digits only.
    public var phones: [String] = []

    public init(page: Int, source: Source, name: String? = nil, dateOfBirth: String? = nil, nhsNumber: String? = nil,
                hospitalNumbers: [HospitalNumber] = [], postcode: String? = nil, address: String? = nil, phones: [String] = []) {
        (self.page, self.source, self.name, self.dateOfBirth, self.nhsNumber) = (page, source, name, dateOfBirth, nhsNumber)
        (self.hospitalNumbers, self.postcode, self.address, self.phones) = (hospitalNumbers, postcode, address, phones)
    }

    /// The name's normalised form, when it has one.
    public var personName: PersonName? { name.flatMap(PersonName.init) }

    /// The date of birth as `YYYY-MM-DD`, for comparing and sorting.
    public var birthKey: String? { dateOfBirth.flatMap(Self.isoDate) }

    static func isoDate(_ date: String) -> String? {
        let parts = date.split(separator: "/")
        guard parts.count == 3 else { return nil }
        return "\(parts[2])-\(parts[1])-\(parts[0])"
    }
}

/// A hospital number (MRN), with the organisation that gave it when the page says so.
public struct HospitalNumber: Sendable, Codable, Hashable {
    public var value: String
    public var organisation: String?

    public init(value: String, organisation: String? = nil) {
        self.value = value.uppercased().filter { $0.isLetter || $0.isNumber }
        self.organisation = organisation
    }
}

/// A GP, consultant, optician or specialist a page names.
public struct PractitionerMention: Sendable, Codable, Equatable {
    /// `GP`, `Consultant`, `Optician` or `Specialist`.
    public var role: String
    public var page: Int
    public var name: String?
    public var practice: String?
    public var address: String?
    public var postcode: String?

    public init(role: String, page: Int, name: String? = nil, practice: String? = nil, address: String? = nil, postcode: String? = nil) {
        (self.role, self.page, self.name, self.practice, self.address, self.postcode) = (role, page, name, practice, address, postcode)
    }
}

/// The people a document's address files name: what the register keeps of each document.
public struct DocumentPeople: Sendable, Codable, Equatable {
    public var patients: [Mention] = []
    public var practitioners: [PractitionerMention] = []

    public init(patients: [Mention] = [], practitioners: [PractitionerMention] = []) {
        self.patients = patients
        self.practitioners = practitioners
    }

    /// The people of an address book: each patient entry a mention, each GP part and each
    /// specialist or optician entry a practitioner.
    public init(_ book: AddressBook) {
        for entry in book.entries {
            let source: Mention.Source = switch entry.source {
            case .extracted: .page
            case .corrected: .corrected
            case .added: .added
            }
            if entry.type == "patient", let mention = Self.patient(entry.parts, page: entry.page, source: source) {
                patients.append(mention)
            }
            if let gp = entry.parts["gp"], let name = Self.text(gp["name"]) ?? Self.text(gp["practice"]) {
                practitioners.append(PractitionerMention(role: "GP", page: entry.page, name: Self.text(gp["name"]) == nil ? nil : name,
                                                         practice: Self.text(gp["practice"]), address: Self.text(gp["address"]),
                                                         postcode: Self.text(gp["postcode"]).flatMap(Self.postcode)))
            }
            if ["specialist", "optician"].contains(entry.type), let name = Self.text(entry.parts["specialist_name"]) {
                practitioners.append(PractitionerMention(role: entry.type == "optician" ? "Optician" : "Consultant", page: entry.page, name: name))
            }
        }
    }

    private static func patient(_ parts: [String: JSONValue], page: Int, source: Mention.Source) -> Mention? {
        let patient = parts["patient"], address = parts["address"]
        var mention = Mention(page: page, source: source)
        mention.name = text(patient?["full_name"]).flatMap { PersonName($0) == nil ? nil : $0 }
        mention.dateOfBirth = text(patient?["date_of_birth"]).flatMap(PageIdentifiers.date)
        mention.nhsNumber = text(patient?["nhs_number"]).flatMap(PageIdentifiers.nhsNumber)
        if let mrn = text(patient?["mrn"]), HospitalNumber(value: mrn).value.count >= 4 {
            mention.hospitalNumbers = [HospitalNumber(value: mrn)]
        }
        mention.postcode = text(address?["postcode"]).flatMap(postcode)
        let lines = ["line_1", "line_2", "city"].compactMap { text(address?[$0]) }
        mention.address = lines.isEmpty ? nil : lines.joined(separator: ", ")
        mention.phones = ["home", "work", "mobile"].compactMap { text(patient?["phones"]?[$0]) }
            .map { $0.filter(\.isNumber) }.filter { $0.count >= 10 }
        let hasIdentity = mention.name != nil || mention.nhsNumber != nil || !mention.hospitalNumbers.isEmpty
        return hasIdentity ? mention : nil
    }

    private static func text(_ value: JSONValue?) -> String? {
        guard let text = value?.stringValue?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        return text
    }

    /// `sw1a1aa` → `SW1A 1AA`; nil for what has no postcode's shape.
    static func postcode(_ text: String) -> String? {
        let compact = text.uppercased().filter { $0.isLetter || $0.isNumber }
        guard (5...7).contains(compact.count), compact.suffix(3).first?.isNumber == true,
              compact.first?.isLetter == true else { return nil }
        return "\(compact.dropLast(3)) \(compact.suffix(3))"
    }
}

import Foundation
import YianaExtract

/// A document as the register reads it: where it is, what it is called, and the people its
/// address files name.
public struct RegisterDocument: Sendable, Equatable {
    /// Relative to the library: `Whitfield/Whitfield_Eleanor_140352.yianazip`.
    public var path: String
    public var title: String
    /// The metadata's id (it stays when the document is renamed).
    public var documentID: String?
    /// When the document last changed, seconds since 1970: which GP is "now".
    public var modified: Double?
    public var people: DocumentPeople

    public init(path: String, title: String, documentID: String? = nil, modified: Double? = nil, people: DocumentPeople = DocumentPeople()) {
        (self.path, self.title, self.documentID, self.modified, self.people) = (path, title, documentID, modified, people)
    }

    /// The patients the app's convention names: the file name (else the title, the app's key),
    /// and the nearest folder named `Surname_Firstname_DDMMYY` when it names someone else.
    public var namedPatients: [Mention] {
        var found: [Mention] = []
        let components = path.split(separator: "/").map(String.init)
        let stem = components.last.map { $0.hasSuffix(".yianazip") ? String($0.dropLast(9)) : $0 } ?? title
        if let identity = FileNameIdentity(stem) ?? FileNameIdentity(title) {
            found.append(Mention(page: 0, source: .fileName, name: identity.fullName, dateOfBirth: identity.dateOfBirth))
        }
        if let identity = components.dropLast().reversed().lazy.compactMap(FileNameIdentity.init).first,
           !found.contains(where: { $0.name == identity.fullName && $0.dateOfBirth == identity.dateOfBirth }) {
            found.append(Mention(page: 0, source: .folderName, name: identity.fullName, dateOfBirth: identity.dateOfBirth))
        }
        return found
    }
}

/// Where an identifier or a mention came from: a document's page (0: its name or a person's
/// own entry) and how it was read.
public struct Place: Sendable, Codable, Hashable, Comparable {
    public var document: String
    public var page: Int
    public var source: Mention.Source

    public static func < (a: Place, b: Place) -> Bool {
        (a.document, a.page, a.source.rawValue) < (b.document, b.page, b.source.rawValue)
    }
}

/// One identifier of a person and every place that gives it.
public struct Identifier: Sendable, Codable, Equatable {
    /// `name`, `date_of_birth`, `nhs_number`, `mrn`, `postcode`, `address` or `phone`.
    public var kind: String
    public var value: String
    public var from: [Place]
}

/// A practitioner as linked to one person: who, in which role, and when.
public struct PractitionerLink: Sendable, Codable, Equatable {
    public var practitioner: String
    public var role: String
    public var name: String
    public var practice: String?
    /// The practice made official by NHS England's file (``ODSDirectory``).
    public var odsCode: String?
    public var officialName: String?
    public var documents: Int
    /// `YYYY-MM-DD` of the oldest and newest documents that link them.
    public var firstSeen: String?
    public var lastSeen: String?

    enum CodingKeys: String, CodingKey {
        case practitioner, role, name, practice, odsCode = "ods_code", officialName = "official_name", documents
        case firstSeen = "first_seen", lastSeen = "last_seen"
    }
}

/// One person of the register: everything the library says of them, each fact with its places.
public struct Person: Sendable, Encodable, Equatable {
    /// `p` and ten hexadecimal digits, from the person's surest identifier (NHS number, else
    /// name and date of birth, else hospital number, else their first mention): the same on
    /// every rebuild while that identifier stays.
    public var id: String
    /// The name a person wrote (a correction), else the app's convention's (the file name), else
    /// the one most pages write; shown with capitals as on a card (``PersonName/display``).
    public var name: String
    /// `DD/MM/YYYY`.
    public var dateOfBirth: String?
    public var nhsNumber: String?
    public var mrns: [String]
    /// The documents that name them, library-relative, newest first.
    public var documents: [String]
    public var identifiers: [Identifier]
    /// Every page that names them.
    public var mentions: [Place]
    /// Their GPs, the newest first: the first is their GP now.
    public var gps: [PractitionerLink]
    /// Consultants, opticians and specialists.
    public var practitioners: [PractitionerLink]
    /// The keys a decision about them is recorded under (``PeopleDecision``).
    public var keys: [String]

    enum CodingKeys: String, CodingKey {
        case id, name, dateOfBirth = "date_of_birth", nhsNumber = "nhs_number", mrns, documents, identifiers, mentions
        case gp, gps, practitioners, keys
    }

    /// Everything, an unknown date of birth or NHS number as `null`.
    public func encode(to encoder: Encoder) throws {
        try encode(to: encoder, whole: true)
    }

    /// What a list gives of a person (`yiana people list --json`): `id`, `name`,
    /// `date_of_birth`, `nhs_number`, `mrns`, `documents`, `gp` (the name of the GP now) and
    /// `mentions`, what is not known as `null`.
    public struct Summary: Encodable {
        public let person: Person

        public init(_ person: Person) { self.person = person }

        public func encode(to encoder: Encoder) throws {
            try person.encode(to: encoder, whole: false)
        }
    }

    private func encode(to encoder: Encoder, whole: Bool) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(dateOfBirth, forKey: .dateOfBirth)
        try container.encode(nhsNumber, forKey: .nhsNumber)
        try container.encode(mrns, forKey: .mrns)
        try container.encode(documents, forKey: .documents)
        try container.encode(mentions, forKey: .mentions)
        guard whole else { return try container.encode(gps.first?.name, forKey: .gp) }
        try container.encode(identifiers, forKey: .identifiers)
        try container.encode(gps, forKey: .gps)
        try container.encode(practitioners, forKey: .practitioners)
        try container.encode(keys, forKey: .keys)
    }

    /// Whether `query` names them: their id, NHS number (spaces allowed), a hospital number,
    /// or their name (any order, any case).
    public func matches(_ query: String) -> Bool {
        Query(query).matches(self, names: PersonName.Memo())
    }

    /// What a person was asked for by, read once for all the people it is tried on.
    struct Query {
        let text: String
        let nhs: String?
        let hospital: String
        let name: PersonName?

        init(_ query: String) {
            text = query.trimmingCharacters(in: .whitespaces).lowercased()
            let digits = text.filter(\.isNumber)
            nhs = digits.count == 10 && text.allSatisfy({ $0.isNumber || $0 == " " || $0 == "-" }) ? digits : nil
            hospital = HospitalNumber(value: text).value
            name = PersonName(text)
        }

        func matches(_ person: Person, names: PersonName.Memo) -> Bool {
            if text == person.id || (nhs != nil && nhs == person.nhsNumber) || person.mrns.contains(hospital) { return true }
            guard let asked = name?.words else { return false }
            return person.identifiers.contains { $0.kind == "name" && names.name($0.value).map { Set(asked).isSubset(of: $0.words) } == true }
        }
    }
}

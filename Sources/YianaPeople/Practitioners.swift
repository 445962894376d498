import Foundation
import YianaExtract

/// A GP, consultant, optician or specialist the library's pages name, once.
public struct Practitioner: Sendable, Codable, Equatable {
    /// `r` and ten hexadecimal digits, from their role, name and postcode.
    public var id: String
    /// `GP`, `Consultant`, `Optician` or `Specialist`.
    public var role: String
    public var name: String
    public var practice: String?
    public var address: String?
    public var postcode: String?
    /// The documents that name them, library-relative.
    public var documents: [String]
    /// The people linked to them (register ids).
    public var patients: [String]
    /// A GP practice made official (``ODSDirectory``): its ODS code and published name.
    public var odsCode: String?
    public var officialName: String?
    /// The practices it may be, when several could (ODS codes), for a person to choose.
    public var odsCandidates: [String] = []
    /// What else the ODS file says: a practice at its postcode closed.
    public var odsNote: String?

    enum CodingKeys: String, CodingKey {
        case id, role, name, practice, address, postcode, documents, patients
        case odsCode = "ods_code", officialName = "official_name", odsCandidates = "ods_candidates", odsNote = "ods_note"
    }
}

/// The practitioners of every page, each once: the same role and name (titles, capitals and
/// marks aside) and no two different postcodes is one practitioner; a mention without a
/// postcode joins the one practitioner of that name that has one, else those without.
/// (The app joins by name alone, so two Dr Patels of two practices were one; here they are two.)
struct PractitionerRegister {
    struct Found {
        var role: String
        var names: [String: Int] = [:]
        var practice: String?
        var address: String?
        var postcode: String?
        var documents = Set<String>()
        var ods: ODSDirectory.Outcome = .none
    }

    private(set) var found: [String: Found] = [:]
    /// Each document's practitioner mentions: (page, key).
    private(set) var byDocument: [Int: [(page: Int, key: String)]] = [:]

    init(documents: [RegisterDocument], ods: ODSDirectory? = nil, names: PersonName.Memo = PersonName.Memo()) {
        var withPostcode: [String: Set<String>] = [:]
        for document in documents {
            for mention in document.people.practitioners where mention.postcode != nil {
                withPostcode[Self.nameKey(mention, names), default: []].insert(mention.postcode!)
            }
        }
        for (index, document) in documents.enumerated() {
            for mention in document.people.practitioners {
                let name = Self.nameKey(mention, names)
                let postcode = mention.postcode ?? (withPostcode[name]?.count == 1 ? withPostcode[name]!.first! : "")
                let key = "\(name)|\(postcode)"
                // In place: a copy would copy the set of the GP's documents, each time.
                Self.add(mention, in: document.path, to: &found[key, default: Found(role: mention.role)])
                byDocument[index, default: []].append((mention.page, key))
            }
        }
        guard let ods, ods.count > 0 else { return }
        for (key, entry) in found where entry.role == "GP" {
            if let postcode = entry.postcode { found[key]?.ods = ods.match(postcode: postcode, name: entry.practice, address: entry.address) }
        }
    }

    private static func add(_ mention: PractitionerMention, in document: String, to entry: inout Found) {
        if let written = mention.name ?? mention.practice { entry.names[written, default: 0] += 1 }
        entry.practice = entry.practice ?? mention.practice
        entry.address = entry.address ?? mention.address
        entry.postcode = entry.postcode ?? mention.postcode
        entry.documents.insert(document)
    }

    /// `role|name words`, or `role|practice:words` for a practice without a doctor's name.
    static func nameKey(_ mention: PractitionerMention, _ names: PersonName.Memo) -> String {
        if let name = names.name(mention.name) { return "\(mention.role)|\(name.normalised)" }
        let practice = (mention.practice ?? "").lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).joined(separator: " ")
        return "\(mention.role)|practice:\(practice)"
    }

    static func id(_ key: String) -> String {
        "r" + Register.id(for: key).dropFirst()
    }

    /// The practitioners linked to the pages `pages` (document, page): those on the same page,
    /// and all of a document's when the page is 0 (the document is named for the person).
    func links(for pages: [(document: Int, page: Int)], documents: [RegisterDocument]) -> [PractitionerLink] {
        var seen: [String: (documents: Set<Int>, first: Double?, last: Double?)] = [:]
        let wholeDocuments = Set(pages.filter { $0.page == 0 }.map(\.document))
        let pagesByDocument = Dictionary(grouping: pages, by: \.document).mapValues { Set($0.map(\.page)) }
        for (document, numbers) in pagesByDocument {
            for mention in byDocument[document] ?? [] where wholeDocuments.contains(document) || numbers.contains(mention.page) {
                let modified = documents[document].modified
                seen[mention.key, default: ([], modified, modified)].documents.insert(document)
                if let modified {
                    seen[mention.key]!.first = min(seen[mention.key]!.first ?? modified, modified)
                    seen[mention.key]!.last = max(seen[mention.key]!.last ?? modified, modified)
                }
            }
        }
        return seen.map { key, value in
            let practitioner = found[key]!
            return PractitionerLink(practitioner: Self.id(key), role: practitioner.role, name: Self.name(practitioner),
                                    practice: practitioner.practice, odsCode: Self.matched(practitioner)?.code,
                                    officialName: Self.matched(practitioner)?.name, documents: value.documents.count,
                                    firstSeen: value.first.map(Self.day), lastSeen: value.last.map(Self.day))
        }.sorted { ($0.lastSeen ?? "", $1.name) > ($1.lastSeen ?? "", $0.name) }
    }

    /// Every practitioner, with the people linked to them.
    func practitioners(linkedTo people: [Person]) -> [Practitioner] {
        var patients: [String: Set<String>] = [:]
        for person in people {
            for link in person.gps + person.practitioners { patients[link.practitioner, default: []].insert(person.id) }
        }
        return found.map { key, value in
            var practitioner = Practitioner(id: Self.id(key), role: value.role, name: Self.name(value), practice: value.practice, address: value.address,
                                            postcode: value.postcode, documents: value.documents.sorted(), patients: (patients[Self.id(key)] ?? []).sorted())
            switch value.ods {
            case .matched(let practice): (practitioner.odsCode, practitioner.officialName) = (practice.code, practice.name)
            case .candidates(let practices): practitioner.odsCandidates = practices.map(\.code)
            case .closed(let practices):
                practitioner.odsNote = practices.map { "\($0.name) (\($0.code)) at \($0.postcode) is \($0.status.rawValue)\($0.closed.map { " since \($0)" } ?? "")" }
                    .joined(separator: "; ")
            case .none: break
            }
            return practitioner
        }.sorted { ($0.role, $0.name, $0.id) < ($1.role, $1.name, $1.id) }
    }

    /// The practice the ODS file makes official, when exactly one.
    private static func matched(_ found: Found) -> ODSPractice? {
        if case .matched(let practice) = found.ods { return practice }
        return nil
    }

    /// The name most pages write; the first in order on a tie.
    private static func name(_ found: Found) -> String {
        found.names.max { ($0.value, $1.key) < ($1.value, $0.key) }?.key ?? ""
    }

    /// `YYYY-MM-DD` (UTC) of a time in seconds since 1970.
    static func day(_ seconds: Double) -> String {
        PageIdentifiers.day(seconds)
    }
}

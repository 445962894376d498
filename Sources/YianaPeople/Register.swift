import Foundation
import YianaSystem

/// The register of people: who the library is about, made from its documents alone (their
/// names and address files) and the decisions people recorded, so it can be rebuilt at any
/// time and comes out the same. Each person once, by ``IdentityRules``; those the rules cannot
/// decide listed by ``PossibleDuplicates`` for a person to decide.
public struct Register: Sendable {
    public let people: [Person]
    public let duplicates: [PossibleDuplicate]
    public let practitioners: [Practitioner]
    /// Decisions that no longer apply, and why (their people gone, or now disagreeing).
    public let unapplied: [UnappliedDecision]

    public struct UnappliedDecision: Sendable, Codable, Equatable {
        public var decision: PeopleDecision
        public var reason: String
    }

    /// One mention of a patient, with the document it is in.
    struct Entry {
        let document: Int
        let mention: Mention
        /// The mention's name and date of birth (`YYYY-MM-DD`), read once.
        let name: PersonName?
        let birth: String?

        init(document: Int, mention: Mention, names: PersonName.Memo) {
            (self.document, self.mention) = (document, mention)
            name = names.name(mention.name)
            birth = mention.birthKey
        }
    }

    /// - Parameter ods: NHS England's GP practices, to make the pages' practices official.
    public init(documents: [RegisterDocument], decisions: [PeopleDecision] = [], ods: ODSDirectory? = nil) {
        var entries: [Entry] = []
        var keys: [IdentityRules.Keys] = []
        let names = PersonName.Memo()
        for (index, document) in documents.enumerated() {
            let named = document.namedPatients, first = entries.count
            for mention in named + document.people.patients {
                entries.append(Entry(document: index, mention: mention, names: names))
                keys.append(Self.keys(entries[entries.count - 1]))
            }
            Self.linkWithinDocument(Array(entries[first...]), from: first, named: named.count, keys: &keys)
        }
        let ruled = IdentityRules.people(keys)
        let decided = Self.apply(PeopleDecision.current(decisions), to: ruled, entries: entries, keys: keys, documents: documents)
        let practitioners = PractitionerRegister(documents: documents, ods: ods, names: names)
        var people = decided.groups.map { Self.person($0, entries: entries, keys: keys, documents: documents, practitioners: practitioners) }
        Self.makeIDsUnique(&people)
        self.people = people
        self.practitioners = practitioners.practitioners(linkedTo: people)
        self.unapplied = decided.unapplied
        self.duplicates = PossibleDuplicates.find(in: people, apart: decided.apart)
    }

    /// The people `query` names (``Person/matches(_:)``).
    public func people(matching query: String) -> [Person] {
        let asked = Person.Query(query), names = PersonName.Memo()
        return people.filter { asked.matches($0, names: names) }
    }

    // MARK: Keys

    static func keys(_ entry: Entry) -> IdentityRules.Keys {
        var keys = IdentityRules.Keys(nhs: entry.mention.nhsNumber)
        keys.area = entry.mention.postcode.map { String($0.prefix { $0.isLetter }) }
        keys.hospital = entry.mention.hospitalNumbers.map { "\($0.organisation ?? "")|\($0.value)" }
        if let birth = entry.birth {
            keys.links = keys.hospital.map { "h:\($0)|\(birth)" }
            if let name = entry.name?.key { keys.links.append("n:\(name)|\(birth)") }
        }
        return keys
    }

    /// Rule 5: a page joins the patient its document's name gives, or another of its pages
    /// names with a date of birth, when it agrees with that one person only (``agreesInDocument``).
    /// `mentions`: the document's, its `named` ones first, the first at `first` in `keys`.
    static func linkWithinDocument(_ mentions: [Entry], from first: Int, named: Int, keys: inout [IdentityRules.Keys]) {
        guard mentions.count > 1 else { return }
        for page in named..<mentions.count {
            let agreeing = mentions.indices.filter { other in
                other != page && (other < named || mentions[other].birth != nil) && agreesInDocument(mentions[page], mentions[other])
            }
            let identities = Set(agreeing.map { "\(mentions[$0].name?.key ?? mentions[$0].name?.normalised ?? "")|\(mentions[$0].birth ?? "")" })
            guard identities.count == 1, let identity = identities.first else { continue }
            let link = "d:\(first):\(identity)"
            for index in agreeing + [page] where !keys[first + index].links.contains(link) { keys[first + index].links.append(link) }
        }
    }

    /// Whether a page of a document names the patient the document's name gives: no other date
    /// of birth, and the same surname with given names that agree where both are written, or,
    /// with the same date of birth, a surname a misreading or two apart (`Ali M0ss` in
    /// `Moss_Ali_150595`).
    static func agreesInDocument(_ page: Entry, _ named: Entry) -> Bool {
        guard let pageName = page.name, let name = named.name else { return false }
        if let a = page.birth, let b = named.birth, a != b { return false }
        if pageName.isCompatible(with: name) { return true }
        guard page.birth != nil, page.birth == named.birth, pageName.words.count >= 2, name.words.count >= 2,
              PossibleDuplicates.surnamesNear(pageName.surname, name.surname) else { return false }
        return pageName.givenNamesAgree(with: name)
    }

    /// The keys a decision records a person by, surest first.
    static func decisionKeys(_ group: [Int], entries: [Entry], keys: [IdentityRules.Keys], documents: [RegisterDocument]) -> [String] {
        var found = Set<String>()
        for index in group {
            if let nhs = keys[index].nhs { found.insert("nhs:\(nhs)") }
            found.formUnion(keys[index].links.filter { !$0.hasPrefix("d:") })
        }
        guard found.isEmpty else { return found.sorted { (rank($0), $0) < (rank($1), $1) } }
        return [mentionKey(group[0], entries: entries, documents: documents)]
    }

    private static func rank(_ key: String) -> Int {
        key.hasPrefix("nhs:") ? 0 : key.hasPrefix("n:") ? 1 : 2
    }

    /// `m:<document id>#<page>#<source>`: one mention, whatever the document is renamed to.
    static func mentionKey(_ index: Int, entries: [Entry], documents: [RegisterDocument]) -> String {
        let entry = entries[index], document = documents[entry.document]
        return "m:\(document.documentID ?? document.path)#\(entry.mention.page)#\(entry.mention.source.rawValue)"
    }

    // MARK: Decisions

    struct Decided {
        var groups: [[Int]]
        var apart: Set<[Int]>
        var unapplied: [UnappliedDecision]
    }

    /// The groups after the merges, the pairs kept apart (indices into the groups), and
    /// what could not be applied. The keys are indexed once; a merge joins two groups under one.
    static func apply(_ decisions: [PeopleDecision], to ruled: [[Int]], entries: [Entry], keys: [IdentityRules.Keys],
                      documents: [RegisterDocument]) -> Decided {
        guard !decisions.isEmpty else { return Decided(groups: ruled, apart: [], unapplied: []) }
        var members = ruled
        var joined = DisjointSets(ruled.count)
        var unapplied: [UnappliedDecision] = []
        var apart: [(Int, Int)] = []
        let index = groupsByKey(ruled, entries: entries, keys: keys, documents: documents)
        for decision in decisions {
            let a = Set(decision.a.flatMap { index[$0] ?? [] }.map { joined.find($0) })
            let b = Set(decision.b.flatMap { index[$0] ?? [] }.map { joined.find($0) })
            guard a.count == 1, b.count == 1, let first = a.first, let second = b.first else {
                let reason = a.isEmpty || b.isEmpty ? "one of the two is no longer in the register" : "one side now stands for several people"
                unapplied.append(UnappliedDecision(decision: decision, reason: reason))
                continue
            }
            switch decision.action {
            case .apart:
                apart.append((first, second))
            case .merge where first == second:
                continue
            case .merge:
                let union = members[first] + members[second]
                if IdentityRules.disagrees(union.map { keys[$0] }, byArea: false) {
                    unapplied.append(UnappliedDecision(decision: decision, reason: "they hold different NHS numbers, or different numbers of one hospital"))
                    continue
                }
                joined.union(first, second)
                members[joined.find(first)] = union.sorted()
            }
        }
        let roots = ruled.indices.filter { joined.find($0) == $0 }
        let position = Dictionary(uniqueKeysWithValues: roots.enumerated().map { ($0.element, $0.offset) })
        var apartPairs = Set<[Int]>()
        for (first, second) in apart {
            let (x, y) = (position[joined.find(first)]!, position[joined.find(second)]!)
            if x != y { apartPairs.insert([x, y].sorted()) }
        }
        return Decided(groups: roots.map { members[$0] }, apart: apartPairs, unapplied: unapplied)
    }

    /// Every key a decision may name (``decisionKeys`` and every mention's own), to the groups holding it.
    private static func groupsByKey(_ groups: [[Int]], entries: [Entry], keys: [IdentityRules.Keys],
                                    documents: [RegisterDocument]) -> [String: Set<Int>] {
        var index: [String: Set<Int>] = [:]
        for (group, members) in groups.enumerated() {
            for member in members {
                if let nhs = keys[member].nhs { index["nhs:\(nhs)", default: []].insert(group) }
                for link in keys[member].links where !link.hasPrefix("d:") { index[link, default: []].insert(group) }
                index[mentionKey(member, entries: entries, documents: documents), default: []].insert(group)
            }
        }
        return index
    }

    // MARK: People

    static func person(_ group: [Int], entries: [Entry], keys: [IdentityRules.Keys], documents: [RegisterDocument],
                       practitioners: PractitionerRegister) -> Person {
        let mentions = group.map { entries[$0] }
        let places = mentions.map { Place(document: documents[$0.document].path, page: $0.mention.page, source: $0.mention.source) }
        var identifiers: [Identifier] = []
        func collect(_ kind: String, _ value: (Mention) -> [String]) {
            var found: [String: [Place]] = [:]
            var order: [String] = []
            for (entry, place) in zip(mentions, places) {
                for item in value(entry.mention) {
                    if found[item] == nil { order.append(item) }
                    found[item, default: []].append(place)
                }
            }
            identifiers += order.map { Identifier(kind: kind, value: $0, from: found[$0]!.sorted()) }
        }
        collect("name") { $0.name.map { [$0] } ?? [] }
        collect("date_of_birth") { $0.dateOfBirth.map { [$0] } ?? [] }
        collect("nhs_number") { $0.nhsNumber.map { [$0] } ?? [] }
        collect("mrn") { $0.hospitalNumbers.map(\.value) }
        collect("postcode") { $0.postcode.map { [$0] } ?? [] }
        collect("address") { $0.address.map { [$0] } ?? [] }
        collect("phone") { $0.phones }
        let documentIndices = Array(Set(mentions.map(\.document))).sorted {
            (documents[$0].modified ?? 0, documents[$1].path) > (documents[$1].modified ?? 0, documents[$0].path)
        }
        let keysOfPerson = decisionKeys(group, entries: entries, keys: keys, documents: documents)
        let links = practitioners.links(for: mentions.map { ($0.document, $0.mention.page) }, documents: documents)
        return Person(
            id: id(for: keysOfPerson[0]),
            name: preferred(mentions, \.name).flatMap(PersonName.init)?.display ?? "",
            dateOfBirth: preferred(mentions, \.dateOfBirth),
            nhsNumber: mentions.lazy.compactMap(\.mention.nhsNumber).first,
            mrns: Array(Set(mentions.flatMap { $0.mention.hospitalNumbers.map(\.value) })).sorted(),
            documents: documentIndices.map { documents[$0].path },
            identifiers: identifiers, mentions: places.sorted(),
            gps: links.filter { $0.role == "GP" }, practitioners: links.filter { $0.role != "GP" },
            keys: keysOfPerson)
    }

    /// What a person wrote (a correction, an entry of their own), else the file or folder
    /// name, else what most pages read; the earliest place breaks a tie.
    static func preferred(_ mentions: [Entry], _ value: (Mention) -> String?) -> String? {
        for sources in [[Mention.Source.corrected, .added], [.fileName, .folderName], [.page]] {
            var counts: [String: Int] = [:]
            var order: [String] = []
            for entry in mentions where sources.contains(entry.mention.source) {
                guard let item = value(entry.mention) else { continue }
                if counts[item] == nil { order.append(item) }
                counts[item, default: 0] += 1
            }
            if let best = order.max(by: { counts[$0]! < counts[$1]! || (counts[$0]! == counts[$1]! && order.firstIndex(of: $0)! > order.firstIndex(of: $1)!) }) {
                return best
            }
        }
        return nil
    }

    static func id(for key: String) -> String {
        let hex = String(StableHash.of(key), radix: 16)
        return "p" + (String(repeating: "0", count: 16 - hex.count) + hex).prefix(10)
    }

    /// Two people whose surest key is one (a name and birth date that rule 4 kept apart) take
    /// their first mention's key instead.
    private static func makeIDsUnique(_ people: inout [Person]) {
        var seen: [String: Int] = [:]
        for person in people { seen[person.id, default: 0] += 1 }
        for index in people.indices where seen[people[index].id]! > 1 {
            let first = people[index].mentions[0]
            people[index].id = id(for: "\(people[index].keys[0])#\(first.document)#\(first.page)#\(first.source.rawValue)")
        }
    }
}

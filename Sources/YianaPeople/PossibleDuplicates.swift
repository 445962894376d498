import Foundation

/// Two people of the register who may be one, for a person to decide, with what speaks for
/// and against it.
public struct PossibleDuplicate: Sendable, Codable, Equatable {
    public struct Evidence: Sendable, Codable, Equatable {
        public var `for`: [String]
        public var against: [String]
    }

    /// The two people's ids.
    public var a: String
    public var b: String
    public var evidence: Evidence
}

/// Which people to show side by side. A pair is listed when
/// - their names agree (first name and surname) and one of them has no date of birth, or the
///   name is rare in the register (three people or fewer), or something else agrees too (a
///   date of birth near theirs, a postcode, an address, a phone);
/// - they share a date of birth and a surname, or a surname a letter or two apart (a misread
///   scan) and a first name;
/// - they share a date of birth and a first name, and an address, postcode or phone (a new
///   surname, by marriage say);
/// - one's date of birth is the other's with day and month swapped, or a digit apart, and
///   their surnames agree;
/// - one has no date of birth, and their first names agree and their surnames are a letter or
///   two apart.
///
/// Never listed: two people with different valid NHS numbers (two people by rule), a pair a
/// person kept apart, and two without a number whose name and birth date are also those of a
/// person with one (each is listed beside that person instead).
enum PossibleDuplicates {
    struct Facts {
        var names: [PersonName]
        var births: Set<String>
        var postcodes: Set<String>
        var addresses: Set<String>
        var phones: Set<String>

        init(_ person: Person) {
            func values(_ kind: String) -> [String] { person.identifiers.filter { $0.kind == kind }.map(\.value) }
            names = values("name").compactMap(PersonName.init)
            births = Set(values("date_of_birth"))
            postcodes = Set(values("postcode"))
            addresses = Set(values("address").map { $0.lowercased().filter { $0.isLetter || $0.isNumber } })
            phones = Set(values("phone"))
        }
    }

    static func find(in people: [Person], apart: Set<[Int]>) -> [PossibleDuplicate] {
        let facts = people.map(Facts.init)
        var blocks: [String: [Int]] = [:]
        var nameHolders: [String: Set<Int>] = [:]
        var initials: [String: (undated: [Int], all: [Int])] = [:]
        for (index, fact) in facts.enumerated() {
            var keys = Set<String>()
            for name in fact.names {
                if let key = name.key { keys.insert("n:\(key)"); nameHolders[key, default: []].insert(index) }
                for birth in fact.births {
                    keys.insert("s:\(name.surname)|\(birth)")
                    if let first = name.firstName { keys.insert("f:\(first)|\(birth)") }
                }
            }
            for key in keys { blocks[key, default: []].append(index) }
            // One without a date of birth is compared with everyone of its first name and initial.
            for name in fact.names {
                let key = "\(name.firstName ?? String(name.words[0].prefix(1)))|\(name.surname.prefix(1))"
                initials[key, default: ([], [])].all.append(index)
                if fact.births.isEmpty { initials[key, default: ([], [])].undated.append(index) }
            }
        }
        var pairs = Set<[Int]>()
        for members in blocks.values where members.count >= 2 && members.count <= 200 {
            for i in members.indices { for j in members.indices where j > i { pairs.insert([members[i], members[j]].sorted()) } }
        }
        for (undated, all) in initials.values {
            for one in undated { for other in all where other != one { pairs.insert([one, other].sorted()) } }
        }
        // The name-and-birth-date keys of people with a number: two without one who share such
        // a key are each listed beside those people (which of them is it?), not beside each other.
        let numbered = Set(people.filter { $0.nhsNumber != nil || !$0.mrns.isEmpty }.flatMap { $0.keys.filter { $0.hasPrefix("n:") } })
        var found: [PossibleDuplicate] = []
        for pair in pairs.sorted(by: { ($0[0], $0[1]) < ($1[0], $1[1]) }) where !apart.contains(pair) {
            let (a, b) = (people[pair[0]], people[pair[1]])
            if let one = a.nhsNumber, let other = b.nhsNumber, one != other { continue }
            if a.nhsNumber == nil, b.nhsNumber == nil, a.mrns.isEmpty, b.mrns.isEmpty,
               a.keys.contains(where: { $0.hasPrefix("n:") && numbered.contains($0) && b.keys.contains($0) }) { continue }
            let rare = facts[pair[0]].names.compactMap(\.key).contains { (nameHolders[$0]?.count ?? 0) <= 3 && facts[pair[1]].names.compactMap(\.key).contains($0) }
            if let evidence = evidence(facts[pair[0]], facts[pair[1]], rareName: rare) {
                found.append(PossibleDuplicate(a: a.id, b: b.id, evidence: evidence))
            }
        }
        return found
    }

    /// What speaks for and against two people being one, when enough speaks for it to list them.
    static func evidence(_ a: Facts, _ b: Facts, rareName: Bool) -> PossibleDuplicate.Evidence? {
        var support: [String] = [], against: [String] = []
        let sameName = a.names.contains { name in b.names.contains { $0.key != nil && $0.key == name.key } }
        let sameSurname = a.names.contains { name in b.names.contains { $0.surname == name.surname } }
        let sameFirst = a.names.contains { name in b.names.contains { $0.firstName != nil && $0.firstName == name.firstName } }
        let nearSurname = !sameSurname && a.names.contains { name in b.names.contains { Self.surnamesNear($0.surname, name.surname) } }
        let sameBirth = !a.births.isDisjoint(with: b.births)
        let nearBirth = !sameBirth && a.births.contains { one in b.births.contains { Self.birthsNear(one, $0) != nil } }
        let shared = !a.postcodes.isDisjoint(with: b.postcodes) || !a.addresses.isDisjoint(with: b.addresses) || !a.phones.isDisjoint(with: b.phones)
        if sameName { support.append("the same name") } else if nearSurname { support.append("surnames a letter or two apart (\(Self.pair(a.names.map(\.surname), b.names.map(\.surname))))") }
        else if sameSurname { support.append("the same surname") } else if sameFirst { support.append("the same first name") }
        if sameBirth { support.append("the same date of birth") }
        for one in a.births { for other in b.births { if let how = birthsNear(one, other) { support.append("dates of birth \(how) (\(one), \(other))") } } }
        if !a.postcodes.isDisjoint(with: b.postcodes) { support.append("the same postcode (\(a.postcodes.intersection(b.postcodes).sorted().joined(separator: ", ")))") }
        if !a.addresses.isDisjoint(with: b.addresses) { support.append("the same address") }
        if !a.phones.isDisjoint(with: b.phones) { support.append("the same phone number") }
        if !sameBirth, !a.births.isEmpty, !b.births.isEmpty { against.append("different dates of birth (\(pair(Array(a.births), Array(b.births))))") }
        if !sameFirst, !a.names.compactMap(\.firstName).isEmpty, !b.names.compactMap(\.firstName).isEmpty {
            against.append("different first names (\(pair(a.names.compactMap(\.firstName), b.names.compactMap(\.firstName))))")
        }
        if !sameSurname, !nearSurname { against.append("different surnames (\(pair(a.names.map(\.surname), b.names.map(\.surname))))") }
        if a.postcodes.isDisjoint(with: b.postcodes), !a.postcodes.isEmpty, !b.postcodes.isEmpty {
            against.append("different postcodes (\(pair(Array(a.postcodes), Array(b.postcodes))))")
        }
        let undated = a.births.isEmpty || b.births.isEmpty
        let listed = (sameName && (rareName || undated || nearBirth || sameBirth || shared))
            || (undated && sameFirst && nearSurname)
            || (sameBirth && (sameSurname || (nearSurname && sameFirst)))
            || (sameBirth && sameFirst && shared)
            || (nearBirth && (sameSurname || nearSurname))
        return listed ? PossibleDuplicate.Evidence(for: support, against: against) : nil
    }

    /// A misread or misspelt surname: one letter apart (3 letters or more), two apart (5 or more).
    static func surnamesNear(_ a: String, _ b: String) -> Bool {
        let shorter = min(a.count, b.count)
        return shorter >= 3 && editDistance(a, b) <= (shorter >= 5 ? 2 : 1)
    }

    /// `swapped` when one date is the other with day and month exchanged, `a digit apart` when
    /// one digit differs; nil otherwise.
    static func birthsNear(_ a: String, _ b: String) -> String? {
        let x = Array(a), y = Array(b)
        guard x.count == 10, y.count == 10, a != b else { return nil }
        if a.prefix(2) == b.dropFirst(3).prefix(2), a.dropFirst(3).prefix(2) == b.prefix(2), a.suffix(4) == b.suffix(4) { return "with day and month swapped" }
        return zip(x, y).filter { $0 != $1 }.count == 1 ? "a digit apart" : nil
    }

    private static func pair(_ a: [String], _ b: [String]) -> String {
        "\(Set(a).sorted().joined(separator: "/")) and \(Set(b).sorted().joined(separator: "/"))"
    }
}

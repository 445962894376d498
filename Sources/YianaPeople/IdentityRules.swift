import Foundation

/// Which mentions are one person, by the rules a clinician signs (docs/PEOPLE.md):
///
/// 1. The same valid NHS number is one person, whatever else differs (a married name).
/// 2. The same hospital number from the same hospital with the same date of birth is one
///    person (a number whose hospital no page names is taken as the library's own).
/// 3. The same name (first name and surname, after normalising) with the same date of birth
///    is one person — when nothing disagrees.
/// 4. Disagreeing means two different valid NHS numbers, or two different hospital numbers
///    from one named hospital; for rules 3 and 5, addresses in two postcode areas too (the
///    same name and birth date in Bristol and in Manchester). Two people who disagree are never
///    one, whatever else matches.
/// 5. A page of a document named for a patient (`Surname_Firstname_DDMMYY`) is that patient
///    when it agrees with the name and gives no other date of birth (``Register``'s
///    `agreesInDocument`): the app's own rule that the file name governs, with a page that
///    says someone else left to be someone else.
///
/// Anything less (a name alone, a name and a postcode, a date of birth a digit apart, the day
/// and month swapped) joins nothing: ``PossibleDuplicates`` lists it for a person to decide.
///
/// The result is the same whatever order the mentions come in. Where rules 2 and 3 would join
/// people who disagree (Eleanor Whitfield born 14/03/1952 with two NHS numbers, and a letter
/// with her name and birth date and no number), those holding an NHS or hospital number stay
/// apart, and a mention without one joins the one such person it links to, or, when it links
/// to several, stays a person of its own for a person to place.
struct IdentityRules {
    /// Each mention's identifiers as the rules use them.
    struct Keys {
        var nhs: String?
        /// Hospital numbers: `organisation|value` (the organisation empty when not said).
        var hospital: [String] = []
        /// The postcode area of the address the mention gives (`LS`, `M`), if any.
        var area: String?
        /// Rule 2's, 3's and 5's keys: `h:organisation|value|date`, `n:first surname|date` and
        /// `d:<the named mention>`.
        var links: [String] = []
    }

    /// Groups of indices into `keys`, each a person; every index in exactly one group, in the
    /// order of their smallest index.
    static func people(_ keys: [Keys]) -> [[Int]] {
        var sets = DisjointSets(keys.count)
        var byNHS: [String: Int] = [:]
        for (index, key) in keys.enumerated() {
            guard let nhs = key.nhs else { continue }
            if let first = byNHS[nhs] { sets.union(first, index) } else { byNHS[nhs] = index }
        }
        // Rule 1's groups are the nodes; the other rules link every group holding a key.
        var holders: [String: Set<Int>] = [:]
        for (index, key) in keys.enumerated() {
            for link in key.links { holders[link, default: []].insert(sets.find(index)) }
        }
        var linked = DisjointSets(keys.count)
        for index in keys.indices { linked.union(index, sets.find(index)) }
        for groups in holders.values { for group in groups { linked.union(group, groups.first!) } }
        var components: [Int: [Int]] = [:]
        for index in keys.indices { components[linked.find(index), default: []].append(index) }
        var byComponent: [Int: [Set<Int>]] = [:]
        for groups in holders.values where groups.count > 1 { byComponent[linked.find(groups.first!), default: []].append(groups) }
        var people: [[Int]] = []
        for (root, members) in components {
            if !disagrees(members.map { keys[$0] }) {
                people.append(members)
            } else {
                people += separated(members, keys: keys, groups: &sets, shared: byComponent[root] ?? [])
            }
        }
        return people.map { $0.sorted() }.sorted { $0[0] < $1[0] }
    }

    /// Whether the mentions hold two different NHS numbers, or two hospital numbers of one
    /// named hospital, or (`byArea`) addresses in two postcode areas.
    static func disagrees(_ keys: [Keys], byArea: Bool = true) -> Bool {
        var nhs: String?, area: String?
        var hospital: [Substring: Substring] = [:]
        for key in keys {
            if let number = key.nhs {
                if let seen = nhs, seen != number { return true }
                nhs = number
            }
            for number in key.hospital {
                let parts = number.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2, !parts[0].isEmpty else { continue }
                if let seen = hospital[parts[0]], seen != parts[1] { return true }
                hospital[parts[0]] = parts[1]
            }
            if byArea, let place = key.area {
                if let seen = area, seen != place { return true }
                area = place
            }
        }
        return false
    }

    /// A linked set that disagrees, taken apart: each rule-1 group holding an NHS or hospital
    /// number is a person; the others, linked among themselves, join the one such person they
    /// share a key with. Those that share keys with several are linked again by only the keys
    /// no such person holds (a letter's pages stay together; two letters with only the name and
    /// birth date that two people share do not), and each piece joins the one person it shares
    /// a key with, else stays a person of its own. `shared`: the groups holding each key.
    private static func separated(_ members: [Int], keys: [Keys], groups: inout DisjointSets, shared: [Set<Int>]) -> [[Int]] {
        var byGroup: [Int: [Int]] = [:]
        for index in members { byGroup[groups.find(index), default: []].append(index) }
        let anchors = Set(byGroup.filter { $0.value.contains { keys[$0].nhs != nil || !keys[$0].hospital.isEmpty } }.keys)
        var touches: [Int: Set<Int>] = [:]
        for holders in shared {
            let held = holders.intersection(anchors)
            for group in holders.subtracting(anchors) { touches[group, default: []].formUnion(held) }
        }
        func pieces(of loose: Set<Int>, by links: [Set<Int>]) -> [[Int]] {
            let order = Array(loose), at = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($0.element, $0.offset) })
            var floating = DisjointSets(order.count)
            for holders in links {
                let linked = holders.compactMap { at[$0] }
                for group in linked { floating.union(group, linked[0]) }
            }
            return Array(Dictionary(grouping: order, by: { floating.find(at[$0]!) }).values)
        }
        var people = anchors.map { byGroup[$0]! }
        let anchorPerson = Dictionary(uniqueKeysWithValues: anchors.enumerated().map { ($0.element, $0.offset) })
        func mentions(_ floaters: [Int]) -> [Int] { floaters.flatMap { byGroup[$0]! } }
        // Floaters that touch no numbered person, as people: one, unless their addresses are in
        // two postcode areas (then each area's apart, and those without an address each alone).
        func byArea(_ floaters: [Int]) -> [[Int]] {
            guard disagrees(mentions(floaters).map { keys[$0] }) else { return [mentions(floaters)] }
            let areas = Dictionary(grouping: floaters) { group in Set(byGroup[group]!.compactMap { keys[$0].area }).sorted().joined(separator: ",") }
            return areas.flatMap { area, groups in area.isEmpty ? groups.map { byGroup[$0]! } : [mentions(groups)] }
        }
        func place(_ floaters: [Int]) -> Bool {
            let reached = floaters.reduce(into: Set<Int>()) { $0.formUnion(touches[$1] ?? []) }
            if reached.isEmpty {
                people += byArea(floaters)
                return true
            }
            // Joined only where its addresses are where that person's are (a person who moved
            // has two areas; a letter from a third is someone else, or a third move, for a person to say).
            let areas = Set(mentions(floaters).compactMap { keys[$0].area })
            guard reached.count == 1, let person = anchorPerson[reached.first!], areas.count <= 1,
                  areas.isSubset(of: Set(people[person].compactMap { keys[$0].area })) || !people[person].contains(where: { keys[$0].area != nil })
            else { return false }
            people[person] += mentions(floaters)
            return true
        }
        let loose = Set(byGroup.keys).subtracting(anchors)
        let unheld = shared.filter { $0.isDisjoint(with: anchors) }
        func hasAddress(_ groups: [Int]) -> Bool { groups.contains { group in byGroup[group]!.contains { keys[$0].area != nil } } }
        for floaters in pieces(of: loose, by: shared) where !place(floaters) {
            // Linked to several numbered people: apart by the keys none of them holds. Linked to
            // one, in another postcode area: apart by area.
            let reached = floaters.reduce(into: Set<Int>()) { $0.formUnion(touches[$1] ?? []) }
            let split = reached.count > 1 ? pieces(of: Set(floaters), by: unheld)
                : Array(Dictionary(grouping: floaters.filter { hasAddress([$0]) }) { group in
                    Set(byGroup[group]!.compactMap { keys[$0].area }).sorted().joined(separator: ",") }.values)
                  + floaters.filter { !hasAddress([$0]) }.map { [$0] }
            // Those with an address first: one that stays a person of its own is another person
            // one without an address may be, which then stays alone too.
            var competing = false
            for piece in split where hasAddress(piece) && !place(piece) {
                people += byArea(piece)
                competing = true
            }
            for piece in split where !hasAddress(piece) && (competing || !place(piece)) {
                people.append(mentions(piece))
            }
        }
        return people
    }
}

/// Union–find over `0..<count`, with path halving and union by size.
struct DisjointSets {
    private var parent: [Int]
    private var size: [Int]

    init(_ count: Int) {
        parent = Array(0..<count)
        size = [Int](repeating: 1, count: count)
    }

    mutating func find(_ x: Int) -> Int {
        var x = x
        while parent[x] != x {
            parent[x] = parent[parent[x]]
            x = parent[x]
        }
        return x
    }

    mutating func union(_ a: Int, _ b: Int) {
        var (a, b) = (find(a), find(b))
        guard a != b else { return }
        if size[a] < size[b] { swap(&a, &b) }
        parent[b] = a
        size[a] += size[b]
    }
}

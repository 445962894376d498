import Foundation

/// The GP practices a page names, made official: matched to NHS England's list by postcode,
/// then by the words of the practice's name within the postcode district, as the app's
/// `NHSLookupService` does. A unique match sets the ODS code and official name; several are
/// candidates for a person to choose; none is never a guess. A closed practice at the
/// postcode is said, not matched.
public struct ODSDirectory: Sendable {
    public enum Outcome: Sendable, Equatable {
        /// One open practice: the page's practice is this one.
        case matched(ODSPractice)
        /// Several could be; which is for a person to say.
        case candidates([ODSPractice])
        /// Only practices that closed (or are dormant) are at the postcode.
        case closed([ODSPractice])
        /// None is known there.
        case none
    }

    private let byPostcode: [String: [ODSPractice]]
    private let byDistrict: [String: [ODSPractice]]
    public let count: Int

    public init(_ practices: [ODSPractice]) {
        byPostcode = Dictionary(grouping: practices, by: \.postcode)
        byDistrict = Dictionary(grouping: practices, by: \.district)
        count = practices.count
    }

    /// The practice at `postcode` (any spacing or case), told apart by `name` (the practice's
    /// name as the page writes it) and `address` where several could be.
    public func match(postcode: String, name: String? = nil, address: String? = nil) -> Outcome {
        guard let postcode = DocumentPeople.postcode(postcode) else { return .none }
        let here = byPostcode[postcode] ?? []
        let open = here.filter(\.isOpenGPPractice)
        if open.count == 1 { return .matched(open[0]) }
        if open.count > 1 {
            let scored = open.map { (score: Self.score($0, name: name, address: address), practice: $0) }.sorted { $0.score < $1.score }
            if scored[0].score < Self.unmatched, scored[0].score < scored[1].score { return .matched(scored[0].practice) }
            return .candidates(open.sorted { $0.name < $1.name })
        }
        if !here.isEmpty { return .closed(here) }
        guard name != nil || address != nil, let district = postcode.split(separator: " ").first else { return .none }
        let scored = (byDistrict[String(district)] ?? []).filter(\.isOpenGPPractice)
            .map { (score: Self.score($0, name: name, address: address), practice: $0) }
            .sorted { ($0.score, $0.practice.code) < ($1.score, $1.practice.code) }
        guard let best = scored.first else { return .none }
        // The app's rule: the best, when it is a good match (7 or less) by a clear margin (more than 2).
        if best.score <= 7, scored.count == 1 || scored[1].score > best.score + 2 { return .matched(best.practice) }
        return .candidates(scored.prefix(2).map(\.practice))
    }

    /// The app's score (lower is better): 10, less 3 for each word of the name (three letters
    /// or more, not `the`, `surgery`, `practice`, `medical`, `centre`, `group`, `dr`) the
    /// practice's name holds, and each word of the address its name or first line holds.
    static func score(_ practice: ODSPractice, name: String?, address: String?) -> Int {
        let official = practice.name.lowercased(), first = practice.address.first?.lowercased() ?? ""
        var score = unmatched
        for word in words(name, leaving: nameStopWords) where official.contains(word) { score -= 3 }
        for word in words(address, leaving: addressStopWords) where official.contains(word) || first.contains(word) { score -= 3 }
        return score
    }

    static let unmatched = 10
    private static let nameStopWords: Set<String> = ["the", "surgery", "practice", "medical", "centre", "center", "group", "dr"]
    private static let addressStopWords: Set<String> = ["the", "road", "street", "lane", "avenue", "close", "drive"]

    private static func words(_ text: String?, leaving stop: Set<String>) -> [String] {
        (text ?? "").lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
            .filter { $0.count > 2 && !stop.contains($0) }
    }
}

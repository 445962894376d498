import Foundation

/// An address written on one line, as a letter's `Re:` line gives it (`Add: 14 Oak Lane Reigate
/// Surrey RH2 7AA`, the lines joined by spaces) or a `cc:` line (`Flat 2, 14 Oak Lane, Reigate
/// RH2 7AA`, joined by commas), split into the app's `line_1`, `line_2`, `city` and `county`:
/// the county and town found at its end by the postcode's sector (else any county the table
/// knows, and the words after the street), the rest cut into lines where a new one begins (a
/// house number after a word, the word after a street's name, a street after a house's name).
enum OneLineAddress {
    /// Words that end a street's name.
    static let streetWords: Set<String> = [
        "road", "street", "lane", "avenue", "drive", "close", "way", "court", "grove", "green", "place", "crescent", "gardens",
        "terrace", "square", "walk", "rise", "hill", "row", "mews", "park", "view", "parade", "hollow", "wharf", "quay", "vale",
        "end", "meadow", "meadows", "fields", "parkway", "boulevard", "broadway", "kingsway", "causeway", "approach", "gate",
    ]
    /// Words that end a house's name (`Rose Cottage`, `The Old Forge`).
    static let houseWords: Set<String> = [
        "cottage", "cottages", "house", "forge", "barn", "lodge", "farm", "farmhouse", "hall", "manor", "villa", "bungalow",
        "grange", "rectory", "vicarage", "oast", "chapel", "mill", "granary", "stables", "coach",
    ]
    /// Words after which a number is the flat's, not a street's (`Flat 9 8 Orchard Close`).
    private static let unitWords: Set<String> = ["flat", "apartment", "apt", "unit", "suite", "room", "no", "number", "block", "floor"]

    /// The address in `text` (everything before `postcode`, which ends it).
    static func split(_ text: Substring, postcode: String, sectors: PostcodeSectors) -> AddressPage.Address {
        var address = AddressPage.Address()
        address.postcode = postcode
        var rest = text.trimming(" ,.;\n\t")
        if !rest.contains(where: \.isLowercase) { rest = LetterNames.titleCased(rest) }
        let place = sectors.place(of: postcode)
        // The county, then the town, at the end.
        if let county = trailing(rest, matching: [place?.county].compactMap { $0 }, orAnyOf: sectors.counties) {
            address.county = String(rest.suffix(county))
            rest = trimmedEnd(rest.dropLast(county))
        }
        if let town = place?.town, let length = trailing(rest, matching: [town], orAnyOf: []) {
            address.city = String(rest.suffix(length))
            rest = trimmedEnd(rest.dropLast(length))
        }
        var lines: [String]
        if rest.contains(",") {
            lines = rest.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if address.city == nil, lines.count >= 2, let last = lines.last, last.first?.isNumber != true, !AddressPage.Address.isStreetLine(last) {
                address.city = last
                lines.removeLast()
            }
        } else {
            lines = cut(rest.split(separator: " ").map(String.init))
            if address.city == nil, lines.count >= 2, let last = lines.last, last.first?.isNumber != true {
                address.city = last
                lines.removeLast()
            }
        }
        address.line1 = lines.first
        address.line2 = lines.count > 1 ? lines.dropFirst().joined(separator: ", ") : nil
        address.fill(from: sectors)
        return address
    }

    /// The length of the name among `names` (else `any`, lowercased) that `text` ends with, as a whole word.
    private static func trailing(_ text: String, matching names: [String], orAnyOf any: Set<String>) -> Int? {
        let lower = text.lowercased()
        for name in names where !name.isEmpty {
            let name = name.lowercased()
            if lower.hasSuffix(name), lower.count > name.count, !lower.dropLast(name.count).last!.isLetter { return name.count }
        }
        guard !any.isEmpty else { return nil }
        let words = lower.split(separator: " ")
        for count in stride(from: min(4, words.count - 1), through: 1, by: -1) {
            let tail = words.suffix(count).joined(separator: " ")
            if any.contains(tail) { return tail.count }
        }
        return nil
    }

    private static func trimmedEnd(_ text: Substring) -> String {
        String(text).trimming(" ,.;\n\t")
    }

    /// Words cut into address lines: before a house number that follows a word (unless a flat's
    /// word), after a street's name when the next word is not a street word too, after a
    /// house's name when a street (or a number) follows.
    static func cut(_ words: [String]) -> [String] {
        var lines: [[String]] = []
        var current: [String] = []
        for (index, word) in words.enumerated() {
            if let previous = current.last {
                let bare = previous.lowercased().trimmingCharacters(in: .punctuationCharacters)
                let next = word.lowercased().trimmingCharacters(in: .punctuationCharacters)
                let startsNumber = word.first?.isNumber == true
                let newLine = (startsNumber && !unitWords.contains(bare) && !(previous.first?.isNumber == true && current.count == 1))
                    || (!startsNumber && streetWords.contains(bare) && !streetWords.contains(next) && current.count >= 2)
                    || (!startsNumber && houseWords.contains(bare) && !houseWords.contains(next) && current.count >= 2
                        && current.first?.first?.isNumber != true
                        && !(streetWords.contains(next) && index == words.count - 1))  // `Old Mill Lane` is a street
                if newLine {
                    lines.append(current)
                    current = []
                }
            }
            current.append(word)
        }
        if !current.isEmpty { lines.append(current) }
        return lines.map { $0.joined(separator: " ") }
    }
}

import Foundation

/// The town and county of each postcode sector of England and Wales (the ONS Postcode
/// Directory's facts, as the app's `PostcodeLookup` holds them), read at run time from
/// `postcode-sectors.tsv` once per process. Where the file cannot be found, towns and
/// counties are simply not filled from postcodes: ``problem`` says why.
public struct PostcodeSectors: Sendable {
    public struct Place: Sendable, Equatable {
        public let town: String?
        public let county: String?

        public init(town: String?, county: String?) {
            self.town = town
            self.county = county
        }
    }

    /// The file's name, beside the program or in `$YIANA_DATA_DIR`.
    public static let fileName = "postcode-sectors.tsv"

    private let places: [String: Place]
    /// Every county the table names, lowercased: to tell a county line from a town line.
    let counties: Set<String>
    /// The postcode areas (`RH`, `SW`) the table holds sectors of.
    let areas: Set<String>
    /// Where the table was read from.
    public let source: URL?
    /// Why there is no table, when there is none.
    public let problem: String?

    public var count: Int { places.count }

    /// The table of this process, read at first use.
    public static let shared = PostcodeSectors.load()

    /// A table from the text of a `postcode-sectors.tsv` (`sector<TAB>town<TAB>county`, `#` comments).
    public init(tsv: String, source: URL? = nil) {
        var places: [String: Place] = [:]
        var counties = Set<String>()
        for line in tsv.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard fields.count >= 2 else { continue }
            let town = fields[1].isEmpty ? nil : String(fields[1])
            let county = fields.count > 2 && !fields[2].isEmpty ? String(fields[2]) : nil
            places[String(fields[0])] = Place(town: town, county: county)
            if let county { counties.insert(county.lowercased()) }
        }
        self.places = places
        self.counties = counties
        areas = Set(places.keys.map { String($0.prefix { $0.isLetter }) })
        self.source = source
        self.problem = nil
    }

    private init(problem: String) {
        places = [:]
        counties = []
        areas = []
        source = nil
        self.problem = problem
    }

    /// The town and county of the sector `postcode` lies in.
    public func place(of postcode: String) -> Place? {
        Self.sector(of: postcode).flatMap { places[$0] }
    }

    /// The sector of a postcode: its outward code, a space and the first digit of its inward
    /// code (`RH1 2AA` → `RH1 2`).
    public static func sector(of postcode: String) -> String? {
        let compact = postcode.uppercased().filter { !$0.isWhitespace }
        guard compact.count >= 5, compact.count <= 7 else { return nil }
        let inward = compact.suffix(3)
        return "\(compact.dropLast(3)) \(inward.first!)"
    }

    /// Where the table may be: `$YIANA_DATA_DIR`, SwiftPM's resource folder beside the
    /// program, `../share/yiana-tools/` from it (an installed package), and the source tree
    /// the program was built from.
    static func candidates(environment: [String: String] = ProcessInfo.processInfo.environment) -> [URL] {
        var urls: [URL] = []
        if let folder = environment["YIANA_DATA_DIR"], !folder.isEmpty {
            urls.append(URL(fileURLWithPath: folder).appendingPathComponent(fileName))
        }
        if let program = Bundle.main.executableURL?.resolvingSymlinksInPath() {
            let folder = program.deletingLastPathComponent()
            urls.append(folder.appendingPathComponent("yiana-tools_YianaExtract.resources").appendingPathComponent(fileName))
            urls.append(folder.deletingLastPathComponent().appendingPathComponent("share/yiana-tools").appendingPathComponent(fileName))
        }
        urls.append(URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Data").appendingPathComponent(fileName))
        return urls
    }

    static func load() -> PostcodeSectors {
        let candidates = candidates()
        for url in candidates {
            if let text = try? String(contentsOf: url, encoding: .utf8) { return PostcodeSectors(tsv: text, source: url) }
        }
        return PostcodeSectors(problem: "the postcode table (\(fileName)) is in none of \(candidates.map(\.path).joined(separator: ", ")); "
                               + "towns and counties are not filled from postcodes. Set YIANA_DATA_DIR to the folder that holds it.")
    }
}

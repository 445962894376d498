import Foundation
import YianaArchive

/// A GP practice (or a branch surgery) as NHS England's Organisation Data Service publishes it.
public struct ODSPractice: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        case active, closed, dormant, proposed
    }

    /// The ODS code: `A81001`; a branch surgery's is its practice's and three more characters.
    public var code: String
    /// The official name, as published (capitals).
    public var name: String
    /// The address lines as published, the empty ones left out (the town among them).
    public var address: [String]
    /// `TS18 1HU`.
    public var postcode: String
    public var status: Status
    /// `YYYYMMDD`.
    public var opened: String?
    public var closed: String?
    /// The prescribing setting: 4 is a GP practice (others: out of hours, walk-in, prison, …);
    /// nil when the file does not say.
    public var setting: Int?

    public init(code: String, name: String, address: [String], postcode: String, status: Status,
                opened: String? = nil, closed: String? = nil, setting: Int? = nil) {
        (self.code, self.name, self.address, self.postcode, self.status) = (code, name, address, postcode, status)
        (self.opened, self.closed, self.setting) = (opened, closed, setting)
    }

    /// The postcode's outward part: `TS18`.
    public var district: String { String(postcode.split(separator: " ").first ?? "") }
    /// A branch surgery's practice (its code's first six characters).
    public var practice: String? { code.count > 6 ? String(code.prefix(6)) : nil }
    /// What a patient's GP can be: a GP practice (or a branch), open.
    var isOpenGPPractice: Bool { status == .active && (setting == nil || setting == 4) }
}

/// NHS England's GP practice file, `epraccur.csv` (and `ebranchs.csv`, the branch surgeries),
/// as published, without a header: organisation code, name, national grouping, high level
/// health geography, address lines 1 to 5, postcode, open date, close date, status code
/// (A active, C closed, D dormant, P proposed), organisation sub-type, commissioner, join and
/// left dates, telephone, …, and the prescribing setting in the 26th column.
public enum ODSFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The practices of the file at `path`: a CSV, or a ZIP holding one (`epraccur.zip`).
    /// - Returns: the practices and the numbers of the lines that do not read as one.
    /// - Throws: ``Failure`` naming the file when it cannot be read or holds no practice.
    public static func read(_ path: String) throws -> (practices: [ODSPractice], unreadLines: [Int]) {
        let data: Data
        do {
            if let zipped = try? ZipFile.firstEntry(at: path, limit: 256 << 20, where: { $0.lowercased().hasSuffix(".csv") }) {
                data = zipped.data
            } else {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            }
        } catch {
            throw Failure(description: "\(path) cannot be read: \(error.localizedDescription)")
        }
        var practices: [ODSPractice] = [], unread: [Int] = []
        for (number, fields) in CSVLines.parse(String(decoding: data, as: UTF8.self)).enumerated() where !fields.allSatisfy(\.isEmpty) {
            guard let practice = practice(fields) else { unread.append(number + 1); continue }
            practices.append(practice)
        }
        guard !practices.isEmpty else {
            throw Failure(description: "\(path) holds no GP practice in the published layout (epraccur.csv: code, name, …, postcode in the 10th column, status in the 13th)")
        }
        return (practices, unread)
    }

    static func practice(_ fields: [String]) -> ODSPractice? {
        guard fields.count >= 13, !fields[0].isEmpty, !fields[1].isEmpty,
              let postcode = DocumentPeople.postcode(fields[9]) else { return nil }
        let status: ODSPractice.Status
        switch fields[12].uppercased() {
        case "A": status = .active
        case "C": status = .closed
        case "D": status = .dormant
        case "P": status = .proposed
        default: return nil
        }
        return ODSPractice(code: fields[0].uppercased(), name: fields[1], address: fields[4...8].filter { !$0.isEmpty }, postcode: postcode,
                           status: status, opened: fields[10].isEmpty ? nil : fields[10], closed: fields[11].isEmpty ? nil : fields[11],
                           setting: fields.count > 25 ? Int(fields[25]) : nil)
    }
}

/// Comma-separated lines with fields in double quotes (a quote inside doubled), as RFC 4180,
/// but for one thing: a line ends at its line break even inside quotes (no field of the ODS
/// files holds one), so that a quote left open spoils its own line only, never the rest.
enum CSVLines {
    static func parse(_ text: String) -> [[String]] {
        let characters = Array(text)
        var lines: [[String]] = [], fields: [String] = [], field = ""
        var index = 0, quoted = false
        while index < characters.count {
            let character = characters[index]
            index += 1
            if quoted, !character.isNewline {
                if character != "\"" {
                    field.append(character)
                } else if index < characters.count, characters[index] == "\"" {
                    field.append("\"")
                    index += 1
                } else {
                    quoted = false
                }
                continue
            }
            switch character {
            case "\"": quoted = true
            case ",": fields.append(field); field = ""
            case "\n", "\r\n", "\r": fields.append(field); lines.append(fields); fields = []; field = ""; quoted = false
            default: field.append(character)
            }
        }
        if !field.isEmpty || !fields.isEmpty { fields.append(field); lines.append(fields) }
        return lines
    }
}

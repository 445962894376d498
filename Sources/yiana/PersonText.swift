import Foundation
import YianaPeople

/// How `yiana people` writes a person for a reader.
enum PersonText {
    /// `943 476 5919`.
    static func nhs(_ digits: String) -> String {
        guard digits.count == 10 else { return digits }
        let characters = Array(digits)
        return "\(String(characters[0..<3])) \(String(characters[3..<6])) \(String(characters[6...]))"
    }

    /// One line: id, name, date of birth, NHS number, documents.
    static func line(_ person: Person) -> String {
        var parts = ["\(person.id)  \(person.name)"]
        if let born = person.dateOfBirth { parts.append("born \(born)") }
        if let number = person.nhsNumber { parts.append("NHS \(nhs(number))") }
        if !person.mrns.isEmpty { parts.append("MRN \(person.mrns.joined(separator: ", "))") }
        parts.append("\(person.documents.count) document\(person.documents.count == 1 ? "" : "s")")
        return parts.joined(separator: ", ")
    }

    /// Everything of one person, each fact with where it came from.
    static func describe(_ person: Person, in register: Register) -> String {
        var lines = [line(person), ""]
        let labels = ["name": "Name", "date_of_birth": "Born", "nhs_number": "NHS number", "mrn": "Hospital number",
                      "postcode": "Postcode", "address": "Address", "phone": "Phone"]
        for identifier in person.identifiers {
            let value = identifier.kind == "nhs_number" ? nhs(identifier.value) : identifier.value
            lines.append("\(labels[identifier.kind] ?? identifier.kind): \(value)")
            for place in identifier.from.prefix(5) { lines.append("    from \(placeText(place))") }
            if identifier.from.count > 5 { lines.append("    and \(identifier.from.count - 5) more") }
        }
        if let now = person.gps.first {
            lines.append("")
            lines.append("GP now: \(link(now))")
            for before in person.gps.dropFirst() { lines.append("GP before: \(link(before))") }
        }
        for practitioner in person.practitioners { lines.append("\(practitioner.role): \(link(practitioner))") }
        lines.append("")
        lines.append("Documents, newest first:")
        for document in person.documents { lines.append("  \(document)") }
        let duplicates = register.duplicates.filter { $0.a == person.id || $0.b == person.id }
        if !duplicates.isEmpty {
            lines.append("")
            lines.append("May be the same person as:")
            for duplicate in duplicates {
                let other = duplicate.a == person.id ? duplicate.b : duplicate.a
                lines.append("  \(register.people.first { $0.id == other }.map(line) ?? other)")
                lines.append("    for: \(duplicate.evidence.for.joined(separator: "; "))")
                if !duplicate.evidence.against.isEmpty { lines.append("    against: \(duplicate.evidence.against.joined(separator: "; "))") }
            }
        }
        return lines.joined(separator: "\n")
    }

    private static func placeText(_ place: Place) -> String {
        switch place.source {
        case .fileName: "the file name of \(place.document)"
        case .folderName: "the folder of \(place.document)"
        case .page: "page \(place.page) of \(place.document)"
        case .corrected: "page \(place.page) of \(place.document), as corrected"
        case .added: "an entry made by a person for \(place.document)"
        }
    }

    private static func link(_ link: PractitionerLink) -> String {
        var text = link.name
        if let practice = link.practice { text += ", \(practice)" }
        if let official = link.officialName, let code = link.odsCode { text += " (NHS: \(official), \(code))" }
        let seen = [link.firstSeen, link.lastSeen].compactMap { $0 }
        if let first = seen.first, let last = seen.last { text += first == last ? " (\(first))" : " (\(first) to \(last))" }
        return text + ", \(link.documents) document\(link.documents == 1 ? "" : "s")"
    }

    /// `merge` and `apart`: recorded, and said.
    static func decide(_ action: PeopleDecision.Action, _ pair: DecisionArguments) async throws {
        let (library, documents, _) = try await pair.options.documents()
        let (a, b) = (pair.a, pair.b)
        let by = "\(ProcessInfo.processInfo.userName)@\(ProcessInfo.processInfo.hostName)"
        do {
            let register = try Register.decide(action, a, b, documents: documents, library: library, by: by)
            let first = try register.person(a)
            switch action {
            case .merge: print("merged: \(line(first))")
            case .apart: print("kept apart: \(line(first)) and \(line(try register.person(b)))")
            }
        } catch let error as PeopleError {
            throw CommandFailure(error.description)
        }
    }
}

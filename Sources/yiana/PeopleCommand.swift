import ArgumentParser
import Foundation
import YianaLibrary
import YianaPeople
import YianaSearch

extension Yiana {
    struct People: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "people",
            abstract: "The register of people: who the library is about, each person once.",
            discussion: """
                Made from the documents' names (Surname_Firstname_DDMMYY, as the app names \
                a patient's document or folder) and their address files (.addresses/, each \
                page with a person's newest correction laid over it), as `yiana index` last \
                read them, and from the decisions recorded with `merge` and `apart`.

                One person once, by rules a clinician signs (docs/PEOPLE.md): the same valid \
                NHS number is one person; the same hospital number and date of birth is one \
                person; the same name and date of birth is one person when no NHS number or \
                hospital number disagrees. Anything less (a name alone, a date of birth a \
                digit apart or with day and month swapped, a misread surname) is never \
                merged: `yiana people duplicates` lists it with the evidence, for a person to \
                decide with `merge` or `apart`. Decisions are kept in the library \
                (.yiana/devices/), so every device sees them, and survive every rebuild.

                Examples:
                  yiana people list
                  yiana people show "943 476 5919"
                  yiana people show Whitfield --json
                  yiana people duplicates
                  yiana people merge p1a2b3c4d5 p6e7f8a9b0
                """,
            subcommands: [List.self, Show.self, Duplicates.self, Merge.self, Apart.self, ODSImport.self]
        )
    }
}

/// `--library`, `--index`: the register as the index holds it.
struct RegisterOptions: ParsableArguments {
    @OptionGroup var libraryOptions: LibraryOptions
    @OptionGroup var indexOptions: IndexOptionGroup

    /// The library and what its register is made of, read from the index: the documents'
    /// people and the GP practices of NHS England's file.
    func documents() async throws -> (Library, [RegisterDocument], ODSDirectory) {
        try await withIndex { library, index in
            (library, try await index.registerDocuments(), ODSDirectory(try await index.odsPractices()))
        }
    }

    /// `body` with the library and its index (the one that holds its register).
    func withIndex<T>(writing: Bool = false, _ body: (Library, any IndexStore) async throws -> T) async throws -> T {
        let library = try libraryOptions.open()
        let location = try indexOptions.resolve(for: library)
        guard let index = try await location.openExisting(library, writable: writing) else {
            throw CommandFailure("there is no index for \(library.root.path) yet, and the register of people is kept with it; run `yiana index` first.")
        }
        do {
            let result = try await body(library, index)
            await index.close()
            return result
        } catch let error as CommandFailure {
            await index.close()
            throw error
        } catch {
            await index.close()
            throw CommandFailure("the index at \(location) does not hold the register of people yet (\(error)); run `yiana index` to bring it up to date.")
        }
    }
}

extension Yiana.People {
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the people of the register, A to Z by surname.",
            discussion: """
                --json gives an array of people, each with id, name, date_of_birth, nhs_number, mrns, \
                documents (library-relative paths, newest first), gp (now) and mentions (each page that \
                names them: document, page, source); what is not known is null.

                Examples:
                  yiana people list
                  yiana people list --json | jq '.[] | select(.nhs_number == null) | .name'
                """)

        @OptionGroup var options: RegisterOptions
        @Flag(help: "Print the people as JSON.") var json = false

        func run() async throws {
            let (library, documents, ods) = try await options.documents()
            let register = Register(documents: documents, library: library, ods: ods)
            let people = register.people.map { (key: PersonName($0.name)?.surname ?? "", person: $0) }
                .sorted { ($0.key, $0.person.name, $0.person.id) < ($1.key, $1.person.name, $1.person.id) }.map(\.person)
            if json {
                try Output.json(people.map(Person.Summary.init))
                return
            }
            for person in people {
                let nhs = person.nhsNumber.map { " NHS \(PersonText.nhs($0))" } ?? ""
                print("\(person.id)  \(person.name)\(person.dateOfBirth.map { ", born \($0)" } ?? "")\(nhs)  (\(person.documents.count) document\(person.documents.count == 1 ? "" : "s"))")
            }
            let duplicates = register.duplicates.count
            Output.error("\(people.count) people\(duplicates > 0 ? "; \(duplicates) possible duplicate\(duplicates == 1 ? "" : "s") to decide (`yiana people duplicates`)" : "")")
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "show",
            abstract: "Everything the library says of one person, each fact with the pages that give it.",
            discussion: """
                PERSON is a register id, an NHS number (spaces allowed), a hospital number or a name \
                (any order, any capitals); when several people match a name, their ids are listed \
                for you to choose.

                Examples:
                  yiana people show "943 476 5919"
                  yiana people show Eleanor Whitfield
                  yiana people show p3fa9c1e2b7 --json
                """)

        @OptionGroup var options: RegisterOptions
        @Flag(help: "Print the person as JSON.") var json = false
        @Argument(help: ArgumentHelp("A register id, NHS number, hospital number or name.", valueName: "person")) var person: [String]

        func run() async throws {
            let (library, documents, ods) = try await options.documents()
            let register = Register(documents: documents, library: library, ods: ods)
            let found: Person
            do { found = try register.person(person.joined(separator: " ")) } catch let error as PeopleError { throw CommandFailure(error.description) }
            if json {
                try Output.json(found)
                return
            }
            print(PersonText.describe(found, in: register))
        }
    }

    struct Duplicates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "duplicates",
            abstract: "List people who may be one, with what speaks for and against, for a person to decide.",
            discussion: """
                Decide each with `yiana people merge A B` (one person) or `yiana people apart A B` \
                (two people: no longer listed). --json gives an array, each with a and b (the \
                people's ids) and evidence (for and against). Exit code 1 when any is listed.

                Examples:
                  yiana people duplicates
                  yiana people duplicates --json | jq length
                """)

        @OptionGroup var options: RegisterOptions
        @Flag(help: "Print the possible duplicates as JSON.") var json = false

        func run() async throws {
            let (library, documents, ods) = try await options.documents()
            let register = Register(documents: documents, library: library, ods: ods)
            if json {
                try Output.json(register.duplicates)
            } else {
                let byID = Dictionary(uniqueKeysWithValues: register.people.map { ($0.id, $0) })
                for duplicate in register.duplicates {
                    print("\(PersonText.line(byID[duplicate.a]!))\n  and \(PersonText.line(byID[duplicate.b]!))")
                    print("  for: \(duplicate.evidence.for.joined(separator: "; "))")
                    if !duplicate.evidence.against.isEmpty { print("  against: \(duplicate.evidence.against.joined(separator: "; "))") }
                    print("  decide: yiana people merge \(duplicate.a) \(duplicate.b)   or   yiana people apart \(duplicate.a) \(duplicate.b)\n")
                }
                Output.error(register.duplicates.isEmpty ? "no possible duplicates" : "\(register.duplicates.count) possible duplicate\(register.duplicates.count == 1 ? "" : "s")")
            }
            if !register.duplicates.isEmpty { throw ExitCode.failure }
        }
    }

    struct Merge: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "merge",
            abstract: "Record that two people of the register are one.",
            discussion: """
                Recorded in the library (.yiana/devices/), so every device sees it. Refused when they \
                hold different NHS numbers, or different numbers of one hospital. `yiana people \
                apart A B` undoes it.

                Example:
                  yiana people merge p3fa9c1e2b7 p81d0a6c5e4
                """)

        @OptionGroup var pair: DecisionArguments

        func run() async throws {
            try await PersonText.decide(.merge, pair)
        }
    }

    struct Apart: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apart",
            abstract: "Record that two people of the register are two: no longer listed as possible duplicates.",
            discussion: """
                Recorded in the library (.yiana/devices/), so every device sees it. Undoes a merge: \
                name the two as `yiana people duplicates` listed them (their ids before the merge).

                Example:
                  yiana people apart p3fa9c1e2b7 p81d0a6c5e4
                """)

        @OptionGroup var pair: DecisionArguments

        func run() async throws {
            try await PersonText.decide(.apart, pair)
        }
    }
}

extension Yiana.People {
    struct ODSImport: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "ods-import",
            abstract: "Read NHS England's GP practice file, to make the GPs' practices official.",
            discussion: """
                FILE is epraccur.csv as NHS England's Organisation Data Service publishes it (or \
                epraccur.zip; ebranchs.csv for the branch surgeries), without a header: code, name, \
                …, postcode in the 10th column, status in the 13th. It replaces the practices read \
                before. Each GP practice a page names is then matched by its postcode, else by its \
                name's words among the open practices of its postcode district, as the app does: \
                one open practice sets its ODS code and official name; several are candidates for \
                a person to choose; a closed practice is said, never matched; none is never a guess.

                Examples:
                  yiana people ods-import ~/Downloads/epraccur.zip
                  yiana people ods-import epraccur.csv --json
                """)

        @OptionGroup var options: RegisterOptions
        @Flag(help: "Print what was read and matched as JSON.") var json = false
        @Argument(help: ArgumentHelp("The practice file: epraccur.csv, or the zip that holds it.", valueName: "file")) var file: String

        struct Report: Encodable {
            var practices = 0, open = 0, closed = 0, branches = 0
            var unreadLines: [Int] = []
            var matched = 0, candidates = 0, closedPractice = 0, unmatched = 0

            enum CodingKeys: String, CodingKey {
                case practices, open, closed, branches, unreadLines = "unread_lines", matched, candidates, closedPractice = "closed_practice", unmatched
            }
        }

        func run() async throws {
            let read: (practices: [ODSPractice], unreadLines: [Int])
            do { read = try ODSFile.read(file) } catch let error as ODSFile.Failure { throw CommandFailure(error.description) }
            var report = Report(practices: read.practices.count, open: read.practices.filter { $0.status == .active }.count,
                                closed: read.practices.filter { $0.status == .closed }.count,
                                branches: read.practices.filter { $0.practice != nil }.count, unreadLines: read.unreadLines)
            let (library, documents) = try await options.withIndex(writing: true) { library, index in
                try await index.replaceODSPractices(read.practices)
                return (library, try await index.registerDocuments())
            }
            let register = Register(documents: documents, library: library, ods: ODSDirectory(read.practices))
            for gp in register.practitioners where gp.role == "GP" {
                if gp.odsCode != nil { report.matched += 1 } else if !gp.odsCandidates.isEmpty { report.candidates += 1 }
                else if gp.odsNote != nil { report.closedPractice += 1 } else { report.unmatched += 1 }
            }
            if json { return try Output.json(report) }
            print("read \(report.practices) practices from \(file) (\(report.open) open, \(report.closed) closed, \(report.branches) branch surgeries)")
            if !report.unreadLines.isEmpty {
                Output.error("\(report.unreadLines.count) line\(report.unreadLines.count == 1 ? "" : "s") not a practice in the published layout (line \(report.unreadLines.prefix(10).map(String.init).joined(separator: ", "))\(report.unreadLines.count > 10 ? ", …" : ""))")
            }
            print("the library's GP practices: \(report.matched) matched, \(report.candidates) with candidates to choose from, \(report.closedPractice) at a closed practice's postcode, \(report.unmatched) not found")
        }
    }
}

/// The two people a decision is about.
struct DecisionArguments: ParsableArguments {
    @OptionGroup var options: RegisterOptions
    @Argument(help: ArgumentHelp("The first person: a register id, NHS number, hospital number or name.", valueName: "a")) var a: String
    @Argument(help: ArgumentHelp("The second person.", valueName: "b")) var b: String
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaPostgres
import YianaSearch
import YianaSystem

extension Yiana {
    struct Search: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "search",
            abstract: "Search the library's documents.",
            discussion: """
                Type words as you would anywhere: all of them must occur. "Quoted words" \
                match as a phrase, inv* matches a prefix, and codes like A-1312/B, e-mail or \
                10:30 match as written. Titles weigh most, then tags, folder names and page \
                text. Each document is listed once, with its best matching pages (--pages, 3) and how many others match. \
                The people the app found in a document and the corrections made to them \
                (.addresses/) are searched with it: such a match is listed as `addresses` \
                (source "addresses" in --json), not as a page. Exit code 1 when nothing \
                matches. Run `yiana index` first.

                A slip is forgiven: a word of 5 to 8 letters also finds words one edit away \
                (a letter dropped, added, changed, or two swapped), of 9 or more two edits, and \
                OCR's misreadings (rn for m, cl for d, 1 for l, …) count as one edit. Such \
                documents come after every document with the words as typed, each marked \
                with what it matched (Marlowe ~ mariowe; "approximate" in --json). Short \
                words, numbers, codes, "quoted words" and prefixes match exactly, and so does \
                everything with --exact.

                Examples:
                  yiana search bank statement
                  yiana search --tag tax --since 2025-01-01 "annual return"
                  yiana search --folder Letters --json invoice | jq '.[0].path'
                  yiana search --document "Letters/Bank statement" --pages 50 invoice
                  yiana search Marlowe         (also finds a scan that reads "Mariowe")
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var indexOptions: IndexOptionGroup

        @Option(name: .customLong("tag"), help: ArgumentHelp("Only documents with this tag; repeat for several (all must match).", valueName: "tag"))
        var tags: [String] = []

        @Option(help: ArgumentHelp("Only documents in this folder of the library, or below it.", valueName: "folder"))
        var folder: String?

        @Option(help: ArgumentHelp("Only documents created on or after this date (YYYY-MM-DD or ISO 8601).", valueName: "date"))
        var since: String?

        @Option(help: ArgumentHelp("Only documents created on or before this date (YYYY-MM-DD or ISO 8601).", valueName: "date"))
        var until: String?

        @Option(help: "At most this many documents.")
        var limit = 20

        @Option(help: ArgumentHelp("The best matching pages shown of each document (the others are counted); with --document, all you want to see.", valueName: "n"))
        var pages = 3

        @Option(help: ArgumentHelp("Only this document (its path in the library, as the results give it): its matching pages.", valueName: "path"))
        var document: String?

        @Option(help: ArgumentHelp("relevance (the best first), newest or oldest (by when changed), or title.", valueName: "order"))
        var sort: SearchOrder = .relevance

        @Flag(help: "Print the results as JSON.")
        var json = false

        @Flag(name: .customLong("fts"), help: "Treat the query as SQLite FTS5 syntax (AND, OR, NOT, NEAR, column:word); with a PostgreSQL index, as its web search syntax (\"a phrase\", or, -word).")
        var advanced = false

        @Flag(help: "Match every word exactly as typed: no word found through a slip of the keyboard or of OCR.")
        var exact = false

        @Argument(help: ArgumentHelp("What to look for.", valueName: "query"))
        var query: [String]

        func validate() throws {
            guard limit >= 1 else { throw ValidationError("--limit must be at least 1.") }
            guard pages >= 1 else { throw ValidationError("--pages must be at least 1.") }
            guard !query.isEmpty else { throw ValidationError("say what to search for.") }
            _ = try Self.date(since, option: "--since", endOfDay: false)
            _ = try Self.date(until, option: "--until", endOfDay: true)
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let location = try indexOptions.resolve(for: library)
            var options = SearchOptions()
            options.tags = tags
            options.folder = folder
            options.since = try Self.date(since, option: "--since", endOfDay: false)
            options.until = try Self.date(until, option: "--until", endOfDay: true)
            options.limit = limit
            options.advanced = advanced
            options.sort = sort.browseSort
            options.pages = pages
            options.document = document
            options.exact = exact
            let hits: [SearchHit]
            let freshness: Task<IndexFreshness.Staleness?, Never>
            let index: any IndexStore
            do {
                guard let opened = try await location.openExisting(library) else {
                    throw CommandFailure("there is no search index for \(library.root.path)\(location.path == nil ? " on \(location)" : "") yet; "
                                         + "run `yiana index\(indexOptions.path.map { " --index \(Self.quoted($0))" } ?? "")` first.")
                }
                index = opened
                // Whether the library changed since the index saw it, told beside the search
                // (one lstat per folder), so the search waits for nothing.
                freshness = Task { try? await IndexFreshness.check(library, index: opened) }
                do {
                    hits = try await index.search(query.joined(separator: " "), options: options)
                } catch {
                    _ = await freshness.value
                    await index.close()
                    throw error
                }
            } catch let error as SearchError {
                throw CommandFailure(error.description)
            }
            if json {
                try Output.json(hits.map(SearchHitJSON.init))
            } else {
                render(hits)
            }
            // One line on stderr when the library holds changes the index has not seen (a
            // folder listed only when its time moved).
            let stale = await freshness.value
            await index.close()
            if let stale, !stale.isEmpty {
                let option = indexOptions.path.map { " --index \(Self.quoted($0))" } ?? ""
                Output.error("note: \(stale.description) in \(library.root.path) changed since the index was last updated, so results may be missing or out of date; `yiana index\(option)` brings it up to date.")
            }
            if hits.isEmpty { throw ExitCode.failure }
        }

        private func render(_ hits: [SearchHit]) {
            let terminal = Sys.isTerminal(Sys.standardOutput)
            let (open, close) = terminal ? ("\u{1B}[1m", "\u{1B}[0m") : ("[", "]")
            if hits.isEmpty { FileHandle.standardError.write(Data("no document matches.\n".utf8)) }
            for (index, hit) in hits.enumerated() {
                if !hit.approximate.isEmpty, index == 0 || hits[index - 1].approximate.isEmpty {
                    print("\(index == 0 ? "" : "\n")no more with the words as typed; these match approximately:")
                }
                let approximately = hit.approximate.map { "\($0.word) ~ \($0.matches.joined(separator: ", "))" }.joined(separator: "; ")
                print("\(hit.path) — \(hit.title)\(hit.status == .ok ? "" : " (\(hit.status.rawValue))")\(approximately.isEmpty ? "" : "  (\(approximately))")")
                for page in hit.pages {
                    let snippet = Self.mark(page.snippet, open: open, close: close).replacingOccurrences(of: "\n", with: " ")
                    let place = switch page.source {
                    case .addresses: "addresses"
                    case .ocr where page.number == 0: "OCR"
                    default: page.number == 0 ? "title" : "p.\(page.number)"
                    }
                    print("    \(place)  \(snippet)")
                }
                let listed = hit.pages.filter { $0.number > 0 || $0.source != .none }.count
                if hit.matchingPages > listed {
                    print("    … and \(Output.count(hit.matchingPages - listed, "more page")) (--document \(Self.quoted(hit.path)) --pages \(hit.matchingPages))")
                }
            }
        }

        /// A path as a shell would need it typed.
        static func quoted(_ path: String) -> String {
            path.allSatisfy { $0.isLetter || $0.isNumber || "/._-".contains($0) } ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
        }

        static func mark(_ snippet: String, open: String, close: String) -> String {
            SearchHit.marking(snippet, open: open, close: close)
        }

        /// A date option: YYYY-MM-DD (local time; --until includes the whole day) or ISO 8601.
        static func date(_ text: String?, option: String, endOfDay: Bool) throws -> Date? {
            guard let text else { return nil }
            if let day = SearchDate.day(text, endOfDay: endOfDay) { return day }
            if let date = InternetTime.given(text) { return date }
            throw ValidationError("\(option) \(text): not a date; use YYYY-MM-DD or ISO 8601 (2026-03-01T10:00:00Z).")
        }
    }
}

/// `search --sort`: the best first, or the library list's orders.
enum SearchOrder: String, ExpressibleByArgument, CaseIterable {
    case relevance, newest, oldest, title

    var browseSort: BrowseQuery.Sort? { BrowseQuery.Sort(rawValue: rawValue) }
}

import Foundation
import HTTPTypes
import Hummingbird
import YianaLibrary
import YianaPostgres
import YianaSearch
import YianaSystem

/// A search as a request asks for it (`q`, `tag` repeated, `folder`, `since`, `until`,
/// `limit`, `sort`, `pages`, `path`, `exact`), checked as the CLI checks its options: what is wrong is a
/// 400 naming the parameter.
struct SearchRequest {
    /// The most matching pages one answer gives of each document.
    static let maxPages = 500

    let query: String
    let options: SearchOptions
    /// `since` and `until` as given (for the form to show them again).
    let since: String, until: String

    init(_ parameters: Parameters) throws {
        query = (parameters.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        var options = SearchOptions()
        var tags: [String] = []
        for tag in parameters.getAll("tag") where !tag.isEmpty && !tags.contains(tag) { tags.append(tag) }
        guard tags.count <= 20 else { throw HTTPError(.badRequest, message: "tag: at most 20 different tags.") }
        options.tags = tags
        options.folder = parameters.get("folder").flatMap { $0.isEmpty ? nil : $0 }
        since = String((parameters.get("since") ?? "").prefix(40))
        until = String((parameters.get("until") ?? "").prefix(40))
        options.since = try Self.date(parameters.get("since"), name: "since", endOfDay: false)
        options.until = try Self.date(parameters.get("until"), name: "until", endOfDay: true)
        if let text = parameters.get("limit"), !text.isEmpty {
            guard let limit = Int(text), (1...200).contains(limit) else {
                throw HTTPError(.badRequest, message: "limit=\(text.prefix(40)): a number from 1 to 200.")
            }
            options.limit = limit
        }
        if let text = parameters.get("pages"), !text.isEmpty {
            guard let pages = Int(text), (1...SearchRequest.maxPages).contains(pages) else {
                throw HTTPError(.badRequest, message: "pages=\(text.prefix(40)): a number from 1 to \(SearchRequest.maxPages).")
            }
            options.pages = pages
        }
        if let path = parameters.get("path"), !path.isEmpty {
            guard path.utf8.count <= 4096 else { throw HTTPError(.badRequest, message: "path: at most 4096 bytes.") }
            options.document = path
        }
        if let text = parameters.get("exact"), !text.isEmpty {
            guard let exact = ["1": true, "true": true, "0": false, "false": false][text] else {
                throw HTTPError(.badRequest, message: "exact=\(text.prefix(40)): 1 or true (every word exactly as typed), 0 or false.")
            }
            options.exact = exact
        }
        guard query.count <= 500 else { throw HTTPError(.badRequest, message: "q: at most 500 characters.") }
        options.sort = try Self.sort(parameters.get("sort"))
        self.options = options
    }

    /// `sort`: empty or `relevance` (the best first: nil), else the list's orders.
    static func sort(_ text: String?) throws -> BrowseQuery.Sort? {
        guard let text, !text.isEmpty, text != "relevance" else { return nil }
        guard let sort = BrowseQuery.Sort(rawValue: text) else { throw HTTPError(.badRequest, message: "sort=\(text.prefix(40)): relevance, newest, oldest or title.") }
        return sort
    }

    static func date(_ text: String?, name: String, endOfDay: Bool) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        if let day = SearchDate.day(text, endOfDay: endOfDay) { return day }
        if let date = InternetTime.given(text) { return date }
        throw HTTPError(.badRequest, message: "\(name)=\(text.prefix(40)): not a date; use YYYY-MM-DD or ISO 8601.")
    }

    /// The hits (none for a query without a word to search for, as for an empty one), or a 400
    /// for a query the index cannot take.
    func run(on index: any IndexStore) async throws -> [SearchHit] {
        guard !query.isEmpty else { return [] }
        do {
            return try await index.search(query, options: options)
        } catch SearchError.nothingToSearch {
            return []
        } catch let error as SearchError {
            throw HTTPError(.badRequest, message: error.description)
        } catch let error as PostgresIndexError {
            throw HTTPError(.serviceUnavailable, message: error.description)
        }
    }
}

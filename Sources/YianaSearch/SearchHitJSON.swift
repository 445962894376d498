import Foundation

/// A search hit as `yiana search --json` and the server's `/api/search` give it: matched
/// words in snippets marked with `**`.
public struct SearchHitJSON: Codable, Sendable, Equatable {
    public struct Page: Codable, Sendable, Equatable {
        public let number: Int
        public let snippet: String
        public let score: Double
        /// `pdf`, `ocr` or `addresses`.
        public let source: String
    }

    public let path: String
    public let title: String
    public let tags: [String]
    public let created: Date?
    public let status: String
    public let score: Double
    /// The best matching pages (as many as asked for).
    public let pages: [Page]
    /// How many pages match by their own text, those in `pages` and the others.
    public let matchingPages: Int
    /// The words of the query it matched only approximately, and what they matched; empty when
    /// it matched every word as typed.
    public let approximate: [SearchHit.Approximation]

    public init(_ hit: SearchHit) {
        path = hit.path
        title = hit.title
        tags = hit.tags
        created = hit.created
        status = hit.status.rawValue
        score = hit.score
        matchingPages = hit.matchingPages
        approximate = hit.approximate
        pages = hit.pages.map {
            Page(number: $0.number, snippet: SearchHit.marking($0.snippet, open: "**", close: "**"),
                 score: $0.score, source: $0.source.rawValue)
        }
    }
}

extension SearchHit {
    /// `snippet` with the marks around its matched words replaced by `open` and `close`.
    public static func marking(_ snippet: String, open: String, close: String) -> String {
        // One pass over the bytes (the marks are one byte each, never inside a character of
        // several); Foundation's replacingOccurrences, twice per snippet, was a tenth of
        // `serve`'s own time per search.
        let (openByte, closeByte) = (markOpen.utf8.first!, markClose.utf8.first!)
        guard snippet.utf8.contains(where: { $0 == openByte || $0 == closeByte }) else { return snippet }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(snippet.utf8.count + 8 * max(open.utf8.count, close.utf8.count))
        for byte in snippet.utf8 {
            switch byte {
            case openByte: bytes.append(contentsOf: open.utf8)
            case closeByte: bytes.append(contentsOf: close.utf8)
            default: bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

import Foundation
import Hummingbird

extension Request {
    /// The query's parameters as HTML forms and `URLSearchParams` write them
    /// (`application/x-www-form-urlencoded`): `+` is a space, and names and values are
    /// percent-decoded. Hummingbird's `queryParameters` leaves a `+` as it is and its names
    /// undecoded, so a search typed as `reminder bank` in the page (sent `q=reminder+bank`)
    /// would be looked for as the one word `reminder+bank`. A `+` meant as itself comes as
    /// `%2B`, as every link this server makes writes it. A name or value whose escapes are not
    /// UTF-8 (`%FF`) is taken with its escapes as they came.
    var formParameters: Parameters {
        guard let query = uri.query, !query.isEmpty else { return Parameters() }
        return Parameters(query.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (key: Self.formDecoded(parts[0])[...], value: Self.formDecoded(parts.count > 1 ? parts[1] : "")[...])
        })
    }

    /// A form's fields as the browser sends them (`application/x-www-form-urlencoded`), a
    /// field given several times (checkboxes) kept each time; at most `limit` bytes.
    mutating func formBody(upTo limit: Int) async throws -> Parameters {
        let body = String(buffer: try await collectBody(upTo: limit))
        return Parameters(body.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (key: Self.formDecoded(parts[0])[...], value: Self.formDecoded(parts.count > 1 ? parts[1] : "")[...])
        })
    }

    private static func formDecoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

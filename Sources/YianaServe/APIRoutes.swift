import Foundation
import HTTPTypes
import NIOCore
import Hummingbird
import YianaLibrary
import YianaSearch
import YianaWatch

/// The JSON API under `/api/`, described by the OpenAPI document it serves.
struct APIRoutes {
    let library: Library
    let index: IndexHandle

    struct SearchAnswer: Codable {
        struct Stale: Codable {
            let documents: Int
            let folders: Int
        }

        let query: String
        let hits: [SearchHitJSON]
        /// What the library holds that the index has not seen (nil when nothing, or not known).
        let stale: Stale?
    }

    func add(to router: Router<BasicRequestContext>) {
        let library = self.library, index = self.index
        router.get("/api/search") { request, _ -> Response in
            let search = try SearchRequest(request.uri.queryParameters)
            let opened = try index.open()
            let hits = try search.run(on: opened)
            let staleness = (try? IndexFreshness.check(library, index: opened)).flatMap { $0?.isEmpty == false ? $0 : nil }
            let answer = SearchAnswer(query: search.query, hits: hits.map(SearchHitJSON.init),
                                      stale: staleness.map { .init(documents: $0.documents, folders: $0.folders) })
            return try JSONBody.response(answer)
        }
        router.get("/api/health") { _, _ -> Response in
            let health = try LibraryHealth.gather(library, indexPath: index.path)
            return try JSONBody.response(health)
        }
        router.get("/api/openapi.json") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
    }
}

/// JSON as the CLI writes it: sorted keys, ISO 8601 dates.
enum JSONBody {
    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        return Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}

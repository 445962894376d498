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
    let searches: SearchService

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

    func add(to router: some RouterMethods<ServeContext>) {
        let library = self.library, searches = self.searches, index = searches.index
        router.get("/api/search") { request, _ -> Response in
            let search = try SearchRequest(request.formParameters)
            let body = try await searches.answer(search, as: .json) { found in
                try JSONBody.text(SearchAnswer(query: search.query, hits: found.hits.map(SearchHitJSON.init),
                                               stale: found.stale.map { .init(documents: $0.documents, folders: $0.folders) }))
            }
            return Response(status: .ok, headers: [.contentType: JSONBody.contentType], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/api/health") { _, _ -> Response in
            let health = try await LibraryHealth.gather(library, index: try? await index.open())
            return try JSONBody.response(health)
        }
        router.get("/api/openapi.json") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
    }
}

/// JSON as the CLI writes it: sorted keys, ISO 8601 dates.
enum JSONBody {
    static let contentType = "application/json; charset=utf-8"

    static func response<T: Encodable>(_ value: T, status: HTTPResponse.Status = .ok) throws -> Response {
        Response(status: status, headers: [.contentType: contentType], body: .init(byteBuffer: ByteBuffer(string: try text(value))))
    }

    static func text<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// Any other method on the API's paths is answered 405 with the methods it takes (`Allow`),
/// not the router's 404: the path is there, the method is not.
struct MethodNotAllowed: RouterMiddleware {
    typealias Context = ServeContext
    static let paths: Set<String> = ["/api/search", "/api/hits", "/api/health", "/api/jobs", "/api/openapi.json", "/api/libraries"]

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard Self.paths.contains(where: { path.hasSuffix($0) }), request.method != .get, request.method != .head else {
            return try await next(request, context)
        }
        return Response(status: .methodNotAllowed, headers: [.allow: "GET, HEAD", .contentType: JSONBody.contentType],
                        body: .init(byteBuffer: ByteBuffer(string: #"{"error":{"message":"This path takes GET (and HEAD) only."}}"#)))
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaLibrary
import YianaSearch
import YianaWatch

/// `yiana serve`: the library in a browser and a JSON API, on Hummingbird. The routes parse
/// the request and render the answer; the library code the CLI uses does the work.
public enum YianaServer {
    /// Builds the application; `onRunning` is told the address it listens on once it does.
    public static func application(_ options: ServeOptions, onRunning: @escaping @Sendable (String) -> Void = { _ in })
        -> some ApplicationProtocol {
        let router = Router(context: ServeContext.self)
        router.add(middleware: SecurityHeaders())
        let csrf = CSRFToken(), sessions = Sessions()
        router.add(middleware: Gate(password: options.password, sessions: sessions, csrf: csrf))
        router.add(middleware: MethodNotAllowed())
        if let password = options.password {
            LoginRoutes(password: password, sessions: sessions, csrf: csrf, library: options.library).add(to: router)
        }
        let index = IndexHandle(path: options.index)
        let library = options.library
        let searches = SearchService(index: index, library: library)
        APIRoutes(library: library, searches: searches).add(to: router)
        PageRoutes(library: library, searches: searches).add(to: router)
        let images = PageImages(library: library)
        DocumentRoutes(library: library, images: images, versionsToken: options.readOnly ? nil : csrf.value).add(to: router)
        let changes = Changes(library: library, readOnly: options.readOnly, csrf: csrf, indexPath: options.index)
        VersionRoutes(changes: changes, images: images).add(to: router)
        ConflictRoutes(changes: changes).add(to: router)
        DownloadRoutes(changes: changes).add(to: router)
        ImportRoutes(changes: changes, limit: options.importLimit).add(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "yiana"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                onRunning("http://\(host):\(port)/")
            })
    }
}

/// Brings the library's index (if it has one) up to date for documents the server changed,
/// as the commands do after their own writes; a failure is logged, never the request's.
enum IndexAfterWrites {
    static func update(_ relativePaths: [String], library: Library, indexPath: String) async {
        guard !relativePaths.isEmpty, FileManager.default.fileExists(atPath: indexPath) else { return }
        do {
            var options = IndexOptions(jobs: 1)
            options.listEveryDocument = false
            _ = try await Indexer(library: library, index: SearchIndex(path: indexPath)).update(relativePaths.map { library.root.appendingPathComponent($0) }, options: options)
        } catch {
            FileHandle.standardError.write(Data("yiana serve: the search index (\(indexPath)) could not be updated: \(error); run `yiana index`.\n".utf8))
        }
    }
}

/// The search index, opened for reading when first needed (and again if it was missing).
final class IndexHandle: @unchecked Sendable {
    let path: String
    private let lock = NSLock()
    private var index: SearchIndex?

    init(path: String) {
        self.path = path
    }

    /// The index, or an error a person can act on (503: the server is fine, the index is not there yet).
    func open() throws -> SearchIndex {
        lock.lock()
        defer { lock.unlock() }
        if let index { return index }
        guard FileManager.default.fileExists(atPath: path) else {
            throw HTTPError(.serviceUnavailable, message: "There is no search index for this library yet: run `yiana index` (it makes \(path)).")
        }
        do {
            let opened = try SearchIndex(readingAt: path)
            index = opened
            return opened
        } catch let error as SearchError {
            throw HTTPError(.serviceUnavailable, message: error.description)
        }
    }
}

/// Headers every answer carries: a strict Content-Security-Policy (nothing from elsewhere,
/// no inline script or style), no sniffing, no framing, no referrer to other sites.
struct SecurityHeaders<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.xFrameOptions] = "DENY"
        // same-origin, not no-referrer: with no-referrer a browser sends `Origin: null` on its own
        // form posts, which the CSRF check must refuse; other sites still get no referrer.
        response.headers[.referrerPolicy] = "same-origin"
        return response
    }
}

extension HTTPField.Name {
    static let contentSecurityPolicy = Self("Content-Security-Policy")!
    static let xContentTypeOptions = Self("X-Content-Type-Options")!
    static let xFrameOptions = Self("X-Frame-Options")!
    static let referrerPolicy = Self("Referrer-Policy")!
}

import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaLibrary
import YianaPostgres
import YianaSearch
import YianaSystem
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
        StaticRoutes().add(to: router)
        if let password = options.password {
            LoginRoutes(password: password, sessions: sessions, csrf: csrf, library: options.libraries[0]).add(to: router)
        }
        let mounts = Mounts(options.libraries)
        for (name, library) in mounts.all {
            if mounts.all.count == 1 {
                addRoutes(of: library, to: router, options: options, csrf: csrf)
            } else {
                let group = router.group(RouterPath(name))
                group.add(middleware: LibraryBase(base: "/" + name))
                addRoutes(of: library, to: group, options: options, csrf: csrf)
            }
        }
        mounts.add(to: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(options.host, port: options.port), serverName: "yiana"),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                let host = options.host.contains(":") ? "[\(options.host)]" : options.host
                onRunning("http://\(host):\(port)/")
            })
    }

    /// Every page and API route of one library.
    static func addRoutes(of library: Library, to router: some RouterMethods<ServeContext>, options: ServeOptions, csrf: CSRFToken) {
        let index = IndexHandle(location: options.index(for: library), library: library)
        let searches = SearchService(index: index, library: library)
        APIRoutes(library: library, searches: searches).add(to: router)
        PageRoutes(library: library, searches: searches, token: options.readOnly ? nil : csrf.value).add(to: router)
        let images = PageImages(library: library)
        DocumentRoutes(library: library, images: images, versionsToken: options.readOnly ? nil : csrf.value, index: index).add(to: router)
        let changes = Changes(library: library, readOnly: options.readOnly, csrf: csrf, index: index)
        VersionRoutes(changes: changes, images: images).add(to: router)
        DeletedRoutes(changes: changes, images: images).add(to: router)
        ConflictRoutes(changes: changes).add(to: router)
        EditRoutes(changes: changes).add(to: router)
        BulkRoutes(changes: changes).add(to: router)
        let jobs = Jobs()
        JobRoutes(changes: changes, jobs: jobs).add(to: router)
        RepairRoutes(changes: changes).add(to: router)
        LiveRoutes(live: Live(library: library, index: index, jobs: jobs, mayScan: !options.readOnly)).add(to: router)
        DownloadRoutes(changes: changes).add(to: router)
        ImportRoutes(changes: changes, limit: options.importLimit).add(to: router)
    }
}

/// Several libraries in one server: each under `/name/` (its folder's name, made safe for a
/// path and unique), listed at `/` and at `/api/libraries`.
struct Mounts {
    let all: [(name: String, library: Library)]

    init(_ libraries: [Library]) {
        var taken: Set<String> = [], all: [(String, Library)] = []
        for library in libraries {
            let safe = String(library.root.lastPathComponent.unicodeScalars.map {
                CharacterSet.alphanumerics.contains($0) && $0.isASCII || "-_.".unicodeScalars.contains($0) ? Character($0) : "-"
            }).trimmingCharacters(in: CharacterSet(charactersIn: ".-"))
            let stem = safe.isEmpty || safe == "static" || safe == "api" || safe == "login" || safe == "logout" ? "library" : safe
            var name = stem, number = 2
            while !taken.insert(name).inserted {
                name = "\(stem)-\(number)"
                number += 1
            }
            all.append((name, library))
        }
        self.all = all
    }

    struct Listed: Codable {
        let name: String
        let path: String
        let folder: String
    }

    /// `/api/libraries` always; the list at `/` when there are several (else `/` is the
    /// library's own search page).
    func add(to router: Router<ServeContext>) {
        let single = all.count == 1
        let listed = all.map { Listed(name: $0.name, path: single ? "/" : "/\($0.name)/", folder: $0.library.root.path) }
        router.get("/api/libraries") { _, _ -> Response in try JSONBody.response(listed) }
        guard !single else { return }
        router.get("/") { _, _ -> Response in
            HTML.bare(title: "Libraries", body: "<h1>Libraries</h1><ul class=\"libraries\">" + listed.map {
                "<li><a href=\"\(HTML.escape($0.path))\">\(HTML.escape($0.name))</a> <span class=\"meta\">\(HTML.escape($0.folder))</span></li>"
            }.joined() + "</ul>")
        }
    }
}

/// Sets ``HTML/base`` for the requests of one library's group.
struct LibraryBase: RouterMiddleware {
    typealias Context = ServeContext
    let base: String

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        try await HTML.$base.withValue(base) { try await next(request, context) }
    }
}

/// Brings the library's index (if it has one) up to date for documents the server changed,
/// as the commands do after their own writes; a failure is logged, never the request's.
enum IndexAfterWrites {
    static func update(_ relativePaths: [String], library: Library, index handle: IndexHandle) async {
        guard !relativePaths.isEmpty, handle.location.mayExist else { return }
        do {
            guard let index = try await handle.forWriting() else { return }
            var options = IndexOptions(jobs: 1)
            options.listEveryDocument = false
            _ = try await Indexer(library: library, index: index).update(relativePaths.map { library.root.appendingPathComponent($0) }, options: options)
        } catch {
            FileHandle.standardError.write(Data("yiana serve: the search index (\(handle.location)) could not be updated: \(error); run `yiana index`.\n".utf8))
        }
    }
}

/// The search index, opened when first needed (and again if it was missing): a file, or a
/// database on a PostgreSQL server shared through a few connections.
final class IndexHandle: @unchecked Sendable {
    // @unchecked: `index` is guarded by `lock`.
    let location: IndexLocation
    let library: Library
    private let lock = NSLock()
    private var index: (any IndexStore)?
    /// Connections to a PostgreSQL server the searches share.
    static let connections = 8

    init(location: IndexLocation, library: Library) {
        self.location = location
        self.library = library
    }

    /// The index's version for the kept answers (``SearchService``): the stamps of its file and
    /// write-ahead log; nil for a database on a server, whose answers are not kept.
    var version: [FileStamp?]? {
        location.path.map { [FileStamp(path: $0), FileStamp(path: $0 + "-wal")] }
    }

    /// The index to search, or an error a person can act on (503: the server is fine, the
    /// index is not there yet, or its database server does not answer).
    func open() async throws -> any IndexStore {
        if let index = lock.withLock({ index }) { return index }
        let opened: (any IndexStore)?
        do {
            opened = try await location.openExisting(library, connections: Self.connections)
        } catch let error as SearchError {
            throw HTTPError(.serviceUnavailable, message: error.description)
        } catch let error as PostgresIndexError {
            throw HTTPError(.serviceUnavailable, message: error.description)
        }
        guard let opened else {
            let made = location.path.map { "it makes \($0)" } ?? "with --index \(location)"
            throw HTTPError(.serviceUnavailable, message: "There is no search index for this library yet: run `yiana index` (\(made)).")
        }
        // Searched all day: its vocabulary is walked in memory (``ResidentVocabulary``).
        opened.residentVocabulary.enable()
        return lock.withLock {
            if index == nil { index = opened }
            return index ?? opened
        }
    }

    /// The index to bring up to date after the server's own writes; nil when there is none.
    func forWriting() async throws -> (any IndexStore)? {
        switch location {
        case .file: try await location.openExisting(library, writable: true)
        case .server: try await open()
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

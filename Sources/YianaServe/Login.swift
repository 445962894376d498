import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaLibrary

/// The request context: Hummingbird's, with the peer's address (for the login throttle).
struct ServeContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}

/// Who may use a server that has a password: the sessions of those who gave it (a random
/// token in an `HttpOnly`, `SameSite=Strict` cookie, `Secure` when the request came over
/// HTTPS through a proxy), ended after 12 hours unused or 30 days in all, or by logging out.
final class Sessions: @unchecked Sendable {
    static let cookie = "yiana_session"
    static let idle: TimeInterval = 12 * 3600, longest: TimeInterval = 30 * 86400
    private let lock = NSLock()
    private var sessions: [String: (started: TimeInterval, seen: TimeInterval)] = [:]

    func start() -> String {
        let token = CSRFToken().value
        let now = ProcessInfo.processInfo.systemUptime
        lock.lock()
        defer { lock.unlock() }
        sessions = sessions.filter { now - $0.value.seen < Self.idle && now - $0.value.started < Self.longest }
        if sessions.count >= 10_000, let oldest = sessions.min(by: { $0.value.seen < $1.value.seen }) { sessions[oldest.key] = nil }
        sessions[token] = (now, now)
        return token
    }

    /// Whether `token` is a live session (and it counts as used now).
    func check(_ token: String?) -> Bool {
        guard let token else { return false }
        let now = ProcessInfo.processInfo.systemUptime
        lock.lock()
        defer { lock.unlock() }
        guard let session = sessions[token] else { return false }
        guard now - session.seen < Self.idle, now - session.started < Self.longest else {
            sessions[token] = nil
            return false
        }
        sessions[token] = (session.started, now)
        return true
    }

    func end(_ token: String?) {
        guard let token else { return }
        lock.lock()
        sessions[token] = nil
        lock.unlock()
    }
}

/// Wrong passwords slow a guesser down: 5 within 15 minutes from one client (its address, or
/// the one a proxy on this machine names in `X-Forwarded-For`) and that client waits out the
/// rest of the 15 minutes; 50 within a minute from everyone together and every client waits
/// out the minute. Each try also costs an scrypt (one at a time).
final class LoginThrottle: @unchecked Sendable {
    static let perClient = (count: 5, window: 900.0), overall = (count: 50, window: 60.0)
    private let lock = NSLock()
    private var failures: [String: [TimeInterval]] = [:]
    private var everyone: [TimeInterval] = []

    /// Seconds `client` must wait before its next try; nil when it may try now.
    func wait(_ client: String, now: TimeInterval = ProcessInfo.processInfo.systemUptime) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        everyone = everyone.filter { now - $0 < Self.overall.window }
        let recent = (failures[client] ?? []).filter { now - $0 < Self.perClient.window }
        failures[client] = recent.isEmpty ? nil : recent
        if recent.count >= Self.perClient.count { return Int((Self.perClient.window - (now - recent[recent.count - Self.perClient.count])).rounded(.up)) }
        if everyone.count >= Self.overall.count { return Int((Self.overall.window - (now - everyone[0])).rounded(.up)) }
        return nil
    }

    func failed(_ client: String, now: TimeInterval = ProcessInfo.processInfo.systemUptime) {
        lock.lock()
        defer { lock.unlock() }
        failures[client, default: []].append(now)
        everyone.append(now)
        if failures.count > 100_000 { failures = failures.filter { now - ($0.value.last ?? 0) < Self.perClient.window } }
    }

    func succeeded(_ client: String) {
        lock.lock()
        failures[client] = nil
        lock.unlock()
    }

    /// The client a request comes from: the peer, or for a proxy on this machine the address it
    /// puts last in `X-Forwarded-For`.
    static func client(_ request: Request, context: ServeContext) -> String {
        let peer = context.remoteAddress?.ipAddress ?? "unknown"
        if peer == "127.0.0.1" || peer == "::1", let forwarded = request.headers[.xForwardedFor]?.split(separator: ",").last {
            return forwarded.trimmingCharacters(in: .whitespaces)
        }
        return peer
    }
}

/// With a password: every request needs a session but the login page and its style; a page
/// asked for without one is sent to the login page (and back after it), an API call or a
/// change gets a 401. Without a password (loopback only) the `Host` must be a loopback name,
/// so that a web page elsewhere cannot reach the server through a name it points at 127.0.0.1
/// (DNS rebinding).
struct Gate: RouterMiddleware {
    typealias Context = ServeContext
    let password: PasswordHash?
    let sessions: Sessions
    let csrf: CSRFToken

    func handle(_ request: Request, context: ServeContext, next: (Request, ServeContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        guard password != nil else {
            let host = (request.head.authority ?? "").lowercased()
            guard let name = Self.hostName(host), ServeOptions.isLoopback(name) else {
                throw HTTPError(.misdirectedRequest, message: "This server answers to 127.0.0.1, ::1 and localhost only (the request named \(host.prefix(100))).")
            }
            return try await next(request, context)
        }
        if sessions.check(Self.session(request)) {
            return try await HTML.$signedIn.withValue(csrf.value) { try await next(request, context) }
        }
        if path == "/login" || path == "/static/style.css" || path == "/static/icon.svg" {
            return try await next(request, context)
        }
        if request.method == .get || request.method == .head, !path.contains("/api/") {
            let back = request.uri.description
            return Response(status: .seeOther, headers: [.location: "/login?next=" + HTML.queryValue(back)])
        }
        throw HTTPError(.unauthorized, message: "Log in first (POST /login with the password), then send the session cookie.")
    }

    /// The name in a `Host` (`name`, `name:port`, `[v6]`, `[v6]:port`); nil when it is none of these.
    static func hostName(_ host: String) -> String? {
        var name = Substring(host), rest = Substring("")
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            name = host[host.index(after: host.startIndex)..<close]
            rest = host[host.index(after: close)...]
        } else if let colon = host.firstIndex(of: ":") {
            name = host[..<colon]
            rest = host[colon...]
        }
        guard rest.isEmpty || rest.first == ":" && rest.dropFirst().allSatisfy(\.isASCII) && rest.dropFirst().allSatisfy(\.isNumber) else { return nil }
        return String(name)
    }

    static func session(_ request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                if parts.count == 2, parts[0] == Sessions.cookie { return parts[1] }
            }
        }
        return nil
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
    static let xForwardedProto = Self("X-Forwarded-Proto")!
}

/// The login page, the login itself and logging out; only on a server with a password.
struct LoginRoutes {
    let password: PasswordHash
    let sessions: Sessions
    let csrf: CSRFToken
    let library: Library
    let throttle = LoginThrottle()
    let hashing = OneAtATime()

    struct LoginForm: Decodable, Sendable, CSRFCarrying {
        let password: String
        let csrf: String
        let next: String?
    }

    struct LogoutForm: Decodable, Sendable, CSRFCarrying {
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let password = self.password, sessions = self.sessions, csrf = self.csrf, library = self.library
        let throttle = self.throttle, hashing = self.hashing
        router.get("/login") { request, _ -> Response in
            HTML.page(title: "Log in", library: library, body: HTML.loginForm(next: Self.next(request.formParameters.get("next")), token: csrf.value, problem: nil))
        }
        router.post("/login") { request, context -> Response in
            let client = LoginThrottle.client(request, context: context)
            if let wait = throttle.wait(client) {
                var response = HTML.page(title: "Log in", library: library, body: HTML.loginForm(
                    next: "/", token: csrf.value, problem: "Too many wrong passwords: try again in \(wait < 90 ? "\(wait) seconds" : "\((wait + 59) / 60) minutes")."))
                response.status = .tooManyRequests
                response.headers[.retryAfter] = "\(wait)"
                return response
            }
            let form = try await csrf.form(LoginForm.self, from: request, readOnly: false, needs: "password and csrf")
            let next = Self.next(form.next)
            guard await hashing.run({ password.matches(form.password) }) else {
                throttle.failed(client)
                var response = HTML.page(title: "Log in", library: library, body: HTML.loginForm(next: next, token: csrf.value, problem: "That is not the password."))
                response.status = .unauthorized
                return response
            }
            throttle.succeeded(client)
            let secure = request.headers[.xForwardedProto]?.lowercased() == "https" ? "; Secure" : ""
            return Response(status: .seeOther, headers: [
                .location: next,
                .setCookie: "\(Sessions.cookie)=\(sessions.start()); Path=/; HttpOnly; SameSite=Strict; Max-Age=\(Int(Sessions.longest))\(secure)",
            ])
        }
        router.post("/logout") { request, _ -> Response in
            _ = try await csrf.form(LogoutForm.self, from: request, readOnly: false, needs: "csrf")
            sessions.end(Gate.session(request))
            return Response(status: .seeOther, headers: [.location: "/login", .setCookie: "\(Sessions.cookie)=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0"])
        }
    }

    /// Where to go after logging in: a path of this server only (never `//elsewhere`).
    static func next(_ text: String?) -> String {
        guard let text, text.hasPrefix("/"), !text.hasPrefix("//"), !text.hasPrefix("/\\"), text.count <= 2000,
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return "/" }
        return text
    }
}

/// Runs its jobs one after another: an scrypt takes 32 MiB and a tenth of a second, and many
/// at once must not take the machine's memory or cores.
actor OneAtATime {
    func run<T: Sendable>(_ job: @Sendable () -> T) -> T { job() }
}

extension HTML {
    static func loginForm(next: String, token: String, problem: String?) -> String {
        """
        <h1>Log in</h1>\(problem.map { "<p class=\"error\" role=\"alert\">\(escape($0))</p>" } ?? "")
        <form class="login" method="post" action="/login"><input type="hidden" name="csrf" value="\(escape(token))">
        <input type="hidden" name="next" value="\(escape(next))">
        <label>Password <input type="password" name="password" autocomplete="current-password" autofocus required></label>
        <button type="submit">Log in</button></form>
        """
    }
}

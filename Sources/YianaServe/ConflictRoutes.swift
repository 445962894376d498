import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaLibrary
import YianaSystem
import YianaSync

/// The conflicts a sync program left: each group with its versions side by side (the metadata
/// diff `yiana diff` gives, the pages that differ drawn for each), the strategies' plans shown
/// first (a dry run), then carried out by the same resolver as `yiana conflicts resolve`.
struct ConflictRoutes {
    let changes: Changes

    struct ResolveForm: Decodable, Sendable, CSRFCarrying {
        let path: String?
        let all: String?
        let strategy: String
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let library = changes.library, readOnly = changes.readOnly, csrf = changes.csrf, index = changes.index
        router.get("/conflicts") { _, _ -> Response in
            let report = try await ConflictDetector(library: library).detect()
            return HTML.page(title: "Conflicts", library: library, body: HTML.conflicts(report, library: library))
        }
        router.get("/conflicts/plan") { request, _ -> Response in
            let parameters = request.formParameters
            let path = try Self.target(parameters.get("path"), all: parameters.get("all"), library: library)
            let strategy = try Self.strategy(parameters.get("strategy"))
            var options = ResolveOptions(strategy: strategy)
            options.dryRun = true
            options.documents = path.map { [$0] } ?? []
            let report = try await ConflictResolver(library: library).resolve(options)
            let body = HTML.resolution(report, title: "Plan: \(strategy.rawValue) for \(path ?? "every conflict")")
                + (readOnly ? "<p>This server is read-only.</p>" : HTML.resolveForm(path: path, strategy: strategy.rawValue, token: csrf.value))
            return HTML.page(title: "Plan", library: library, body: body)
        }
        router.post("/conflicts/resolve") { request, _ -> Response in
            let form = try await csrf.form(ResolveForm.self, from: request, readOnly: readOnly, needs: "path (or all), strategy and csrf")
            let path = try Self.target(form.path, all: form.all, library: library)
            var options = ResolveOptions(strategy: try Self.strategy(form.strategy))
            options.documents = path.map { [$0] } ?? []
            let report = try await ConflictResolver(library: library).resolve(options)
            let touched = report.resolutions.flatMap { [$0.original] + $0.steps.map(\.path) }
            await IndexAfterWrites.update(Array(Set(touched)), library: library, index: index)
            return HTML.page(title: "Resolved", library: library,
                             body: HTML.resolution(report, title: "Done: \(form.strategy) for \(path ?? "every conflict")") + "<p><a href=\"\(HTML.base)/conflicts\">Back to the conflicts</a></p>")
        }
    }

    /// One document (its companions with it), or with `all=1` and no path every conflict (the
    /// library's own companion files are settled only so, as `yiana conflicts resolve` does).
    static func target(_ path: String?, all: String?, library: Library) throws -> String? {
        if all == "1", path?.isEmpty ?? true { return nil }
        return try DocumentLocator.document(path, in: library).path
    }

    static func strategy(_ text: String?) throws -> ResolveStrategy {
        guard let text, let strategy = ResolveStrategy(rawValue: text) else {
            throw HTTPError(.badRequest, message: "strategy: one of \(ResolveStrategy.allCases.map(\.rawValue).joined(separator: ", ")).")
        }
        return strategy
    }
}

/// The token every form that changes something carries (one per server process, compared in
/// constant time), with the browser's own word that the request comes from this site
/// (`Sec-Fetch-Site`, `Origin`): a page elsewhere cannot make a browser change the library.
struct CSRFToken: Sendable {
    let value: String

    init() {
        var generator = SystemRandomNumberGenerator()
        value = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
    }

    /// The form a page of this server posted: refused on a read-only server (403), when it is
    /// not whole (400, naming what it `needs`), or when ``check(_:request:)`` refuses it (403).
    func form<Form: Decodable & Sendable & CSRFCarrying>(_ type: Form.Type, from request: Request, readOnly: Bool, needs: String) async throws -> Form {
        guard !readOnly else { throw HTTPError(.forbidden, message: "This server is read-only (--read-only): nothing is changed.") }
        var request = request
        let body = try await request.collectBody(upTo: 16 << 10)
        guard let form = try? URLEncodedFormDecoder().decode(type, from: String(buffer: body)) else {
            throw HTTPError(.badRequest, message: "The form needs \(needs).")
        }
        try check(form.csrf, request: request)
        return form
    }

    func check(_ sent: String, request: Request) throws {
        let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!]
        let origin = request.headers[.origin]
        let host = request.head.authority ?? ""
        let sameSite = site == nil || site == "same-origin" || site == "none"
        let sameOrigin = origin == nil || origin == "http://\(host)" || origin == "https://\(host)"
        let expected = Array(value.utf8), given = Array(sent.utf8)
        let equal = expected.count == given.count && zip(expected, given).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
        guard equal, sameSite, sameOrigin else {
            throw HTTPError(.forbidden, message: "This change did not come from this server's own page (its form token or origin is wrong): nothing was changed.")
        }
    }
}

/// What every route that changes the library needs: the library, whether the server is
/// read-only, its form token, and the index to bring up to date after a write.
struct Changes: Sendable {
    let library: Library
    let readOnly: Bool
    let csrf: CSRFToken
    let index: IndexHandle
}

/// A form that carries the server's CSRF token.
protocol CSRFCarrying {
    var csrf: String { get }
}

extension HTML {
    static func conflicts(_ report: ConflictReport, library: Library) -> String {
        let groups = report.groups.filter(\.needsResolving)
        let companions = report.companions.filter(\.needsResolving)
        guard !groups.isEmpty || !companions.isEmpty else { return "<h1>No conflicts</h1><p>No document or companion file has a conflict copy to resolve.</p>" }
        var html = groups.isEmpty ? "" : "<h1>\(groups.count) document\(groups.count == 1 ? "" : "s") in conflict</h1>"
        var shown: Set<String> = []
        for group in groups {
            let original = group.target ?? group.files[0].path
            html += "<section class=\"conflict\"><h2>\(escape(group.title ?? original))</h2><div class=\"versions\">"
            for file in group.files {
                html += "<div class=\"version\"><p class=\"meta\"><strong>\(escape(file.role.rawValue))</strong> \(escape(file.path))"
                    + (file.modified.map { " · modified \(escape(InternetTime.string($0)))" } ?? "") + "</p>"
                if file.role != .notDownloaded, file.role != .damaged {
                    let document = "path=" + HTML.queryValue(file.path)
                    html += "<a href=\"\(escape(base + "/doc?\(document)"))\"><img loading=\"lazy\" alt=\"First page of \(escape(file.path))\" src=\"\(escape(base + "/page-image?\(document)&n=1&w=320"))\"></a>"
                }
                html += "</div>"
            }
            html += "</div>"
            let first = library.root.appendingPathComponent(group.files[0].path)
            for file in group.files.dropFirst() where file.role == .conflictCopy {
                if let diff = try? DocumentDiff.compare(first, library.root.appendingPathComponent(file.path), names: (group.files[0].path, file.path)) {
                    html += diffTable(diff) + differingPages(diff)
                }
            }
            // The app's companion files of this document travel with it (settled with it).
            for companion in companions where companion.document == group.files[0].path {
                html += companionSection(companion, library: library)
                shown.insert(companion.plainPath)
            }
            html += strategyButtons("path=" + HTML.queryValue(group.files[0].path)) + "</section>"
        }
        let rest = companions.filter { !shown.contains($0.plainPath) }
        if !rest.isEmpty {
            html += "<h1>\(rest.count) companion file\(rest.count == 1 ? "" : "s") of the app with copies</h1>"
                + "<p>The app's own files beside the documents (address corrections, letters, the work list). Each is settled by its kind: "
                + "lines kept from every copy, nothing lost, whichever strategy is chosen.</p>"
            for companion in rest {
                html += "<section class=\"conflict\">" + companionSection(companion, library: library)
                html += strategyButtons(companion.document.map { "path=" + HTML.queryValue($0) } ?? "all=1") + "</section>"
            }
        }
        return html
    }

    static func strategyButtons(_ target: String) -> String {
        "<p class=\"strategies\">" + ResolveStrategy.allCases.map {
            "<a class=\"button\" href=\"\(escape(base + "/conflicts/plan?\(target)&strategy=\($0.rawValue)"))\">\(escape($0.rawValue))…</a>"
        }.joined(separator: " ") + "</p>"
    }

    /// The pages whose text differs, drawn for each version side by side (the first six).
    static func differingPages(_ diff: DocumentDiff) -> String {
        let pages = diff.pages.filter { !$0.same }.prefix(6)
        guard !diff.samePDF, !pages.isEmpty else { return "" }
        var html = "<table class=\"pages-diff\"><tr><th>Page</th><th>\(escape(diff.a))</th><th>\(escape(diff.b))</th></tr>"
        for page in pages {
            html += "<tr><td>\(page.number)</td>"
            for (path, hash) in [(diff.a, page.a), (diff.b, page.b)] {
                let source = base + "/page-image?path=\(HTML.queryValue(path))&n=\(page.number)&w=320"
                html += hash == nil ? "<td class=\"none\">no such page</td>"
                    : "<td><img loading=\"lazy\" alt=\"Page \(page.number) of \(escape(path))\" src=\"\(escape(source))\"></td>"
            }
            html += "</tr>"
        }
        return html + "</table>"
    }

    /// A companion file and its copies: who it belongs to, each file's role, time and what
    /// `conflicts list` marks, and its text (the first 20 KB) to compare.
    static func companionSection(_ group: CompanionGroup, library: Library) -> String {
        let owner = group.document.map { "of \(escape($0))" } ?? group.key.map { "of “\(escape($0))”" } ?? "of the library"
        var html = "<h3 class=\"companion\">\(escape(group.plainPath)) <span class=\"meta\">(\(escape(group.kind.label)) \(owner))</span></h3><div class=\"versions\">"
        for file in group.files {
            let text = (try? FileHandle(forReadingFrom: library.root.appendingPathComponent(file.path)).read(upToCount: 20_480)).flatMap { $0 }
            html += "<div class=\"version\"><p class=\"meta\"><strong>\(escape(file.role.rawValue))</strong> \(escape(file.path))"
                + (file.modified.map { " · modified \(escape(InternetTime.string($0)))" } ?? "")
                + (file.marks.isEmpty ? "" : " · \(escape(file.marks.joined(separator: "; ")))") + "</p>"
                + "<details><summary>Contents</summary><pre>\(escape(String(decoding: text ?? Data(), as: UTF8.self)))</pre></details></div>"
        }
        return html + "</div>"
    }

    static func diffTable(_ diff: DocumentDiff) -> String {
        var html = "<table class=\"diff\"><tr><th></th><th>\(escape(diff.a))</th><th>\(escape(diff.b))</th></tr>"
        for field in diff.fields {
            html += "<tr><td>\(escape(field.key))</td><td>\(escape(field.a ?? "—"))</td><td>\(escape(field.b ?? "—"))</td></tr>"
        }
        let pages = diff.samePDF ? "the same PDF" : "pages that differ: \(diff.differingPages.map(String.init).joined(separator: ", "))"
            + " (\(diff.pageCountA ?? 0) and \(diff.pageCountB ?? 0) pages)"
        return html + "<tr><td>PDF</td><td colspan=\"2\">\(escape(pages))</td></tr></table>"
    }

    static func resolution(_ report: ResolveReport, title: String) -> String {
        var html = "<h1>\(escape(title))</h1>"
        for resolution in report.resolutions {
            html += "<ol class=\"steps\">" + resolution.steps.map {
                "<li><strong>\(escape($0.action))</strong> \(escape($0.path)) — \(escape($0.detail))\($0.keptAs.map { " [kept as \(escape($0))]" } ?? "")</li>"
            }.joined() + "</ol>"
            html += resolution.overruled.map { "<p class=\"note\">overruled: \(escape($0))</p>" }.joined()
        }
        html += report.skipped.map { "<p class=\"note\">skipped \(escape($0.path)): \(escape($0.reason))</p>" }.joined()
        html += report.failed.map { "<p class=\"error\">failed \(escape($0.path)): \(escape($0.reason))</p>" }.joined()
        return report.resolutions.isEmpty && report.skipped.isEmpty && report.failed.isEmpty ? html + "<p>Nothing to do.</p>" : html
    }

    static func resolveForm(path: String?, strategy: String, token: String) -> String {
        let target = path.map { "<input type=\"hidden\" name=\"path\" value=\"\(escape($0))\">" } ?? "<input type=\"hidden\" name=\"all\" value=\"1\">"
        return """
        <form method="post" action="\(escape(base))/conflicts/resolve">\(target)
        <input type="hidden" name="strategy" value="\(escape(strategy))"><input type="hidden" name="csrf" value="\(escape(token))">
        <button type="submit">Do it</button> <a href="\(escape(base))/conflicts">Cancel</a></form>
        """
    }
}

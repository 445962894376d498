import Foundation
import HTTPTypes
import NIOCore
import Hummingbird
import ServiceLifecycle
import YianaLibrary
import YianaSearch
import YianaSystem
import YianaWatch

/// The pages a person reads: rendered on the server, every value escaped, no script needed.
struct PageRoutes {
    let library: Library
    let searches: SearchService
    /// The form token of the listing's actions; nil on a read-only server (no actions).
    let token: String?

    func add(to router: some RouterMethods<ServeContext>) {
        let library = self.library, searches = self.searches, index = searches.index, token = self.token
        router.get("/") { request, _ -> Response in
            let search = try SearchRequest(request.formParameters)
            let results = search.query.isEmpty ? try await Self.browse(search, request.formParameters, searches: searches, token: token)
                : await Self.results(search, searches: searches)
            let body = HTML.searchForm(search) + "<div id=\"results\" aria-live=\"polite\">\(results)</div>"
            return HTML.page(title: search.query.isEmpty ? "Search" : "\(search.query) — Search", library: library, body: body,
                             script: "/static/search.js")
        }
        // The results alone, for the page's script to show them as a person types.
        router.get("/results") { request, _ -> Response in
            let search = try SearchRequest(request.formParameters)
            let results = search.query.isEmpty ? try await Self.browse(search, request.formParameters, searches: searches, token: token)
                : await Self.results(search, searches: searches)
            return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: results)))
        }
        router.get("/health") { request, _ -> Response in
            let health = try await LibraryHealth.gather(library, index: try? await index.open())
            let state = request.formParameters.get("state")
            return HTML.page(title: "Health", library: library, body: HTML.health(health, listing: state, token: token))
        }
    }
}

extension PageRoutes {
    /// What tells one state of the index from the next: its files' stamps, or on a PostgreSQL
    /// server when `yiana index` (or a watcher) last ran and how many documents it holds.
    static func indexVersion(_ handle: IndexHandle) async -> String {
        if let version = handle.version { return version.map { $0.map { "\($0.size)-\($0.modified)" } ?? "-" }.joined(separator: " ") }
        guard let index = try? await handle.open() else { return "" }
        return "\((try? await index.state(.lastRun)) ?? "-") \((try? await index.documentCount()) ?? 0)"
    }

    /// The library without a query: its outline and a page of its documents, from the index.
    static func browse(_ search: SearchRequest, _ parameters: Parameters, searches: SearchService, token: String?) async throws -> String {
        let request = try BrowseRequest(search, parameters)
        do {
            let index = try await searches.index.open()
            return HTML.browse(try await searches.outline(), try await index.browse(request.query), request: request, token: token)
        } catch let error as HTTPError {
            return "<p class=\"error\">\(HTML.escape(error.body ?? "The library cannot be listed."))</p>"
        } catch {
            return "<p class=\"error\">The library cannot be listed: \(HTML.escape("\(error)"))</p>"
        }
    }

    /// The results of a search as HTML (nothing for an empty query), with the staleness note.
    static func results(_ search: SearchRequest, searches: SearchService) async -> String {
        guard !search.query.isEmpty else { return "" }
        do {
            return try await searches.answer(search, as: .html) { answer in
                var html = HTML.results(answer.hits, query: search.query)
                if let stale = answer.stale {
                    html += "<p class=\"note\">\(HTML.escape(stale.description)) changed since the index was last updated: "
                        + "results may be missing or out of date (<code>yiana index</code> brings it up to date).</p>"
                }
                return html
            }
        } catch let error as HTTPError {
            return "<p class=\"error\">\(HTML.escape(error.body ?? "The search failed."))</p>"
        } catch {
            return "<p class=\"error\">\(HTML.escape("\(error)"))</p>"
        }
    }
}

/// The style, the icon and the pages' scripts: once, at the server's root, for every library.
struct StaticRoutes {
    func add(to router: some RouterMethods<ServeContext>) {
        let files: [(String, String, String, String)] = [
            ("/static/style.css", "text/css; charset=utf-8", "max-age=3600", HTML.style),
            ("/static/icon.svg", "image/svg+xml", "max-age=86400", HTML.icon),
            ("/static/search.js", "text/javascript; charset=utf-8", "max-age=3600", HTML.searchScript),
            ("/static/live.js", "text/javascript; charset=utf-8", "max-age=3600", HTML.liveScript),
            ("/static/import.js", "text/javascript; charset=utf-8", "max-age=3600", HTML.importScript),
        ]
        for (path, type, cache, text) in files {
            router.get(RouterPath(path)) { _, _ -> Response in
                Response(status: .ok, headers: [.contentType: type, .cacheControl: cache], body: .init(byteBuffer: ByteBuffer(string: text)))
            }
        }
    }
}

/// HTML written in Swift: every value from a document or a request goes through ``escape(_:)``.
enum HTML {
    static func escape(_ text: String) -> String { text.markupEscaped }

    /// Whether the request being answered has a session (on a server with a password): its
    /// pages then carry a button to log out, with the form token.
    @TaskLocal static var signedIn: String?

    /// Where the library being answered for is served: "" when the server has one library,
    /// `/name` when it has several (each under its own name; ``LibraryBase`` sets it).
    @TaskLocal static var base = ""

    /// `refresh`: seconds after which the page reloads itself (a job's progress, no script).
    static func page(title: String, library: Library, body: String, script: String? = nil, refresh: Int? = nil) -> Response {
        let b = escape(base)
        let logout = signedIn.map {
            "<form class=\"logout\" method=\"post\" action=\"/logout\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape($0))\"><button type=\"submit\">Log out</button></form>"
        } ?? ""
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · \(escape(library.root.lastPathComponent))</title>\(refresh.map { "<noscript><meta http-equiv=\"refresh\" content=\"\($0)\"></noscript>" } ?? "")
            <link rel="stylesheet" href="/static/style.css"><link rel="icon" href="/static/icon.svg" type="image/svg+xml"><script src="/static/live.js" defer></script>\(script.map { "<script src=\"\($0)\" defer></script>" } ?? "")</head>
            <body data-base="\(b)"><header><a class="home" href="\(b)/">\(escape(library.root.lastPathComponent))</a>
            <nav><a href="\(b)/">Search</a> <a href="\(b)/conflicts">Conflicts\(conflictBadge(library))</a> <a href="\(b)/import">Import</a> <a href="\(b)/health">Health</a> <a href="\(b)/deleted">Recently deleted</a></nav>\(logout)</header>
            <main>\(body)</main></body></html>
            """
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    /// The number of conflict copies beside "Conflicts" (hidden at 0), kept live by `live.js`.
    static func conflictBadge(_ library: Library) -> String {
        guard let live = Live.of(library) else { return "" }
        let count = live.shownConflictCount() ?? 0  // not counted yet: shown when it is (live.js)
        return "<span id=\"conflict-count\" class=\"badge\"\(count == 0 ? " hidden" : "") aria-label=\"\(count) conflict cop\(count == 1 ? "y" : "ies")\">\(count == 0 ? "" : String(count))</span>"
    }

    /// A page of the server itself (the list of its libraries): the style, no library's header.
    static func bare(title: String, body: String) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · yiana</title><link rel="stylesheet" href="/static/style.css"><link rel="icon" href="/static/icon.svg" type="image/svg+xml"></head>
            <body data-base=""><header><a class="home" href="/">yiana</a></header><main>\(body)</main></body></html>
            """
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func searchForm(_ search: SearchRequest) -> String {
        """
        <form class="search" method="get" action="\(escape(base))/" role="search">
        <input type="search" name="q" value="\(escape(search.query))" placeholder="Words, &quot;a phrase&quot;, inv*" autofocus aria-label="Search">
        <input type="text" name="tag" value="\(escape(search.options.tags.first ?? ""))" placeholder="tag" aria-label="Tag">
        <input type="text" name="folder" value="\(escape(search.options.folder ?? ""))" placeholder="folder" aria-label="Folder">
        <label class="date">from <input type="date" name="since" value="\(escape(search.since))" aria-label="Created on or after"></label>
        <label class="date">to <input type="date" name="until" value="\(escape(search.until))" aria-label="Created on or before"></label>
        <label class="date">sort <select name="sort" aria-label="Sort">\(sortOptions(search.options.sort))</select></label>
        <button type="submit">Search</button></form>
        """
    }

    /// The search form's orders: the best first (the list's newest without a query), or the list's.
    static func sortOptions(_ sort: BrowseQuery.Sort?) -> String {
        [(nil, "best first"), (BrowseQuery.Sort.newest, "newest"), (.oldest, "oldest"), (.title, "title")].map { value, label in
            "<option value=\"\(value?.rawValue ?? "relevance")\"\(value == sort ? " selected" : "")>\(label)</option>"
        }.joined()
    }

    static func results(_ hits: [SearchHit], query: String) -> String {
        guard !hits.isEmpty else { return "<p class=\"none\">No document matches <strong>\(escape(query))</strong>.</p>" }
        var html = "<p class=\"count\">\(hits.count) document\(hits.count == 1 ? "" : "s")</p><ol class=\"hits\">"
        for (index, hit) in hits.enumerated() {
            if !hit.approximate.isEmpty, index == 0 || hits[index - 1].approximate.isEmpty {
                html += (index == 0 ? "" : "</ol>") + "<p class=\"approximate\">\(index == 0 ? "No document has the words as typed" : "No more documents have the words as typed")"
                    + "; these match approximately:</p>" + (index == 0 ? "" : "<ol class=\"hits\">")
            }
            // The words to show on its pages: the query's, and those it matched approximately.
            let words = ([query] + hit.approximate.flatMap(\.matches)).joined(separator: " ")
            let folder = (hit.path as NSString).deletingLastPathComponent
            let link = base + "/doc?path=" + HTML.queryValue(hit.path)
                + "&q=" + HTML.queryValue(words)
            html += "<li><h2><a href=\"\(escape(link))\">\(escape(hit.title))</a></h2><p class=\"meta\">\(escape(folder.isEmpty ? "(top folder)" : folder))"
            if !hit.tags.isEmpty { html += " · " + hit.tags.map { "<span class=\"tag\">\(escape($0))</span>" }.joined(separator: " ") }
            if let created = hit.created { html += " · \(escape(String(InternetTime.string(created).prefix(10))))" }
            if hit.status != .ok { html += " · <span class=\"status\">\(escape(hit.status.rawValue))</span>" }
            html += "</p>"
            if !hit.approximate.isEmpty {
                html += "<p class=\"also\">also matched: " + hit.approximate.map { approximation in
                    "<strong>\(escape(approximation.word))</strong> ~ " + approximation.matches.map { "<mark>\(escape($0))</mark>" }.joined(separator: ", ")
                }.joined(separator: "; ") + "</p>"
            }
            html += "<ul class=\"pages\">"
            for page in hit.pages {
                let place = page.source == .addresses ? "addresses" : page.number == 0 ? (page.source == .ocr ? "OCR" : "title") : "p. \(page.number)"
                html += "<li><span class=\"place\">\(place)</span> \(marked(page.snippet))</li>"
            }
            html += "</ul>"
            // The matching pages as thumbnails, the hit words boxed over them (an SVG drawn in
            // the page's own coordinates, loaded like the image: no script).
            let pages = hit.pages.filter { $0.number > 0 && $0.source != .addresses }
            if !pages.isEmpty {
                let document = "path=" + HTML.queryValue(hit.path)
                let words = "q=" + HTML.queryValue(words)
                html += "<div class=\"thumbs\">"
                for page in pages {
                    let at = "\(document)&n=\(page.number)"
                    html += "<a class=\"thumb\" href=\"\(escape(base + "/doc?\(document)&\(words)#page-\(page.number)"))\">"
                        + "<img loading=\"lazy\" alt=\"Page \(page.number)\" src=\"\(escape(base + "/page-image?\(at)&w=320"))\">"
                        + "<img class=\"boxes\" loading=\"lazy\" alt=\"\" src=\"\(escape(base + "/hits.svg?\(at)&\(words)"))\"></a>"
                }
                html += "</div>"
            }
            // The other matching pages on demand: this document's, as many as match.
            let listed = hit.pages.filter { $0.number > 0 || $0.source != .none }.count
            if hit.matchingPages > listed {
                let more = base + "/?q=" + HTML.queryValue(query) + "&path=" + HTML.queryValue(hit.path)
                    + "&pages=\(min(hit.matchingPages, SearchRequest.maxPages))"
                html += "<p class=\"more\"><a href=\"\(escape(more))\">\(hit.matchingPages - listed) more matching page\(hit.matchingPages - listed == 1 ? "" : "s")</a></p>"
            }
            html += "</li>"
        }
        return html + "</ol>"
    }

    /// A snippet with its matched words in `<mark>`, everything else escaped.
    static func marked(_ snippet: String) -> String {
        SearchHit.marking(escape(snippet), open: "<mark>", close: "</mark>")  // the marks are control characters, which escaping leaves
    }

    /// The summary, each state linking to the list of its documents (`listing`: the state listed).
    static func health(_ health: LibraryHealth, listing: String? = nil, token: String? = nil) -> String {
        var html = health.keeper?.alarm.map(massLossBanner) ?? ""
        html += "<h1>\(health.documents) document\(health.documents == 1 ? "" : "s"), \(health.fine) fine</h1><table class=\"states\">"
        for state in health.states {
            let link = base + "/health?state=" + HTML.queryValue(state.state)
            let button = token.map { fixButton(state.state, token: $0) } ?? ""
            html += "<tr><th>\(state.count)</th><td><a href=\"\(escape(link))\">\(escape(state.state))</a></td><td>\(escape(state.meaning))</td>"
                + "<td>\(button) <code>\(escape(state.run))</code></td></tr>"
        }
        html += "</table>"
        if let listing, let state = health.states.first(where: { $0.state == listing }) {
            html += "<h2>\(escape(state.state))</h2><ul class=\"listing\">"
            for path in state.paths.prefix(1000) {
                let document = base + "/doc?path=" + HTML.queryValue(path)
                html += "<li><a href=\"\(escape(document))\">\(escape(path))</a></li>"
            }
            html += "</ul>" + (state.paths.count > 1000 ? "<p>… and \(state.paths.count - 1000) more (<code>yiana status --json</code> lists them all).</p>" : "")
        } else if let listing {
            html += "<p>No document is \(escape(listing)).</p>"
        }
        if let index = health.index {
            html += "<p>Index: \(index.documents) documents\(index.lastRun.map { ", last run \(escape(InternetTime.string($0)))" } ?? "").</p>"
        } else {
            html += "<p>No search index yet: <code>yiana index</code>.</p>"
        }
        if let keeper = health.keeper {
            html += "<p>Kept on this machine: \(keeper.states) state\(keeper.states == 1 ? "" : "s") of \(keeper.documents) document\(keeper.documents == 1 ? "" : "s") (by \(keeper.mode.rawValue))"
                + (keeper.lost == 0 ? "" : "; <a href=\"\(escape(base + "/deleted"))\">\(keeper.lost) lost and restorable</a>") + ".</p>"
            html += backupParagraph(keeper.backup)
        }
        let watcher = health.watcher == nil ? "never ran on this library" : health.watcherRunning ? "running" : "not running"
        return html + "<p>Watcher: \(watcher).</p>"
    }

    /// The last backup off this machine (`yiana backup`), and a failure since.
    static func backupParagraph(_ record: BackupRecord?) -> String {
        guard let record, record.lastSuccess != nil || record.lastFailure != nil else {
            return "<p>Backup: none yet (<code>yiana backup --repo REPO</code>).</p>"
        }
        var html = "<p>Backup: " + (record.lastSuccess.map {
            "last succeeded \(escape(InternetTime.string($0.at))), snapshot \(escape($0.snapshot)) in \(escape($0.repository))"
                + ($0.incomplete ? " (incomplete: some files could not be read)" : "")
        } ?? "never succeeded") + ".</p>"
        if let failure = record.lastFailure {
            html += "<p class=\"error\" role=\"alert\">The last backup failed \(escape(InternetTime.string(failure.at))): \(escape(failure.error))</p>"
        }
        return html
    }

    /// What fixes a state from the health page: a job, or the page that shows the plan first.
    static func fixButton(_ state: String, token: String) -> String {
        let jobs: [String: (Jobs.Kind, String)] = ["waiting-for-ocr": (.ocr, "Recognise now"), "ocr-failed": (.retryOCR, "Try again now"),
                                                   "not-extracted": (.extract, "Find the people now"), "not-indexed": (.index, "Index now"),
                                                   "not-downloaded": (.download, "Download them")]
        let pages: [String: (String, String)] = ["damaged": ("/repair", "Repair…"), "leftover-temps": ("/repair#temps", "Review…"),
                                                 "in-conflict": ("/conflicts", "Resolve…")]
        if let (kind, label) = jobs[state] { return jobButton(kind, label: label, token: token) }
        if let (page, label) = pages[state] { return "<a class=\"button\" href=\"\(escape(base + page))\">\(escape(label))</a>" }
        return ""
    }

    /// Results as a person types (a quarter of a second after the last key), the address kept
    /// in step so a search can be bookmarked, and the arrow keys to move between results.
    /// The page works without it: the form submits as any form does.
    static let searchScript = """
        (() => {
          const form = document.querySelector("form.search"), results = document.getElementById("results");
          if (!form || !results || !window.fetch) return;
          let timer = null, shown = "";
          const run = () => {
            const query = new URLSearchParams(new FormData(form)).toString();
            if (query === shown) return;
            shown = query;
            fetch(document.body.dataset.base + "/results?" + query, {credentials: "same-origin"}).then(r => r.text()).then(html => {
              if (shown !== query) return;
              results.innerHTML = html;
              history.replaceState(null, "", document.body.dataset.base + "/?" + query);
            });
          };
          form.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 250); });
          form.addEventListener("submit", event => { event.preventDefault(); clearTimeout(timer); run(); });
          // Live: when the index changes (the watcher indexed an arrival, another device's
          // change), the list shown is fetched again, unless a person is typing or has ticked.
          document.addEventListener("yiana:changed", () => {
            if (timer !== null && document.activeElement && form.contains(document.activeElement)) return;
            if (results.querySelector("input[type=checkbox]:checked")) return;
            fetch(document.body.dataset.base + "/results" + location.search, {credentials: "same-origin"}).then(r => r.text()).then(html => {
              if (!results.querySelector("input[type=checkbox]:checked")) results.innerHTML = html;
            });
          });
          document.addEventListener("keydown", event => {
            if (event.key !== "ArrowDown" && event.key !== "ArrowUp") return;
            const links = [...results.querySelectorAll("ol.hits > li h2 a")];
            if (!links.length) return;
            const at = links.indexOf(document.activeElement);
            const next = event.key === "ArrowDown" ? Math.min(at + 1, links.length - 1) : at <= 0 ? -1 : at - 1;
            event.preventDefault();
            (next < 0 ? form.querySelector("input[name=q]") : links[next]).focus();
          });
        })();
        """

    /// A page with a folded corner.
    static let icon = ##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><path d="M3 1h7l3 3v11H3z" fill="#fff" stroke="#3a6ea5"/><path d="M10 1v3h3" fill="none" stroke="#3a6ea5"/></svg>"##

    static let style = """
        body{font:16px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;background:#fff;border-bottom:1px solid #ddd}
        form.logout{margin-left:auto}form.login{display:flex;gap:.6em;align-items:center;flex-wrap:wrap}
        header .home{font-weight:600;color:inherit;text-decoration:none}nav a{margin-right:1em}
        main{max-width:60em;margin:0 auto;padding:1em 1.2em}
        form.search{display:flex;gap:.5em;flex-wrap:wrap;align-items:center}label.date{color:#666;font-size:.9em}form.search input[type=search]{flex:1 1 20em;font-size:1.1em;padding:.4em}
        ol.hits{list-style:none;padding:0}ol.hits>li{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:.6em 1em;margin:.8em 0}
        h2{font-size:1.1em;margin:.1em 0}.meta{color:#666;font-size:.9em;margin:.2em 0}.tag{background:#eef;border-radius:3px;padding:0 .3em}
        p.approximate{margin:1.2em 0 .2em;font-weight:600;color:#444}p.also{font-size:.9em;margin:.2em 0;color:#444}
        ul.pages{list-style:none;padding:0;margin:.3em 0}.place{color:#595959;font-size:.85em;margin-right:.4em}mark{background:#ffe066}
        .thumbs{display:flex;gap:.6em;flex-wrap:wrap;margin:.4em 0}.thumb{position:relative;display:block;width:160px;border:1px solid #ccc;background:#fff}
        .thumb img{display:block;width:100%;height:auto}.thumb img.boxes{position:absolute;inset:0;height:100%}
        .pages figure{margin:1em 0;background:#fff;border:1px solid #ddd}.sheet{position:relative}.pages img{display:block;width:100%;height:auto}
        .sheet img.boxes{position:absolute;inset:0;height:100%}
        figcaption{color:#595959;font-size:.85em;padding:.2em .5em}
        .versions{display:flex;gap:1em;flex-wrap:wrap}.version{background:#fff;border:1px solid #ddd;padding:.4em;max-width:340px}
        .version img{width:100%;height:auto}table.diff,table.people{border-collapse:collapse;margin:.6em 0}table.diff td,table.diff th,table.people td,table.people th{border:1px solid #ddd;padding:.2em .5em;vertical-align:top;text-align:left}
        a.button{display:inline-block;border:1px solid #3a6ea5;border-radius:4px;padding:.2em .7em;text-decoration:none}
        ol.versions-list{list-style:none;padding:0}ol.versions-list li{display:flex;gap:1em;align-items:flex-start;margin:.6em 0}
        ol.versions-list img{width:80px;border:1px solid #ddd;background:#fff}
        .alarm{background:#fde8e8;border:2px solid #c0392b;color:#7b1d13;padding:.8em 1em;margin:1em 0;border-radius:4px}
        .note{color:#8a5a00}.error{color:#b00020}table.states td,table.states th{padding:.2em .6em;text-align:left}
        table.pages-diff img{width:240px;border:1px solid #ddd;background:#fff}table.pages-diff td{vertical-align:top;padding:.3em}
        td.none{color:#595959}details pre{white-space:pre-wrap;max-height:20em;overflow:auto;font-size:.85em;background:#f4f4f4;padding:.5em}
        ul.folders{list-style:none;padding:0}li.drop{background:#fff;border:2px dashed #bbb;border-radius:6px;padding:.8em 1em;margin:.6em 0}
        li.drop.over{border-color:#3a6ea5;background:#eef4fb}li.drop .folder{font-weight:600;margin-right:1em}
        label.button{display:inline-block;border:1px solid #3a6ea5;border-radius:4px;padding:.1em .6em;cursor:pointer}label.button input{display:none}
        .browse{display:flex;gap:1.5em;align-items:flex-start;margin-top:1em}nav.outline{flex:0 0 14em;font-size:.95em}
        nav.outline ul{list-style:none;padding:0;margin:.2em 0 1em}nav.outline li{margin:.15em 0}nav.outline a{display:inline-block;min-height:1.6em}
        nav.outline a[aria-current]{font-weight:600}.count{color:#595959;font-size:.85em}section.listing{flex:1 1 auto;min-width:0}
        .listing-head{display:flex;justify-content:space-between;flex-wrap:wrap;gap:.5em}ol.documents{list-style:none;padding:0}
        ol.documents>li{display:flex;gap:.8em;background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:.5em .8em;margin:.5em 0}
        ol.documents .thumb{flex:0 0 64px;width:64px}h3{font-size:1.05em;margin:.1em 0}.status{color:#8a5a00}
        nav.pager{display:flex;gap:1.2em;align-items:center;margin:1em 0}
        .depth-1{padding-left:1em}.depth-2{padding-left:2em}.depth-3{padding-left:3em}.depth-4{padding-left:4em}.depth-5{padding-left:5em}.depth-6{padding-left:6em}
        @media (max-width:40em){.browse{flex-direction:column}nav.outline{flex:none;width:100%}}
        details.edit{margin:.8em 0;background:#fff;border:1px solid #ddd;border-radius:6px;padding:.4em .8em}
        form.edit{display:flex;flex-wrap:wrap;gap:.6em;align-items:flex-end;margin:.5em 0}form.edit label{display:flex;flex-direction:column;font-size:.9em;color:#555}
        form.edit input{font-size:1em;padding:.3em;min-height:2.2em}button{min-height:2.4em;padding:0 .9em}button.danger{color:#b00020;border-color:#b00020}
        .notice{background:#e8f5e9;border:1px solid #7cb342;padding:.4em .8em;border-radius:4px}
        fieldset.bulk{border:1px solid #ddd;border-radius:6px;display:flex;flex-wrap:wrap;gap:.5em;align-items:flex-end;background:#fff}
        fieldset.bulk label{display:flex;flex-direction:column;font-size:.9em;color:#555}ol.documents input[type=checkbox]{width:1.4em;height:1.4em;margin:.2em}
        form.inline{display:inline}.badge{background:#b00020;color:#fff;border-radius:1em;padding:0 .45em;font-size:.8em;margin-left:.2em}
        ul.plan li{margin:.3em 0}ul.plan li.error{color:#b00020}
        ul.outcomes{margin:.4em 0 0}li.imported::marker{content:"✓ "}li.skipped{color:#8a5a00}li.failed{color:#b00020}li.pending{color:#666}
        /* Last: on a small screen or a touch screen, every control is a finger's size (44 px). */
        @media (max-width:40em),(pointer:coarse){header nav a,nav.outline a,nav.pager a,.sort a,a.button,button,summary,ol.documents h3 a,ol.hits h2 a{min-height:44px;display:inline-flex;align-items:center}
        ol.documents input[type=checkbox]{width:44px;height:44px;margin:0}header nav a{margin-right:.6em}nav.outline li{margin:0}
        input[type=text],input[type=search],input[type=date],input[type=password]{min-height:44px;box-sizing:border-box}}
        """
}

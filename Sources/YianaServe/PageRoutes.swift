import Foundation
import HTTPTypes
import NIOCore
import Hummingbird
import YianaLibrary
import YianaSearch
import YianaSystem
import YianaWatch

/// The pages a person reads: rendered on the server, every value escaped, no script needed.
struct PageRoutes {
    let library: Library
    let index: IndexHandle

    func add(to router: Router<BasicRequestContext>) {
        let library = self.library, index = self.index
        router.get("/") { request, _ -> Response in
            let search = try SearchRequest(request.uri.queryParameters)
            var body = HTML.searchForm(search)
            if !search.query.isEmpty {
                do {
                    let opened = try index.open()
                    body += HTML.results(try search.run(on: opened), query: search.query)
                    if let stale = try? IndexFreshness.check(library, index: opened), !stale.isEmpty {
                        body += "<p class=\"note\">\(HTML.escape(stale.description)) changed since the index was last updated: "
                            + "results may be missing or out of date (<code>yiana index</code> brings it up to date).</p>"
                    }
                } catch let error as HTTPError {
                    body += "<p class=\"error\">\(HTML.escape(error.body ?? "The search failed."))</p>"
                }
            }
            return HTML.page(title: search.query.isEmpty ? "Search" : "\(search.query) — Search", library: library, body: body)
        }
        router.get("/health") { _, _ -> Response in
            let health = try LibraryHealth.gather(library, indexPath: index.path)
            return HTML.page(title: "Health", library: library, body: HTML.health(health))
        }
        router.get("/static/style.css") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/css; charset=utf-8", .cacheControl: "max-age=3600"],
                     body: .init(byteBuffer: ByteBuffer(string: HTML.style)))
        }
    }
}

/// HTML written in Swift: every value from a document or a request goes through ``escape(_:)``.
enum HTML {
    static func escape(_ text: String) -> String { text.markupEscaped }

    static func page(title: String, library: Library, body: String) -> Response {
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(escape(title)) · \(escape(library.root.lastPathComponent))</title>
            <link rel="stylesheet" href="/static/style.css"></head>
            <body><header><a class="home" href="/">\(escape(library.root.lastPathComponent))</a>
            <nav><a href="/">Search</a> <a href="/health">Health</a></nav></header>
            <main>\(body)</main></body></html>
            """
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: html)))
    }

    static func searchForm(_ search: SearchRequest) -> String {
        """
        <form class="search" method="get" action="/" role="search">
        <input type="search" name="q" value="\(escape(search.query))" placeholder="Words, &quot;a phrase&quot;, inv*" autofocus aria-label="Search">
        <input type="text" name="tag" value="\(escape(search.options.tags.first ?? ""))" placeholder="tag" aria-label="Tag">
        <input type="text" name="folder" value="\(escape(search.options.folder ?? ""))" placeholder="folder" aria-label="Folder">
        <button type="submit">Search</button></form>
        """
    }

    static func results(_ hits: [SearchHit], query: String) -> String {
        guard !hits.isEmpty else { return "<p class=\"none\">No document matches <strong>\(escape(query))</strong>.</p>" }
        var html = "<p class=\"count\">\(hits.count) document\(hits.count == 1 ? "" : "s")</p><ol class=\"hits\">"
        for hit in hits {
            let folder = (hit.path as NSString).deletingLastPathComponent
            let link = "/doc?path=" + (hit.path.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? "")
            html += "<li><h2><a href=\"\(escape(link))\">\(escape(hit.title))</a></h2><p class=\"meta\">\(escape(folder.isEmpty ? "(top folder)" : folder))"
            if !hit.tags.isEmpty { html += " · " + hit.tags.map { "<span class=\"tag\">\(escape($0))</span>" }.joined(separator: " ") }
            if let created = hit.created { html += " · \(escape(String(ISO8601DateFormatter().string(from: created).prefix(10))))" }
            if hit.status != .ok { html += " · <span class=\"status\">\(escape(hit.status.rawValue))</span>" }
            html += "</p><ul class=\"pages\">"
            for page in hit.pages.prefix(5) {
                let place = page.source == .addresses ? "addresses" : page.number == 0 ? (page.source == .ocr ? "OCR" : "title") : "p. \(page.number)"
                html += "<li><span class=\"place\">\(place)</span> \(marked(page.snippet))</li>"
            }
            html += "</ul>"
            // The matching pages as thumbnails, the hit words boxed over them (an SVG drawn in
            // the page's own coordinates, loaded like the image: no script).
            let pages = hit.pages.filter { $0.number > 0 && $0.source != .addresses }.prefix(4)
            if !pages.isEmpty {
                let document = "path=" + (hit.path.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? "")
                let words = "q=" + (query.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? "")
                html += "<div class=\"thumbs\">"
                for page in pages {
                    let at = "\(document)&n=\(page.number)"
                    html += "<a class=\"thumb\" href=\"\(escape("/doc?\(document)&\(words)#page-\(page.number)"))\">"
                        + "<img loading=\"lazy\" alt=\"Page \(page.number)\" src=\"\(escape("/page.png?\(at)&w=320"))\">"
                        + "<img class=\"boxes\" loading=\"lazy\" alt=\"\" src=\"\(escape("/hits.svg?\(at)&\(words)"))\"></a>"
                }
                html += "</div>"
            }
            html += "</li>"
        }
        return html + "</ol>"
    }

    /// A snippet with its matched words in `<mark>`, everything else escaped.
    static func marked(_ snippet: String) -> String {
        escape(snippet).replacingOccurrences(of: escape(SearchHit.markOpen), with: "<mark>").replacingOccurrences(of: escape(SearchHit.markClose), with: "</mark>")
    }

    static func health(_ health: LibraryHealth) -> String {
        var html = "<h1>\(health.documents) document\(health.documents == 1 ? "" : "s"), \(health.fine) fine</h1><table class=\"states\">"
        for state in health.states {
            html += "<tr><th>\(state.count)</th><td>\(escape(state.state))</td><td>\(escape(state.meaning))</td><td><code>\(escape(state.run))</code></td></tr>"
        }
        html += "</table>"
        if let index = health.index {
            html += "<p>Index: \(index.documents) documents\(index.lastRun.map { ", last run \(escape(ISO8601DateFormatter().string(from: $0)))" } ?? "").</p>"
        } else {
            html += "<p>No search index yet: <code>yiana index</code>.</p>"
        }
        let watcher = health.watcher == nil ? "never ran on this library" : health.watcherRunning ? "running" : "not running"
        return html + "<p>Watcher: \(watcher).</p>"
    }

    static let style = """
        body{font:16px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{display:flex;gap:1.5em;align-items:center;padding:.6em 1.2em;background:#fff;border-bottom:1px solid #ddd}
        header .home{font-weight:600;color:inherit;text-decoration:none}nav a{margin-right:1em}
        main{max-width:60em;margin:0 auto;padding:1em 1.2em}
        form.search{display:flex;gap:.5em;flex-wrap:wrap}form.search input[type=search]{flex:1 1 20em;font-size:1.1em;padding:.4em}
        ol.hits{list-style:none;padding:0}ol.hits>li{background:#fff;border:1px solid #e3e3e3;border-radius:6px;padding:.6em 1em;margin:.8em 0}
        h2{font-size:1.1em;margin:.1em 0}.meta{color:#666;font-size:.9em;margin:.2em 0}.tag{background:#eef;border-radius:3px;padding:0 .3em}
        ul.pages{list-style:none;padding:0;margin:.3em 0}.place{color:#888;font-size:.85em;margin-right:.4em}mark{background:#ffe066}
        .thumbs{display:flex;gap:.6em;flex-wrap:wrap;margin:.4em 0}.thumb{position:relative;display:block;width:160px;border:1px solid #ccc;background:#fff}
        .thumb img{display:block;width:100%;height:auto}.thumb img.boxes{position:absolute;inset:0;height:100%}
        .pages figure{margin:1em 0;background:#fff;border:1px solid #ddd}.pages img{display:block;width:100%;height:auto}
        figcaption{color:#888;font-size:.85em;padding:.2em .5em}
        .note{color:#8a5a00}.error{color:#b00020}table.states td,table.states th{padding:.2em .6em;text-align:left}
        """
}

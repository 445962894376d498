import Foundation
import Hummingbird
import YianaLibrary
import YianaSearch
import YianaSystem

/// The start page without a query: the library's folders and tags with their counts, and its
/// documents a page at a time (`folder`, `tag` repeated, `sort`, `page`), from the index alone.
struct BrowseRequest {
    let query: BrowseQuery
    /// 1-based.
    let page: Int
    static let pageSize = 50

    init(_ search: SearchRequest, _ parameters: Parameters) throws {
        var query = BrowseQuery(folder: search.options.folder?.trimmingCharacters(in: CharacterSet(charactersIn: "/")), tags: search.options.tags)
        // Relevance, without a query to be relevant to, is the list's own order (newest).
        query.sort = search.options.sort ?? .newest
        var page = 1
        if let text = parameters.get("page"), !text.isEmpty {
            guard let number = Int(text), (1...100_000).contains(number) else { throw HTTPError(.badRequest, message: "page=\(text.prefix(40)): a number from 1.") }
            page = number
        }
        query.limit = Self.pageSize
        query.offset = (page - 1) * Self.pageSize
        self.query = query
        self.page = page
    }

    /// This view's address with `changes` made (nil removes a parameter), page 1 unless given.
    func link(_ changes: [String: String?]) -> String {
        var parameters: [(String, String)] = []
        var values: [String: String?] = ["folder": query.folder, "sort": query.sort == .newest ? nil : query.sort.rawValue, "page": nil]
        for (key, value) in changes { values[key] = value }
        for key in ["folder", "sort", "page"] { if let value = values[key] ?? nil, !value.isEmpty { parameters.append((key, value)) } }
        let tags = changes.keys.contains("tag") ? (changes["tag"] ?? nil).map { [$0] } ?? [] : query.tags
        parameters += tags.map { ("tag", $0) }
        return HTML.base + "/" + (parameters.isEmpty ? "" : "?" + parameters.map { "\($0.0)=\(HTML.queryValue($0.1))" }.joined(separator: "&"))
    }
}

extension HTML {
    /// The start page's listing: the outline beside a page of documents.
    static func browse(_ outline: LibraryOutline, _ listing: BrowsePage, request: BrowseRequest, token: String? = nil) -> String {
        let query = request.query
        var html = "<div class=\"browse\"><nav class=\"outline\" aria-label=\"Folders and tags\"><h2>Folders</h2><ul class=\"tree\">"
        html += "<li><a href=\"\(escape(request.link(["folder": nil, "tag": nil])))\"\(query.folder == nil && query.tags.isEmpty ? " aria-current=\"page\"" : "")>All documents</a> <span class=\"count\">\(outline.documents)</span></li>"
        for folder in outline.folders {
            let depth = folder.path.split(separator: "/").count - 1
            let name = folder.path.split(separator: "/").last.map(String.init) ?? folder.path
            html += "<li class=\"depth-\(min(depth, 6))\"><a href=\"\(escape(request.link(["folder": folder.path])))\"\(query.folder == folder.path ? " aria-current=\"page\"" : "")>"
                + "\(escape(name))</a> <span class=\"count\">\(folder.count)</span></li>"
        }
        html += "</ul>"
        if !outline.tags.isEmpty {
            html += "<h2>Tags</h2><ul class=\"tags\">"
            for tag in outline.tags.prefix(200) {
                let on = query.tags.contains { $0.caseInsensitiveCompare(tag.name) == .orderedSame }
                html += "<li><a class=\"tag\" href=\"\(escape(request.link(["tag": on ? nil : tag.name])))\"\(on ? " aria-current=\"page\"" : "")>\(escape(tag.name))</a> <span class=\"count\">\(tag.count)</span></li>"
            }
            html += "</ul>"
        }
        html += "</nav><section class=\"listing\" aria-label=\"Documents\">" + heading(listing, request: request)
        guard let token, !listing.documents.isEmpty else { return html + documents(listing.documents, selectable: false) + pager(listing, request: request) + "</section></div>" }
        // Several documents at once: ticked, then tagged, moved or deleted (after a confirmation).
        html += "<form method=\"post\" action=\"\(escape(base))/docs/bulk\" class=\"bulk\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
            + "<fieldset class=\"bulk\"><legend>With the ticked documents</legend><label>Tag or folder <input type=\"text\" name=\"value\" list=\"outline-names\" "
            + "placeholder=\"bank, or Letters/2026\"></label><datalist id=\"outline-names\">"
            + (outline.tags.map(\.name) + outline.folders.map(\.path)).prefix(1000).map { "<option value=\"\(escape($0))\">" }.joined() + "</datalist>"
            + "<button name=\"action\" value=\"tag\">Add tag</button><button name=\"action\" value=\"untag\">Remove tag</button>"
            + "<button name=\"action\" value=\"move\">Move to folder</button><button name=\"action\" value=\"delete\" class=\"danger\">Delete…</button></fieldset>"
        return html + "<div role=\"group\" aria-label=\"Documents to tick\">" + documents(listing.documents, selectable: true) + "</div></form>"
            + pager(listing, request: request) + "</section></div>"
    }

    private static func heading(_ listing: BrowsePage, request: BrowseRequest) -> String {
        let query = request.query
        var what = "\(listing.total) document\(listing.total == 1 ? "" : "s")"
        if let folder = query.folder { what += " in <strong>\(escape(folder))</strong>" }
        if !query.tags.isEmpty { what += " tagged " + query.tags.map { "<span class=\"tag\">\(escape($0))</span>" }.joined(separator: " ") }
        let sorts: [(BrowseQuery.Sort, String)] = [(.newest, "Newest"), (.oldest, "Oldest"), (.title, "Title")]
        let links = sorts.map { sort, label in
            sort == query.sort ? "<strong aria-current=\"true\">\(label)</strong>" : "<a href=\"\(escape(request.link(["sort": sort.rawValue])))\">\(label)</a>"
        }
        return "<div class=\"listing-head\"><p class=\"count\">\(what)</p><p class=\"sort\">Sort: \(links.joined(separator: " · "))</p></div>"
    }

    private static func documents(_ documents: [BrowsePage.Document], selectable: Bool) -> String {
        guard !documents.isEmpty else { return "<p class=\"none\">No documents here yet. <a href=\"\(escape(base))/import\">Import PDFs</a>.</p>" }
        var html = "<ol class=\"documents\">"
        for document in documents {
            let link = base + "/doc?path=" + queryValue(document.path)
            let image = base + "/page-image?path=" + queryValue(document.path) + "&n=1&w=160"
            html += "<li>" + (selectable ? "<input type=\"checkbox\" name=\"path\" value=\"\(escape(document.path))\" aria-label=\"Select \(escape(document.title))\">" : "")
                + "<a class=\"thumb\" href=\"\(escape(link))\" tabindex=\"-1\" aria-hidden=\"true\"><img loading=\"lazy\" alt=\"\" src=\"\(escape(image))\"></a><div>"
                + "<h3><a href=\"\(escape(link))\">\(escape(document.title))</a></h3><p class=\"meta\">\(escape(document.folder.isEmpty ? "(top folder)" : document.folder))"
            if !document.tags.isEmpty { html += " · " + document.tags.map { "<span class=\"tag\">\(escape($0))</span>" }.joined(separator: " ") }
            if let modified = document.modified { html += " · \(escape(String(InternetTime.string(Date(timeIntervalSince1970: modified)).prefix(10))))" }
            html += " · \(document.pageCount) page\(document.pageCount == 1 ? "" : "s")"
            if let state = state(document) { html += " · <span class=\"status\">\(escape(state))</span>" }
            html += "</p></div></li>"
        }
        return html + "</ol>"
    }

    /// What a person must know about a document before opening it, in words; nil when nothing.
    static func state(_ document: BrowsePage.Document) -> String? {
        if ConflictName(fileName: (document.path.split(separator: "/").last).map(String.init) ?? document.path).isSyncConflict { return "in conflict" }
        switch document.status {
        case .ok: return nil
        case .notDownloaded: return "not downloaded"
        case .damaged, .failed: return "damaged"
        case .encrypted: return "encrypted"
        case .noTextLayer: return "waiting for OCR"
        case .noWordsFound: return "no words found"
        case .stillArriving: return "arriving"
        }
    }

    private static func pager(_ listing: BrowsePage, request: BrowseRequest) -> String {
        let pages = max(1, (listing.total + BrowseRequest.pageSize - 1) / BrowseRequest.pageSize)
        guard pages > 1 else { return "" }
        var html = "<nav class=\"pager\" aria-label=\"Pages\">"
        if request.page > 1 { html += "<a rel=\"prev\" href=\"\(escape(request.link(["page": String(request.page - 1)])))\">← Previous</a>" }
        html += "<span>Page \(request.page) of \(pages)</span>"
        if request.page < pages { html += "<a rel=\"next\" href=\"\(escape(request.link(["page": String(request.page + 1)])))\">Next →</a>" }
        return html + "</nav>"
    }
}

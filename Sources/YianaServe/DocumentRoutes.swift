import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// A document: its page (metadata, every page drawn lazily at the width the screen needs, the
/// PDF to download), its page images and its PDF. Paths reach the file system only through
/// ``DocumentLocator``.
struct DocumentRoutes {
    let library: Library
    let images: PageImages
    /// The form token of the restore buttons; nil on a read-only server (no buttons).
    let versionsToken: String?
    /// The library's folders and tags, offered on the edit form.
    let index: IndexHandle

    func add(to router: some RouterMethods<ServeContext>) {
        let library = self.library, images = self.images, token = self.versionsToken, index = self.index
        router.get("/doc") { request, _ -> Response in
            if let (_, path) = try? DocumentLocator.evicted(request.formParameters.get("path"), in: library) {
                return HTML.page(title: path, library: library, body: HTML.notDownloaded(path, token: token))
            }
            let (url, path) = try DocumentLocator.document(request.formParameters.get("path"), in: library)
            let metadata: DocumentMetadata, key: String?
            do {
                let reader = try DocumentReader(path: url.path)
                (metadata, key) = (try reader.metadata(), reader.contentKey)
            } catch {
                let repair = HTML.base + "/repair?path=" + HTML.queryValue(path)
                return HTML.page(title: path, library: library, body: "<h1>\(HTML.escape(path))</h1><p class=\"error\">This document cannot be read: \(HTML.escape("\(error)")).</p>"
                                 + "<p><a class=\"button\" href=\"\(HTML.escape(repair))\">Repair…</a> shows what can be mended first "
                                 + "(from a terminal: <code>yiana verify</code> says why, <code>yiana repair</code> mends what it can).</p>")
            }
            let query = String((request.formParameters.get("q") ?? "").prefix(500))
            let versions = (try? VersionStore(library: library).versions(of: url)) ?? []
            let outline = token == nil ? nil : try? await index.open().outline()
            let parameters = request.formParameters
            let notice = parameters.get("saved") != nil ? "<p class=\"notice\" role=\"status\">Saved.</p>"
                : parameters.get("restored") != nil ? "<p class=\"notice\" role=\"status\">Restored: it is back in the library.</p>" : ""
            return HTML.page(title: metadata.title, library: library,
                             body: notice + HTML.document(metadata, path: path, query: query,
                                                 people: HTML.editForm(metadata, path: path, folders: outline?.folders.map(\.path) ?? [],
                                                                       tags: outline?.tags.map(\.name) ?? [], token: token)
                                                     + HTML.people(AddressBook.of(title: metadata.title, document: url, in: library), path: path, token: token),
                                                 actions: token.map { metadata.ocrCompleted ? "" : HTML.jobButton(.ocr, label: "Recognise now", token: $0, path: path) } ?? "")
                                + HTML.versions(versions, path: path, token: token)
                                + HTML.history(DocumentHistory(library: library).entries(of: metadata.id.uuidString), current: key))
        }
        router.get("/page-image") { request, _ -> Response in
            let parameters = request.formParameters
            let (url, path) = try DocumentLocator.document(parameters.get("path"), in: library)
            let number = try Self.pageNumber(parameters)
            let width = PageImages.width(for: parameters.get("w").flatMap(Int.init))
            let image: (bytes: [UInt8], format: PageImageFormat)?
            do {
                image = try images.image(of: url, page: number, width: width)
            } catch {
                throw HTTPError(.unprocessableContent, message: "\(path): page \(number) cannot be drawn (\(error)).")
            }
            guard let image else { throw HTTPError(.notFound, message: "\(path) has no page \(number).") }
            return Response(status: .ok, headers: [.contentType: image.format.contentType, .cacheControl: "private, max-age=60"],
                            body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }
        router.get("/api/hits") { request, _ -> Response in
            try JSONBody.response(try Self.hits(request, library: library))
        }
        router.get("/hits.svg") { request, _ -> Response in
            let page = try Self.hits(request, library: library)
            return Response(status: .ok, headers: [.contentType: "image/svg+xml", .cacheControl: "private, max-age=60"],
                            body: .init(byteBuffer: ByteBuffer(string: HitBoxes.svg(page))))
        }
        router.get("/pdf") { request, _ -> Response in
            let (url, path) = try DocumentLocator.document(request.formParameters.get("path"), in: library)
            // Opened first, so that a document without a readable PDF is a 422, not a cut download.
            guard let size = (try? DocumentReader(path: url.path))?.pdf?.size, size <= UInt64(Int.max) else {
                throw HTTPError(.unprocessableContent, message: "\(path): its PDF cannot be read; `yiana verify` says why.")
            }
            let name = (url.deletingPathExtension().lastPathComponent + ".pdf").filter { $0 != "\"" && $0 != "\\" && !$0.isNewline }
            return Response(status: .ok, headers: [.contentType: "application/pdf",
                                                   .contentDisposition: "attachment; filename*=UTF-8''\(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "document.pdf")"],
                            body: PDFStream.body(url, size: Int(size)))
        }
    }
}

extension DocumentRoutes {
    /// The highest page number asked for (as the API document says): poppler counts pages in
    /// an `int`. A number past a document's pages is a 404; past this, a 400.
    static let maximumPage = Int(Int32.max)

    /// The page `n` of a request, from 1 to ``maximumPage``.
    static func pageNumber(_ parameters: Parameters) throws -> Int {
        guard let number = parameters.get("n").flatMap(Int.init), (1...maximumPage).contains(number) else {
            throw HTTPError(.badRequest, message: "n: the page number, from 1 to \(maximumPage).")
        }
        return number
    }

    /// The boxes of `q`'s words on page `n` of the document `path`.
    static func hits(_ request: Request, library: Library) throws -> HitBoxes.Page {
        let parameters = request.formParameters
        let (url, path) = try DocumentLocator.document(parameters.get("path"), in: library)
        let number = try pageNumber(parameters)
        let query = parameters.get("q") ?? ""
        guard query.count <= 500 else { throw HTTPError(.badRequest, message: "q: at most 500 characters.") }
        let page: HitBoxes.Page?
        do {
            page = try HitBoxes.page(number, of: url, query: query, library: library)
        } catch {
            throw HTTPError(.unprocessableContent, message: "\(path): page \(number) cannot be read (\(error)).")
        }
        guard let page else { throw HTTPError(.notFound, message: "\(path) has no page \(number).") }
        return page
    }
}

extension HTML {
    /// A document's page: its metadata, the PDF to download, its pages as images drawn when
    /// they scroll into view (`loading="lazy"`), at the width the screen asks for.
    /// `people`: what goes between the metadata and the pages (who the document is about).
    /// `actions`: buttons beside its state (recognise it now).
    static func document(_ metadata: DocumentMetadata, path: String, query: String = "", people: String = "", actions: String = "") -> String {
        let document = "path=" + HTML.queryValue(path)
        var html = "<h1>\(escape(metadata.title))</h1><p class=\"meta\">\(escape(path))"
        if !metadata.tags.isEmpty { html += " · " + metadata.tags.map { "<span class=\"tag\">\(escape($0))</span>" }.joined(separator: " ") }
        html += " · created \(escape(InternetTime.string(metadata.created)))"
        html += " · \(metadata.pageCount) page\(metadata.pageCount == 1 ? "" : "s")"
        html += metadata.ocrCompleted ? " · OCR done" : " · OCR not done"
        html += " · <a href=\"\(escape(base))/pdf?\(escape(document))\">Download the PDF</a>\(actions.isEmpty ? "" : " " + actions)</p>\(people)<div class=\"pages\">"
        let words = query.isEmpty ? nil : "q=" + HTML.queryValue(query)
        for number in 1...max(1, metadata.pageCount) {
            let source = escape(base + "/page-image?\(document)&n=\(number)")
            html += "<figure id=\"page-\(number)\"><div class=\"sheet\"><img loading=\"lazy\" alt=\"Page \(number)\" src=\"\(source)&amp;w=960\" "
                + "srcset=\"\(source)&amp;w=640 640w, \(source)&amp;w=960 960w, \(source)&amp;w=1280 1280w, \(source)&amp;w=1920 1920w\" "
                + "sizes=\"(max-width: 60em) 100vw, 60em\">"
            // The current query's words, boxed over the page as over the thumbnails.
            if let words { html += "<img class=\"boxes\" loading=\"lazy\" alt=\"\" src=\"\(escape(base + "/hits.svg?\(document)&n=\(number)&\(words)"))\">" }
            html += "</div><figcaption>Page \(number)</figcaption></figure>"
        }
        return html + "</div>"
    }
}

extension HTML {
    /// The people the app shows for the document, page by page, with where each comes from.
    static func people(_ book: AddressBook?, path: String, token: String? = nil) -> String {
        guard let book else {
            return "<h2>People</h2><p>No one has been looked for in this document yet\(token.map { " " + jobButton(.extract, label: "Find the people", token: $0, path: path) } ?? "") "
                + "(from a terminal: <code>yiana extract \(escape(Shell.quoted(path)))</code>).</p>"
        }
        guard !book.entries.isEmpty else { return "<h2>People</h2><p>No people were found on its pages.</p>" }
        let sources: [AddressBook.Source: String] = [.extracted: "extracted", .corrected: "corrected by a person", .added: "added by a person"]
        var html = "<h2>People</h2><table class=\"people\"><thead><tr><th>Page</th><th>Who</th><th>As</th><th>From</th></tr></thead><tbody>"
        for entry in book.entries {
            let page = entry.page == 0 ? "—" : "<a href=\"#page-\(entry.page)\">\(entry.page)</a>"
            html += "<tr><td>\(page)</td><td>\(escape(entry.words.joined(separator: ", ")))</td><td>\(escape(entry.type))</td>"
                + "<td>\(sources[entry.source] ?? "")</td></tr>"
        }
        return html + "</tbody></table>"
    }

    /// What the toolkit wrote of the document on every device (import, OCR, appends, merges,
    /// restores), newest first, the step that made the file as it is now marked.
    static func history(_ entries: [HistoryEntry], current: String?) -> String {
        guard !entries.isEmpty else { return "<h2>History</h2><p>The toolkit has recorded nothing it wrote of this document (the app's own edits are not recorded).</p>" }
        var html = "<h2>History</h2><ol class=\"history\">"
        for entry in entries.reversed() {
            var detail = [entry.pages.map { "pages \($0)" }, entry.letter.map { "letter \($0)" }, entry.source.map { "PDF \($0.prefix(12))…" }].compactMap { $0 }
            if entry.parents.count > 1 { detail.append("from \(entry.parents.count) versions") }
            html += "<li><time>\(escape(InternetTime.string(entry.at)))</time> <strong>\(escape(entry.what))</strong>"
                + (detail.isEmpty ? "" : " — \(escape(detail.joined(separator: ", ")))")
                + (entry.key == current ? " <span class=\"tag\">this file now</span>" : "") + "</li>"
        }
        return html + "</ol>"
    }

    /// `value` as it may stand after `name=` in a query.
    static func queryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .urlQueryValueAllowed) ?? ""
    }
}

extension CharacterSet {
    /// What a query value may hold unescaped.
    static let urlQueryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "&=+#?"))
}

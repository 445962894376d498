import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaArchive
import YianaLibrary
import YianaSync
import YianaSystem

/// A document's kept versions: listed on its page with a preview of each, and put back by a
/// form (the same restore as `yiana versions restore`: what it replaces is kept first).
struct VersionRoutes {
    let changes: Changes
    let images: PageImages

    struct RestoreForm: Decodable, Sendable, CSRFCarrying {
        let path: String
        let version: String
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let library = changes.library, images = self.images, readOnly = changes.readOnly, csrf = changes.csrf, indexHandle = changes.index
        router.get("/version-image") { request, _ -> Response in
            let parameters = request.formParameters
            let (url, path) = try DocumentLocator.document(parameters.get("path"), in: library)
            let record = try Self.record(parameters.get("version"), of: url, library: library)
            let number = parameters.get("n").flatMap(Int.init) ?? 1
            guard let image = try? images.image(of: VersionStore(library: library).objectURL(record), page: number, width: PageImages.width(for: parameters.get("w").flatMap(Int.init))) else {
                throw HTTPError(.notFound, message: "\(path): version \(record.shortID) has no page \(number) to draw.")
            }
            return Response(status: .ok, headers: [.contentType: image.format.contentType, .cacheControl: "private, max-age=3600"], body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }
        router.post("/versions/restore") { request, _ -> Response in
            let form = try await csrf.form(RestoreForm.self, from: request, readOnly: readOnly, needs: "path, version and csrf")
            let (url, path) = try DocumentLocator.document(form.path, in: library)
            let record = try Self.record(form.version, of: url, library: library)
            let replaced: VersionRecord?
            do {
                replaced = try VersionStore(library: library).restore(record, to: url)
            } catch {
                throw HTTPError(.conflict, message: "\(path): version \(record.shortID) was not restored: \(error)")
            }
            await IndexAfterWrites.update([path], library: library, index: indexHandle)
            let link = HTML.base + "/doc?path=" + HTML.queryValue(path)
            return HTML.page(title: "Restored", library: library, body: "<h1>Restored version \(HTML.escape(record.shortID))</h1><p>\(HTML.escape(path))"
                             + (replaced.map { ": the document it replaced is kept as \(HTML.escape($0.shortID))." } ?? ".")
                             + "</p><p><a href=\"\(HTML.escape(link))\">Back to the document</a></p>")
        }
    }

    /// The version `id` (its first characters, as listed) of the document at `url`.
    static func record(_ id: String?, of url: URL, library: Library) throws -> VersionRecord {
        guard let id, id.count >= 6, id.count <= 64, id.allSatisfy(\.isHexDigit) else {
            throw HTTPError(.badRequest, message: "version: a version's id, 6 to 64 hexadecimal digits.")
        }
        do {
            return try VersionStore(library: library).version(id, of: url)
        } catch {
            throw HTTPError(.notFound, message: "\(error)")
        }
    }
}

extension HTML {
    /// The document's kept versions, newest first, each with a preview of its first page and
    /// a form that restores it (without one on a read-only server).
    static func versions(_ records: [VersionRecord], path: String, token: String?) -> String {
        guard !records.isEmpty else { return "<h2>Versions</h2><p>No earlier version is kept.</p>" }
        let document = "path=" + HTML.queryValue(path)
        var html = "<h2>Versions</h2><ol class=\"versions-list\">"
        var seen = Set<String>()
        for record in records.sorted(by: { $0.keptAt > $1.keptAt }) where seen.insert(record.sha256).inserted {
            html += "<li><img loading=\"lazy\" alt=\"Version \(escape(record.shortID))\" src=\"\(escape(base + "/version-image?\(document)&version=\(record.shortID)&n=1&w=160"))\">"
                + "<div><strong>\(escape(record.shortID))</strong> kept \(escape(InternetTime.string(record.keptAt))): \(escape(record.reason))"
            if let token {
                html += "<form method=\"post\" action=\"\(escape(base))/versions/restore\"><input type=\"hidden\" name=\"path\" value=\"\(escape(path))\">"
                    + "<input type=\"hidden\" name=\"version\" value=\"\(escape(record.shortID))\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
                    + "<button type=\"submit\">Restore this version</button></form>"
            }
            html += "</div></li>"
        }
        return html + "</ol>"
    }
}

/// Downloading an evicted document from its page, through the cloud simulator's downloader
/// (the same as `yiana download`: verified bytes only, placed by the coordinated writer).
struct DownloadRoutes {
    let changes: Changes

    struct DownloadForm: Decodable, Sendable, CSRFCarrying {
        let path: String
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let library = changes.library, readOnly = changes.readOnly, csrf = changes.csrf, indexHandle = changes.index
        router.post("/download") { request, _ -> Response in
            let form = try await csrf.form(DownloadForm.self, from: request, readOnly: readOnly, needs: "path and csrf")
            let (url, path) = try DocumentLocator.evicted(form.path, in: library)
            do {
                _ = try Downloader(library: library).download(url)
            } catch {
                throw HTTPError(.conflict, message: "\(path) was not downloaded: \(error)")
            }
            await IndexAfterWrites.update([path], library: library, index: indexHandle)
            let link = HTML.base + "/doc?path=" + HTML.queryValue(path)
            return HTML.page(title: "Downloaded", library: library,
                             body: "<h1>Downloaded</h1><p>\(HTML.escape(path)) is here now. <a href=\"\(HTML.escape(link))\">Open it</a></p>")
        }
    }
}

extension HTML {
    /// The page of an evicted document: what it is, and the button that downloads it.
    static func notDownloaded(_ path: String, token: String?) -> String {
        var html = "<h1>\(escape(path))</h1><p class=\"note\">Not downloaded: only a placeholder is here; the document is in the cloud.</p>"
        if let token {
            html += "<form method=\"post\" action=\"\(escape(base))/download\"><input type=\"hidden\" name=\"path\" value=\"\(escape(path))\">"
                + "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\"><button type=\"submit\">Download it</button></form>"
        }
        return html
    }
}

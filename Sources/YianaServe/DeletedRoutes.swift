import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaArchive
import YianaLibrary
import YianaSystem

/// "Recently deleted": the documents gone from the library (deleted here or on another device,
/// or overwritten by bytes that are not a document) whose states this machine's keeper holds,
/// each with its first page drawn from the kept bytes and a button that puts it back (the
/// same restore as `yiana versions restore`, with the same token and origin checks as every
/// change), and the mass-loss alarm.
struct DeletedRoutes {
    let changes: Changes
    let images: PageImages

    func add(to router: some RouterMethods<ServeContext>) {
        let library = changes.library, images = self.images, readOnly = changes.readOnly, csrf = changes.csrf, indexHandle = changes.index
        router.get("/deleted") { _, _ -> Response in
            let keeper = Keeper(library: library)
            let lost = await keeper.lostNow()
            return HTML.page(title: "Recently deleted", library: library,
                             body: HTML.deleted(lost, alarm: keeper.alarm(), token: readOnly ? nil : csrf.value))
        }
        router.get("/deleted-image") { request, _ -> Response in
            let parameters = request.formParameters
            let (path, record) = try Self.lostVersion(parameters.get("path"), parameters.get("version"), library: library)
            let number = parameters.get("n").flatMap(Int.init) ?? 1
            guard let image = try? images.image(of: Keeper(library: library).objectURL(record.sha256), page: number,
                                                 width: PageImages.width(for: parameters.get("w").flatMap(Int.init))) else {
                throw HTTPError(.notFound, message: "\(path): version \(record.shortID) has no page \(number) to draw.")
            }
            return Response(status: .ok, headers: [.contentType: image.format.contentType, .cacheControl: "private, max-age=3600"],
                            body: .init(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }
        router.post("/deleted/restore") { request, _ -> Response in
            let form = try await csrf.form(VersionRoutes.RestoreForm.self, from: request, readOnly: readOnly, needs: "path, version and csrf")
            let (path, record) = try Self.lostVersion(form.path, form.version, library: library)
            let url = library.root.appendingPathComponent(path)
            let keeper = Keeper(library: library)
            let replaced: VersionRecord?
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                replaced = try VersionStore(library: library).restore(record, to: url)
            } catch {
                throw HTTPError(.conflict, message: "\(path): version \(record.shortID) was not restored: \(error)")
            }
            await keeper.recordRestored([url])
            await IndexAfterWrites.update([path], library: library, index: indexHandle)
            let link = HTML.base + "/doc?path=" + HTML.queryValue(path)
            return HTML.page(title: "Restored", library: library,
                             body: "<h1>Restored \(HTML.escape(path))</h1><p>Version \(HTML.escape(record.shortID)) is back in the library"
                                 + (replaced.map { "; what was at its path is kept as \(HTML.escape($0.shortID))" } ?? "")
                                 + ". It syncs to your other devices like any change.</p><p><a href=\"\(HTML.escape(link))\">Open it</a> · "
                                 + "<a href=\"\(HTML.escape(HTML.base + "/deleted"))\">Recently deleted</a></p>")
        }
    }

    /// The lost document at `path` and its kept version `id` (as listed): a 404 for anything
    /// else, so that no request reads a file the page did not offer.
    static func lostVersion(_ path: String?, _ id: String?, library: Library) throws -> (String, VersionRecord) {
        guard let id, id.count >= 6, id.count <= 64, id.allSatisfy(\.isHexDigit) else {
            throw HTTPError(.badRequest, message: "version: a version's id, 6 to 64 hexadecimal digits.")
        }
        guard let path, path.utf8.count <= 4096, !path.contains("\0"),
              let lost = Keeper(library: library).lost(at: path) else {
            throw HTTPError(.notFound, message: "\(path ?? "(no path)"): not among the documents recently deleted.")
        }
        let matches = lost.versions.filter { $0.sha256.hasPrefix(id.lowercased()) }
        guard let record = matches.first, Set(matches.map(\.sha256)).count == 1 else {
            throw HTTPError(.notFound, message: "\(path): no single kept version \(id).")
        }
        return (path, record)
    }
}

extension HTML {
    /// The lost documents, newest loss first, each with its kept states and a restore button
    /// (none on a read-only server); the alarm first when it is raised.
    static func deleted(_ lost: [LostDocument], alarm: MassLossAlarm?, token: String?) -> String {
        var html = alarm.map(massLossBanner) ?? ""
        guard !lost.isEmpty else {
            return html + "<h1>Recently deleted</h1><p>Nothing lost: every document this machine saw is still in the library.</p>"
        }
        html += "<h1>Recently deleted</h1><p>\(lost.count) document\(lost.count == 1 ? "" : "s") gone from the library (deleted here or on another device, "
            + "or overwritten by bytes that are not a document). Every state this machine saw is kept for at least 30 days.</p><ol class=\"versions-list deleted\">"
        for document in lost {
            guard let newest = document.versions.first else { continue }
            let query = "path=" + queryValue(document.path) + "&version=" + newest.shortID
            let how = document.how == .deleted ? "deleted" : "overwritten by bytes that are not a document"
            html += "<li><img loading=\"lazy\" alt=\"First page of \(escape(document.path))\" src=\"\(escape(base + "/deleted-image?\(query)&n=1&w=160"))\">"
                + "<div><strong>\(escape(document.title ?? document.path))</strong> <span class=\"meta\">\(escape(document.path))</span><br>"
                + "\(escape(how)) · found \(escape(InternetTime.string(document.goneAt))) · last seen \(escape(InternetTime.string(document.lastSeen)))"
                + " · \(document.versions.count) kept state\(document.versions.count == 1 ? "" : "s")"
            if let token {
                html += "<form method=\"post\" action=\"\(escape(base))/deleted/restore\"><input type=\"hidden\" name=\"path\" value=\"\(escape(document.path))\">"
                    + "<input type=\"hidden\" name=\"version\" value=\"\(escape(newest.shortID))\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
                    + "<button type=\"submit\">Restore</button></form>"
            }
            html += "</div></li>"
        }
        return html + "</ol>"
    }

    /// The alarm, loud, with what brings everything back.
    static func massLossBanner(_ alarm: MassLossAlarm) -> String {
        "<div class=\"alarm\" role=\"alert\"><strong>\(alarm.lost) of \(alarm.documents) documents were deleted or overwritten since "
            + "\(escape(InternetTime.string(alarm.since)))</strong>: a wiped device or ransomware? Every state seen here is kept. "
            + "<a href=\"\(escape(base + "/deleted"))\">Recently deleted</a> restores them one by one; "
            + "<code>yiana versions restore --deleted --since '\(escape(LocalTime(alarm.since.addingTimeInterval(-1)).text))'</code> all at once.</div>"
    }
}

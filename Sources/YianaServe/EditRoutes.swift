import Foundation
import HTTPTypes
import Hummingbird
import YianaArchive
import YianaLibrary
import YianaSystem

/// A document changed from its page as the app changes it: its title (and file name), tags and
/// folder (`/doc/edit`), deleted (`/doc/delete`, kept first, with Undo on the spot:
/// `/doc/undelete`). The same library code as `yiana rename`, `edit`, `move` and `delete`; the
/// same token and origin checks as every change; a read-only server refuses them all.
struct EditRoutes {
    let changes: Changes

    struct EditForm: Decodable, Sendable, CSRFCarrying {
        let path: String
        let title: String?
        /// The title the page showed: a title other than it is a rename, even when the
        /// document already has it (a save a crash cut short, sent again).
        let was: String?
        /// Comma-separated, as typed.
        let tags: String?
        let folder: String?
        let csrf: String
    }

    struct PathForm: Decodable, Sendable, CSRFCarrying {
        let path: String
        let version: String?
        let csrf: String
    }

    /// Most tags a document is given from the page (the app shows a few).
    static let tagLimit = 100

    func add(to router: some RouterMethods<ServeContext>) {
        let changes = self.changes
        router.post("/doc/edit") { request, _ -> Response in
            let form = try await changes.csrf.form(EditForm.self, from: request, readOnly: changes.readOnly, needs: "path and csrf")
            let (url, path) = try DocumentLocator.document(form.path, in: changes.library)
            let now = try Self.edit(url, form, library: changes.library)
            let newPath = changes.library.relativePath(of: now) ?? path
            await IndexAfterWrites.update(Array(Set([path, newPath])), library: changes.library, index: changes.index)
            return Response(status: .seeOther, headers: [.location: HTML.base + "/doc?path=" + HTML.queryValue(newPath) + "&saved=1"])
        }
        router.post("/doc/delete") { request, _ -> Response in
            let form = try await changes.csrf.form(PathForm.self, from: request, readOnly: changes.readOnly, needs: "path and csrf")
            let (url, path) = try DocumentLocator.document(form.path, in: changes.library)
            let kept: VersionRecord?
            do { kept = try DocumentOrganizer(library: changes.library).delete(url) } catch {
                throw HTTPError(.conflict, message: "\(path) was not deleted: \(error)")
            }
            await IndexAfterWrites.update([path], library: changes.library, index: changes.index)
            return HTML.page(title: "Deleted", library: changes.library, body: HTML.deleted(path, kept: kept, token: changes.csrf.value))
        }
        router.post("/doc/undelete") { request, _ -> Response in
            let form = try await changes.csrf.form(PathForm.self, from: request, readOnly: changes.readOnly, needs: "path, version and csrf")
            let (url, path) = try Self.deletedPlace(form.path, library: changes.library)
            guard let id = form.version, id.count >= 6, id.count <= 64, id.allSatisfy(\.isHexDigit) else {
                throw HTTPError(.badRequest, message: "version: a version's id, 6 to 64 hexadecimal digits.")
            }
            guard FileKind.at(url.path) == .missing else { throw HTTPError(.conflict, message: "\(path): a document is there again; nothing was changed.") }
            let store = VersionStore(library: changes.library)
            guard let record = try? store.version(id, of: url) else { throw HTTPError(.notFound, message: "\(path): no kept version \(id).") }
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try store.restore(record, to: url)
            } catch {
                throw HTTPError(.conflict, message: "\(path): version \(record.shortID) was not restored: \(error)")
            }
            await IndexAfterWrites.update([path], library: changes.library, index: changes.index)
            return Response(status: .seeOther, headers: [.location: HTML.base + "/doc?path=" + HTML.queryValue(path) + "&restored=1"])
        }
    }

    /// The form's changes made in the app's order: the tags and the title (one edit, then the
    /// file renamed), then the folder. Returns where the document is now.
    static func edit(_ url: URL, _ form: EditForm, library: Library) throws -> URL {
        let metadata: DocumentMetadata
        do { metadata = try DocumentReader(path: url.path).metadata() } catch {
            throw HTTPError(.unprocessableContent, message: "This document cannot be read: \(error). `yiana verify` says why.")
        }
        var url = url
        do {
            var title = form.title?.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (title?.utf8.count ?? 0) <= 500 else { throw HTTPError(.badRequest, message: "title: at most 500 bytes.") }
            if title == (form.was?.trimmingCharacters(in: .whitespacesAndNewlines) ?? metadata.title) { title = nil }  // not renamed
            let folder = form.folder?.trimmingCharacters(in: .whitespaces)
            let organizer = DocumentOrganizer(library: library)
            // Where it goes is checked before any change (a name taken there changes nothing).
            _ = try organizer.place(url, title: title, folder: folder, dryRun: true)
            if let tags = form.tags { try retag(url, tags, metadata: metadata, library: library) }
            url = try organizer.place(url, title: title, folder: folder)
        } catch let error as OrganizeError {
            if case .nameTaken = error { throw HTTPError(.conflict, message: error.description) }
            throw HTTPError(.badRequest, message: error.description)
        } catch let error as ArchiveError where error.kind == .documentChanged {
            throw HTTPError(.conflict, message: "Another device changed this document while it was saved; open it again and make the change once more.")
        }
        return url
    }

    /// The document's tags made those typed (comma-separated).
    static func retag(_ url: URL, _ typed: String, metadata: DocumentMetadata, library: Library) throws {
        let wanted = typed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty && !$0.contains("\0") }
        guard wanted.count <= tagLimit, wanted.allSatisfy({ $0.utf8.count <= 100 }) else {
            throw HTTPError(.badRequest, message: "tags: at most \(tagLimit), each of at most 100 bytes.")
        }
        let add = wanted.filter { !metadata.tags.contains($0) }, remove = metadata.tags.filter { !wanted.contains($0) }
        if !add.isEmpty || !remove.isEmpty { try DocumentEditor(library: library).apply(MetadataEdit(addTags: add, removeTags: remove), to: url) }
    }

    /// A deleted document's place: inside the library, a document's name, nothing there.
    static func deletedPlace(_ path: String, library: Library) throws -> (URL, String) {
        guard path.utf8.count <= 4096, !path.contains("\0"), !path.hasPrefix("/"), LibraryScanner.documentName(of: (path.split(separator: "/").last).map(String.init) ?? "") != nil,
              !path.split(separator: "/").contains(where: { $0 == ".." || $0.hasPrefix(".") }) else {
            throw HTTPError(.badRequest, message: "path: a document's place in the library.")
        }
        return (library.root.appendingPathComponent(path), path)
    }
}

extension HTML {
    /// After a deletion: what was deleted, and Undo.
    static func deleted(_ path: String, kept: VersionRecord?, token: String) -> String {
        var html = "<h1>Deleted</h1><p><strong>\(escape(path))</strong> is deleted on this device, and on your others once they sync.</p>"
        if let kept {
            html += "<form method=\"post\" action=\"\(escape(base))/doc/undelete\"><input type=\"hidden\" name=\"path\" value=\"\(escape(path))\">"
                + "<input type=\"hidden\" name=\"version\" value=\"\(escape(kept.shortID))\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
                + "<button type=\"submit\" class=\"undo\">Undo</button></form>"
                + "<p class=\"meta\">Kept as version \(escape(kept.shortID)): <a href=\"\(escape(base))/deleted\">Recently deleted</a> lists it, "
                + "<code>yiana versions restore \"\(escape(path))\" \(escape(kept.shortID))</code> brings it back too.</p>"
        }
        return html + "<p><a href=\"\(escape(base))/\">Back to the library</a></p>"
    }

    /// The document page's edit form (title, tags with the library's offered, folder) and its
    /// Delete button; nothing on a read-only server.
    static func editForm(_ metadata: DocumentMetadata, path: String, folders: [String], tags: [String], token: String?) -> String {
        guard let token else { return "" }
        let folder = path.split(separator: "/").dropLast().joined(separator: "/")
        let hidden = "<input type=\"hidden\" name=\"path\" value=\"\(escape(path))\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
        var html = "<details class=\"edit\"><summary>Edit or delete</summary><form method=\"post\" action=\"\(escape(base))/doc/edit\" class=\"edit\">" + hidden
        html += "<input type=\"hidden\" name=\"was\" value=\"\(escape(metadata.title))\">"
            + "<label>Title <input type=\"text\" name=\"title\" value=\"\(escape(metadata.title))\" required maxlength=\"500\"></label>"
        html += "<label>Tags <input type=\"text\" name=\"tags\" value=\"\(escape(metadata.tags.joined(separator: ", ")))\" list=\"library-tags\" "
            + "placeholder=\"bank, 2026\"></label><datalist id=\"library-tags\">" + tags.prefix(500).map { "<option value=\"\(escape($0))\">" }.joined() + "</datalist>"
        html += "<label>Folder <input type=\"text\" name=\"folder\" value=\"\(escape(folder))\" list=\"library-folders\" placeholder=\"(top folder)\"></label>"
            + "<datalist id=\"library-folders\">" + folders.prefix(2000).map { "<option value=\"\(escape($0))\">" }.joined() + "</datalist>"
        html += "<button type=\"submit\">Save</button></form>"
        html += "<form method=\"post\" action=\"\(escape(base))/doc/delete\" class=\"delete\">" + hidden + "<button type=\"submit\" class=\"danger\">Delete</button></form>"
        return html + "<p class=\"meta\">A new title also renames the file as the app does (<code>yiana rename</code>); a new folder is made when missing "
            + "(<code>yiana move</code>). What is replaced or deleted is kept first.</p></details>"
    }
}

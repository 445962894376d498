import Foundation
import HTTPTypes
import Hummingbird
import YianaArchive
import YianaLibrary

/// Several documents ticked on the start page, then tagged, untagged, moved or deleted at
/// once (`/docs/bulk`): a deletion of many asks first, then keeps each before it goes and
/// offers Undo for each. The same library code and checks as one document's page.
struct BulkRoutes {
    let changes: Changes
    /// Most documents one request changes.
    static let limit = 500

    enum Action: String {
        case tag, untag, move, delete
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let changes = self.changes
        router.post("/docs/bulk") { request, _ -> Response in
            guard !changes.readOnly else { throw HTTPError(.forbidden, message: "This server is read-only (--read-only): nothing is changed.") }
            var request = request
            let form = try await request.formBody(upTo: 256 << 10)
            try changes.csrf.check(form.get("csrf") ?? "", request: request)
            guard let action = form.get("action").flatMap(Action.init) else { throw HTTPError(.badRequest, message: "action: tag, untag, move or delete.") }
            var paths: [String] = []
            for path in form.getAll("path") where !paths.contains(path) { paths.append(path) }
            guard !paths.isEmpty else { throw HTTPError(.badRequest, message: "Tick at least one document first.") }
            guard paths.count <= Self.limit else { throw HTTPError(.badRequest, message: "At most \(Self.limit) documents at once.") }
            let documents = try paths.map { try DocumentLocator.document($0, in: changes.library) }
            let value = (form.get("value") ?? "").trimmingCharacters(in: .whitespaces)
            if action == .delete, form.get("confirm") != "1" {
                return HTML.page(title: "Delete \(paths.count) documents?", library: changes.library,
                                 body: HTML.confirmDeletion(documents.map(\.path), token: changes.csrf.value))
            }
            guard action == .delete || action == .move || (!value.isEmpty && value.utf8.count <= 100 && !value.contains("\0")) else {
                throw HTTPError(.badRequest, message: "value: the tag (at most 100 bytes).")
            }
            var outcomes: [(path: String, done: String?, error: String?, kept: String?)] = []
            var touched: [String] = []
            for (url, path) in documents {
                do {
                    switch action {
                    case .tag, .untag:
                        let edit = action == .tag ? MetadataEdit(addTags: [value]) : MetadataEdit(removeTags: [value])
                        let changed = try DocumentEditor(library: changes.library).apply(edit, to: url) != nil
                        outcomes.append((path, changed ? (action == .tag ? "tagged \(value)" : "untagged \(value)") : "already so", nil, nil))
                    case .move:
                        let now = try DocumentOrganizer(library: changes.library).move(url, toFolder: value)
                        let newPath = changes.library.relativePath(of: now) ?? path
                        touched.append(newPath)
                        outcomes.append((path, newPath == path ? "already there" : "moved to \(newPath)", nil, nil))
                    case .delete:
                        let kept = try DocumentOrganizer(library: changes.library).delete(url)
                        outcomes.append((path, "deleted", nil, kept?.shortID))
                    }
                    touched.append(path)
                } catch {
                    outcomes.append((path, nil, "\(error)", nil))
                }
            }
            await IndexAfterWrites.update(Array(Set(touched)), library: changes.library, index: changes.index)
            return HTML.page(title: "Done", library: changes.library, body: HTML.bulkOutcomes(outcomes, token: changes.csrf.value))
        }
    }
}

extension HTML {
    /// The documents a deletion would take, and the one button that deletes them.
    static func confirmDeletion(_ paths: [String], token: String) -> String {
        var html = "<h1>Delete \(paths.count) document\(paths.count == 1 ? "" : "s")?</h1><p>Each is kept first: Undo brings it back, here or on "
            + "<a href=\"\(escape(base))/deleted\">Recently deleted</a>.</p><ul>"
        html += paths.map { "<li>\(escape($0))</li>" }.joined() + "</ul><form method=\"post\" action=\"\(escape(base))/docs/bulk\">"
            + "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\"><input type=\"hidden\" name=\"action\" value=\"delete\">"
            + "<input type=\"hidden\" name=\"confirm\" value=\"1\">" + paths.map { "<input type=\"hidden\" name=\"path\" value=\"\(escape($0))\">" }.joined()
        return html + "<button type=\"submit\" class=\"danger\">Delete \(paths.count) document\(paths.count == 1 ? "" : "s")</button> "
            + "<a href=\"\(escape(base))/\">Keep them</a></form>"
    }

    /// What was done to each document, with Undo for each deleted one.
    static func bulkOutcomes(_ outcomes: [(path: String, done: String?, error: String?, kept: String?)], token: String) -> String {
        let failed = outcomes.filter { $0.error != nil }.count
        var html = "<h1>\(outcomes.count - failed) of \(outcomes.count) done</h1><ul class=\"outcomes\">"
        for outcome in outcomes {
            if let error = outcome.error {
                html += "<li class=\"failed\">\(escape(outcome.path)): \(escape(error))</li>"
                continue
            }
            html += "<li class=\"imported\">\(escape(outcome.path)): \(escape(outcome.done ?? ""))"
            if let kept = outcome.kept {
                html += " <form class=\"inline\" method=\"post\" action=\"\(escape(base))/doc/undelete\"><input type=\"hidden\" name=\"path\" value=\"\(escape(outcome.path))\">"
                    + "<input type=\"hidden\" name=\"version\" value=\"\(escape(kept))\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
                    + "<button type=\"submit\" class=\"undo\">Undo</button></form>"
            }
            html += "</li>"
        }
        return html + "</ul><p><a href=\"\(escape(base))/\">Back to the library</a></p>"
    }
}

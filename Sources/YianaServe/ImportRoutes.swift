import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import YianaLibrary
import YianaSystem

/// Import by drag and drop: the page lists the library's folders as places to drop PDFs on;
/// its script sends each file on its own (`POST /import?folder=&name=`, the bytes as the body)
/// and shows what became of it. The bytes are streamed to a scratch file of this machine's
/// cache (never the synced folder), refused past the size limit, and handed to the importer
/// `yiana import` uses: the same checks, duplicates and names, one document or one reason.
struct ImportRoutes {
    let changes: Changes
    /// The most bytes one file may have.
    let limit: Int

    /// What became of one file, as the page's script shows it.
    struct Outcome: Codable {
        /// `imported`, `skipped` (already in the library) or `failed`.
        let status: String
        let file: String
        /// The new document (imported) or the one that has these bytes (skipped).
        let document: String?
        let title: String?
        let pageCount: Int?
        let reason: String?
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let changes = self.changes, limit = self.limit
        router.get("/import") { _, _ -> Response in
            let folders = (try? LibraryScanner.scan(changes.library)).map { Self.folders($0, library: changes.library) } ?? [""]
            return HTML.page(title: "Import", library: changes.library,
                             body: HTML.importPage(folders: folders, token: changes.readOnly ? nil : changes.csrf.value, limit: limit),
                             script: "/static/import.js")
        }
        router.post("/import") { request, _ -> Response in
            guard !changes.readOnly else { throw HTTPError(.forbidden, message: "This server is read-only (--read-only): nothing is imported.") }
            try changes.csrf.check(request.headers[.csrfToken] ?? "", request: request)
            let parameters = request.formParameters
            let folder = parameters.get("folder") ?? ""
            do { _ = try changes.library.folder(folder) } catch { throw HTTPError(.badRequest, message: "folder: \(error)") }
            let name = try Self.fileName(parameters.get("name"))
            if let length = request.headers[.contentLength].flatMap(Int.init), length > limit { throw Self.tooLarge(name, limit: limit) }
            let upload = try await Self.receive(request.body, name: name, limit: limit, scratch: try LocalState(library: changes.library).scratch())
            defer { try? FileManager.default.removeItem(at: upload.deletingLastPathComponent()) }
            let report = try await Importer(library: changes.library).run([upload.path], options: ImportOptions(into: folder, jobs: 1))
            let outcome = Self.outcome(report, file: name, source: upload.path)
            if let document = outcome.document, outcome.status == "imported" {
                await IndexAfterWrites.update([document], library: changes.library, index: changes.index)
            }
            let status: HTTPResponse.Status = outcome.status == "imported" ? .created : outcome.status == "skipped" ? .ok : .unprocessableContent
            return try JSONBody.response(outcome, status: status)
        }
    }

    /// The file's own name as the browser gave it: one name, no folder, not hidden, UTF-8 of at
    /// most 200 bytes (it becomes the document's title and name).
    static func fileName(_ text: String?) throws -> String {
        guard let text, !text.isEmpty, text.utf8.count <= 200, !text.contains("/"), !text.contains("\0"), !text.hasPrefix("."),
              !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw HTTPError(.badRequest, message: "name: the file's own name (no folder, not hidden, at most 200 bytes).")
        }
        return text
    }

    static func tooLarge(_ name: String, limit: Int) -> HTTPError {
        HTTPError(.contentTooLarge, message: "\(name) is larger than this server takes (\(limit >> 20) MB; `yiana serve --max-import MB` sets it, or use `yiana import`).")
    }

    /// The body streamed into a new folder of the scratch space, as `name`; refused (and
    /// removed) as soon as it passes `limit`.
    static func receive(_ body: RequestBody, name: String, limit: Int, scratch: URL) async throws -> URL {
        let folder = scratch.appendingPathComponent("upload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let file = folder.appendingPathComponent(name)
        do {
            let fd = try Sys.open(file.path, [.writeOnly, .create, .exclusive, .noFollow])
            defer { Sys.close(fd) }
            var received = 0
            for try await buffer in body {
                received += buffer.readableBytes
                guard received <= limit else { throw tooLarge(name, limit: limit) }
                try buffer.withUnsafeReadableBytes { try Sys.writeAll(fd, $0, path: file.path) }
            }
            return file
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
    }

    /// The importer's report of one file as the page shows it.
    static func outcome(_ report: ImportReport, file: String, source: String) -> Outcome {
        if let imported = report.imported.first {
            return Outcome(status: "imported", file: file, document: imported.document, title: imported.title, pageCount: imported.pageCount, reason: nil)
        }
        if let skipped = report.skipped.first {
            return Outcome(status: "skipped", file: file, document: skipped.existing, title: nil, pageCount: nil, reason: skipped.reason)
        }
        // The importer names its input (the scratch file): the page names the file already.
        var reason = (report.failed.first?.reason ?? "nothing was imported").replacingOccurrences(of: source, with: file)
        if reason.hasPrefix(file + ": ") { reason.removeFirst(file.count + 2) }
        return Outcome(status: "failed", file: file, document: nil, title: nil, pageCount: nil, reason: reason)
    }

    /// The folders documents are in (the library itself first), each once, sorted.
    static func folders(_ scan: LibraryScan, library: Library) -> [String] {
        var folders: Set<String> = [""]
        for item in scan.items {
            guard let path = library.documentPath(of: item) else { continue }
            var parts = path.split(separator: "/").dropLast()
            while !parts.isEmpty {
                folders.insert(parts.joined(separator: "/"))
                parts = parts.dropLast()
            }
        }
        return folders.sorted()
    }
}

extension HTTPField.Name {
    static let csrfToken = Self("X-CSRF-Token")!
}

extension HTML {
    /// The folders as drop targets, each with a file chooser for those who do not drag, and
    /// a list under it of what became of each file.
    static func importPage(folders: [String], token: String?, limit: Int) -> String {
        var html = "<h1>Import PDFs</h1>"
        guard let token else { return html + "<p>This server is read-only (<code>--read-only</code>): nothing can be imported.</p>" }
        html += "<p>Drop PDF files on a folder to import each as a new document there, or choose them with the folder's button. "
            + "At most \(limit >> 20) MB a file; a PDF the library already has is not imported twice.</p>"
        html += "<ul class=\"folders\" data-csrf=\"\(escape(token))\">"
        for folder in folders {
            let name = folder.isEmpty ? "The library itself" : folder
            html += "<li class=\"drop\" data-folder=\"\(escape(folder))\"><span class=\"folder\">\(escape(name))</span> "
                + "<label class=\"button\">Choose PDFs…<input type=\"file\" multiple accept=\"application/pdf,.pdf\" aria-label=\"PDFs to import into \(escape(name))\"></label>"
                + "<ul class=\"outcomes\" aria-live=\"polite\"></ul></li>"
        }
        return html + "</ul>"
    }

    /// Sends each dropped or chosen file on its own, one after another, and says what became of it.
    static let importScript = """
        "use strict";
        (function () {
          const list = document.querySelector("ul.folders");
          if (!list) return;
          const token = list.dataset.csrf;
          function line(zone, kind, text, link) {
            const item = document.createElement("li");
            item.className = kind;
            item.textContent = text;
            if (link) {
              const a = document.createElement("a");
              a.href = document.body.dataset.base + "/doc?path=" + encodeURIComponent(link);
              a.textContent = link;
              item.append(" ", a);
            }
            zone.querySelector("ul.outcomes").appendChild(item);
            return item;
          }
          async function send(zone, file) {
            const pending = line(zone, "pending", file.name + ": sending…");
            let answer;
            try {
              const url = document.body.dataset.base + "/import?folder=" + encodeURIComponent(zone.dataset.folder) + "&name=" + encodeURIComponent(file.name);
              const response = await fetch(url, {method: "POST", body: file, headers: {"X-CSRF-Token": token, "Content-Type": "application/pdf"}});
              answer = await response.json().catch(() => ({status: "failed", reason: response.status + " " + response.statusText}));
            } catch (error) {
              answer = {status: "failed", reason: "not sent (" + error.message + ")"};
            }
            pending.remove();
            if (answer.status === "imported") {
              line(zone, "imported", file.name + ": imported (" + answer.pageCount + (answer.pageCount === 1 ? " page) as" : " pages) as"), answer.document);
            } else if (answer.status === "skipped") {
              line(zone, "skipped", file.name + ": not imported, the library already has it:", answer.document);
            } else {
              line(zone, "failed", file.name + ": not imported: " + (answer.reason || (answer.error && answer.error.message) || "unknown error"));
            }
          }
          async function sendAll(zone, files) {
            for (const file of files) await send(zone, file);
          }
          for (const zone of list.querySelectorAll("li.drop")) {
            zone.addEventListener("dragover", (event) => { event.preventDefault(); zone.classList.add("over"); });
            zone.addEventListener("dragleave", () => zone.classList.remove("over"));
            zone.addEventListener("drop", (event) => {
              event.preventDefault();
              zone.classList.remove("over");
              sendAll(zone, Array.from(event.dataTransfer.files));
            });
            zone.querySelector("input[type=file]").addEventListener("change", (event) => {
              sendAll(zone, Array.from(event.target.files));
              event.target.value = "";
            });
          }
          // A file dropped beside the folders must not replace this page with the PDF.
          window.addEventListener("dragover", (event) => event.preventDefault());
          window.addEventListener("drop", (event) => event.preventDefault());
        })();
        """
}

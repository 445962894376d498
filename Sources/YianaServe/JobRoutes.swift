import Foundation
import HTTPTypes
import Hummingbird
import YianaExtract
import YianaLibrary
import YianaOCR
import YianaPostgres
import YianaSearch

/// The health page's buttons: recognise the scans, find the people, index the library
/// (`/jobs/start`), one job at a time, its progress on `/jobs` (the page refreshes itself
/// while it runs; `/api/jobs` for scripts), Cancel between two documents (`/jobs/cancel`).
struct JobRoutes {
    let changes: Changes
    let jobs: Jobs

    struct StartForm: Decodable, Sendable, CSRFCarrying {
        let kind: String
        let csrf: String
    }

    struct CancelForm: Decodable, Sendable, CSRFCarrying {
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let changes = self.changes, jobs = self.jobs
        router.get("/jobs") { _, _ -> Response in
            HTML.page(title: "Jobs", library: changes.library, body: HTML.jobs(jobs.current, token: changes.readOnly ? nil : changes.csrf.value),
                      refresh: jobs.current?.state == "running" ? 2 : nil)
        }
        router.get("/api/jobs") { _, _ -> Response in
            try JSONBody.response(jobs.current.map { [$0] } ?? [])
        }
        router.post("/jobs/start") { request, _ -> Response in
            let form = try await changes.csrf.form(StartForm.self, from: request, readOnly: changes.readOnly, needs: "kind and csrf")
            guard let kind = Jobs.Kind(rawValue: form.kind) else { throw HTTPError(.badRequest, message: "kind: ocr, extract or index.") }
            guard jobs.start(kind, { jobs in await Self.run(kind, jobs: jobs, changes: changes) }) else {
                throw HTTPError(.conflict, message: "Another job runs on this library: wait for it, or cancel it on the Jobs page.")
            }
            return Response(status: .seeOther, headers: [.location: HTML.base + "/jobs"])
        }
        router.post("/jobs/cancel") { request, _ -> Response in
            _ = try await changes.csrf.form(CancelForm.self, from: request, readOnly: changes.readOnly, needs: "csrf")
            jobs.cancel()
            return Response(status: .seeOther, headers: [.location: HTML.base + "/jobs"])
        }
    }

    /// The job's work, on the library code of its command; the index brought up to date after.
    static func run(_ kind: Jobs.Kind, jobs: Jobs, changes: Changes) async -> (state: String, message: String) {
        let library = changes.library
        do {
            let items = try LibraryScanner.scan(library).items.filter { $0.kind == .document }
            switch kind {
            case .ocr:
                var written: [String] = [], recognised = 0, own = 0, failed = 0
                let runner = OCRRunner(library: library, options: OCROptions())
                for (done, item) in items.enumerated() where !jobs.isCancelled {
                    jobs.progress(done, of: items.count)
                    let report = try runner.run([item], named: false)
                    written += report.documents.filter { [.recognized, .embedded].contains($0.status) }.map(\.path)
                    (recognised, own, failed) = (recognised + report.count(.recognized), own + report.count(.embedded), failed + report.count(.failed))
                }
                jobs.progress(items.count, of: items.count)
                await IndexAfterWrites.update(written, library: library, index: changes.index)
                return (failed > 0 ? "failed" : "done", "\(recognised) recognised" + (own > 0 ? ", \(own) with their own text" : "")
                    + (failed > 0 ? ", \(failed) failed (`yiana status` says why)" : ""))
            case .extract:
                var written: [String] = []
                for start in stride(from: 0, to: items.count, by: 20) where !jobs.isCancelled {
                    jobs.progress(start, of: items.count)
                    let results = ExtractionRun(library: library).run(Array(items[start..<min(start + 20, items.count)]))
                    written += results.filter { $0.status == .extracted }.map(\.path)
                }
                jobs.progress(items.count, of: items.count)
                if !written.isEmpty, let index = try await changes.index.forWriting() {
                    // Not closed: on a PostgreSQL server it is the server's own connection (as IndexAfterWrites).
                    _ = try await Indexer(library: library, index: index).updateAddresses(of: written)
                }
                return ("done", "the people of \(written.count) document\(written.count == 1 ? "" : "s") written")
            case .index:
                let index = try await changes.index.location.openForWriting(library)
                let report = try await index.closing {
                    try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 2)) { progress in
                        jobs.progress(progress.completed, of: progress.total)
                    }
                }
                return ("done", "\(report.changed.count) document\(report.changed.count == 1 ? "" : "s") indexed")
            }
        } catch {
            return ("failed", "\(error)")
        }
    }
}

extension HTML {
    /// The job that runs (or ran last), with its progress and Cancel.
    static func jobs(_ status: Jobs.Status?, token: String?) -> String {
        guard let status else { return "<h1>Jobs</h1><p>No job has run since the server started. The <a href=\"\(escape(base))/health\">health page</a> starts them.</p>" }
        var html = "<h1>\(escape(status.label))</h1><p role=\"status\">"
        switch status.state {
        case "running":
            html += "Running: \(status.done) of \(status.total) documents.</p><progress max=\"\(max(1, status.total))\" value=\"\(status.done)\">\(status.done) of \(status.total)</progress>"
            if let token {
                html += "<form method=\"post\" action=\"\(escape(base))/jobs/cancel\"><input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\">"
                    + "<button type=\"submit\">Cancel</button></form>"
            }
        default:
            html += "\(escape(status.state.prefix(1).uppercased() + status.state.dropFirst())): \(escape(status.message)).</p>"
        }
        return html + "<p class=\"meta\">The same from a terminal: <code>\(escape(status.command))</code>. "
            + "<a href=\"\(escape(base))/health\">Health</a> · <a href=\"\(escape(base))/\">The library</a></p>"
    }

    /// The button that starts `kind` from the health page.
    static func jobButton(_ kind: Jobs.Kind, label: String, token: String) -> String {
        "<form class=\"inline\" method=\"post\" action=\"\(escape(base))/jobs/start\"><input type=\"hidden\" name=\"kind\" value=\"\(kind.rawValue)\">"
            + "<input type=\"hidden\" name=\"csrf\" value=\"\(escape(token))\"><button type=\"submit\">\(escape(label))</button></form>"
    }
}

import Foundation
import HTTPTypes
import Hummingbird
import YianaExtract
import YianaLibrary
import YianaOCR
import YianaPostgres
import YianaSearch
import YianaSync

/// The buttons of the health page and of each document's page: recognise the scans, find the
/// people, index the library, download, repair, put leftover temporary files away
/// (`/jobs/start`), one job at a time, its progress on `/jobs` (pushed on `/events`; the page
/// refreshes itself without script; `/api/jobs` for scripts), Cancel between two documents
/// (`/jobs/cancel`).
struct JobRoutes {
    let changes: Changes
    let jobs: Jobs

    struct StartForm: Decodable, Sendable, CSRFCarrying {
        let kind: String
        let csrf: String
        let path: String?
        let fromVersion: String?

        enum CodingKeys: String, CodingKey {
            case kind, csrf, path
            case fromVersion = "from_version"
        }
    }

    struct CancelForm: Decodable, Sendable, CSRFCarrying {
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let changes = self.changes, jobs = self.jobs
        router.get("/jobs") { _, _ -> Response in
            HTML.page(title: "Jobs", library: changes.library, body: HTML.jobs(jobs.current, token: changes.readOnly ? nil : changes.csrf.value),
                      refresh: jobs.current?.state == "running" ? 5 : nil)
        }
        router.get("/api/jobs") { _, _ -> Response in
            try JSONBody.response(jobs.current.map { [$0] } ?? [])
        }
        router.post("/jobs/start") { request, _ -> Response in
            let form = try await changes.csrf.form(StartForm.self, from: request, readOnly: changes.readOnly, needs: "kind and csrf")
            let job = try Self.job(form, library: changes.library)
            guard jobs.start(job, { jobs in await Self.run(job, jobs: jobs, changes: changes) }) else {
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

    /// The job a form asks for, its document checked as every document path is.
    static func job(_ form: StartForm, library: Library) throws -> Jobs.Job {
        let kinds = Jobs.Kind.allCases.map(\.rawValue).joined(separator: ", ")
        guard let kind = Jobs.Kind(rawValue: form.kind) else { throw HTTPError(.badRequest, message: "kind: one of \(kinds).") }
        var job = Jobs.Job(kind: kind, fromVersion: form.fromVersion != nil)
        if let path = form.path {
            switch kind {
            case .ocr, .extract, .repair: job.path = try DocumentLocator.document(path, in: library).path
            case .download: job.path = try DocumentLocator.evicted(path, in: library).path
            case .retryOCR, .index, .removeTemps: throw HTTPError(.badRequest, message: "path: \(kind.rawValue) runs on the whole library.")
            }
        }
        return job
    }

    /// The job's work, on the library code of its command; the index brought up to date after.
    static func run(_ job: Jobs.Job, jobs: Jobs, changes: Changes) async -> Jobs.Outcome {
        let library = changes.library
        do {
            let one = job.path.map { [library.root.appendingPathComponent($0)] }
            switch job.kind {
            case .ocr, .retryOCR:
                var options = OCROptions()
                options.ignoreBackoff = job.kind == .retryOCR || job.path != nil
                let urls = try one ?? (job.kind == .retryOCR ? OCRFailures(library: library).all().keys.sorted().map { library.root.appendingPathComponent($0) }
                    : LibraryScanner.scan(library).items.filter { $0.kind == .document }.map(\.url))
                return await recognise(urls, options: options, jobs: jobs, changes: changes)
            case .extract:
                let items = try one.map { $0.map { LibraryItem(kind: .document, url: $0, documentURL: $0) } }
                    ?? LibraryScanner.scan(library).items.filter { $0.kind == .document }
                var written: [String] = [], details: [String] = []
                for start in stride(from: 0, to: items.count, by: 20) where !jobs.isCancelled {
                    jobs.progress(start, of: items.count)
                    let results = ExtractionRun(library: library).run(Array(items[start..<min(start + 20, items.count)]))
                    written += results.filter { $0.status == .extracted }.map(\.path)
                    details += results.filter { $0.status == .failed }.map { "\($0.path): \($0.error ?? "failed")" }
                }
                jobs.progress(items.count, of: items.count)
                if !written.isEmpty, let index = try await changes.index.forWriting() {
                    // Not closed: on a PostgreSQL server it is the server's own connection (as IndexAfterWrites).
                    _ = try await Indexer(library: library, index: index).updateAddresses(of: written)
                }
                return .init(state: details.isEmpty ? "done" : "failed", message: "the people of \(count(written.count, "document")) written", details: details)
            case .index:
                let index = try await changes.index.location.openForWriting(library)
                let report = try await index.closing {
                    try await Indexer(library: library, index: index).run(options: IndexOptions(jobs: 2)) { progress in
                        jobs.progress(progress.completed, of: progress.total)
                    }
                }
                return .init(state: "done", message: "\(count(report.changed.count, "document")) indexed")
            case .download:
                let downloader = Downloader(library: library)
                let urls = try one ?? downloader.targets(named: nil)
                var downloaded: [String] = [], details: [String] = []
                for (done, url) in urls.enumerated() where !jobs.isCancelled {
                    jobs.progress(done, of: urls.count)
                    let report = downloader.download([url])
                    downloaded += report.downloaded.map(\.path)
                    details += report.failed.map { "\($0.document): not downloaded: \($0.error)" }
                }
                jobs.progress(urls.count, of: urls.count)
                await IndexAfterWrites.update(downloaded, library: library, index: changes.index)
                return .init(state: details.isEmpty ? "done" : "failed", message: "\(count(downloaded.count, "document")) downloaded", details: details)
            case .repair, .removeTemps:
                let plan = try await RepairPlan.targets(job.kind == .removeTemps ? .temps : job.path.map { .document($0) } ?? .damaged, changes: changes)
                var options = RepairOptions()
                options.fromVersion = job.fromVersion
                options.removeTemps = job.kind == .removeTemps
                jobs.progress(0, of: plan.count)
                let report = await RepairPlan.run(plan, options: options, library: library)
                jobs.progress(plan.count, of: plan.count)
                await IndexAfterWrites.update(report.repaired.filter { $0.action != .removeTemp }.map(\.path), library: library, index: changes.index)
                return RepairPlan.outcome(report)
            }
        } catch {
            return .init(state: "failed", message: "\(error)")
        }
    }

    /// OCR of `urls` one at a time (Cancel between two), the index updated after.
    private static func recognise(_ urls: [URL], options: OCROptions, jobs: Jobs, changes: Changes) async -> Jobs.Outcome {
        var written: [String] = [], details: [String] = [], recognised = 0, own = 0, failed = 0
        let runner = OCRRunner(library: changes.library, options: options)
        for (done, url) in urls.enumerated() where !jobs.isCancelled {
            jobs.progress(done, of: urls.count)
            do {
                let report = try runner.run([LibraryItem(kind: .document, url: url, documentURL: url)], named: false)
                written += report.documents.filter { [.recognized, .embedded].contains($0.status) }.map(\.path)
                (recognised, own, failed) = (recognised + report.count(.recognized), own + report.count(.embedded), failed + report.count(.failed))
                details += report.documents.filter { $0.status == .failed }.map { "\($0.path): \($0.error ?? "failed")" }
            } catch {
                failed += 1
                details.append("\(changes.library.relativePath(of: url) ?? url.path): \(error)")
            }
        }
        jobs.progress(urls.count, of: urls.count)
        await IndexAfterWrites.update(written, library: changes.library, index: changes.index)
        return .init(state: failed > 0 ? "failed" : "done",
                     message: "\(recognised) recognised" + (own > 0 ? ", \(own) with their own text" : "") + (failed > 0 ? ", \(failed) failed" : ""),
                     details: details)
    }

    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }
}

extension HTML {
    /// The job that runs (or ran last), with its progress (moved by `live.js` as it runs), Cancel,
    /// and what it did to each document once it ended.
    static func jobs(_ status: Jobs.Status?, token: String?) -> String {
        guard let status else { return "<h1>Jobs</h1><p>No job has run since the server started. The <a href=\"\(escape(base))/health\">health page</a> starts them.</p>" }
        var html = "<div id=\"job\" data-serial=\"\(status.serial)\" data-state=\"\(escape(status.state))\"><h1>\(escape(status.label))</h1><p role=\"status\">"
        switch status.state {
        case "running":
            html += "Running: \(status.done) of \(status.total) documents.</p><progress max=\"\(max(1, status.total))\" value=\"\(status.done)\">\(status.done) of \(status.total)</progress>"
            if let token {
                html += "<form method=\"post\" action=\"\(escape(base))/jobs/cancel\">" + hidden("csrf", token) + "<button type=\"submit\">Cancel</button></form>"
            }
        default:
            html += "\(escape(status.state.prefix(1).uppercased() + status.state.dropFirst())): \(escape(status.message)).</p>"
            if !status.details.isEmpty {
                html += "<ul class=\"plan\">" + status.details.map { "<li>\(escape($0))</li>" }.joined() + "</ul>"
            }
        }
        let document = status.path.map { " · <a href=\"\(escape(base + "/doc?path=" + queryValue($0)))\">The document</a>" } ?? ""
        return html + "<p class=\"meta\">The same from a terminal: <code>\(escape(status.command))</code>. "
            + "<a href=\"\(escape(base))/health\">Health</a>\(document) · <a href=\"\(escape(base))/\">The library</a></p></div>"
    }

    /// A button that starts a job (on one document when `path` is given).
    static func jobButton(_ kind: Jobs.Kind, label: String, token: String, path: String? = nil) -> String {
        "<form class=\"inline\" method=\"post\" action=\"\(escape(base))/jobs/start\">" + hidden("kind", kind.rawValue) + (path.map { hidden("path", $0) } ?? "")
            + hidden("csrf", token) + "<button type=\"submit\">\(escape(label))</button></form>"
    }
}

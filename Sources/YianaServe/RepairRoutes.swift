import Foundation
import HTTPTypes
import Hummingbird
import YianaLibrary
import YianaSystem
import YianaWatch

/// What a repair from the pages works on, and what it said.
enum RepairPlan {
    enum Scope: Sendable {
        /// The documents the health page counts as damaged.
        case damaged
        /// The leftover temporary files of interrupted writes.
        case temps
        /// One document (relative to the library).
        case document(String)
    }

    /// The files of `scope`: never empty by accident, for an empty list means the whole
    /// library to ``Repairer``.
    static func targets(_ scope: Scope, changes: Changes) async throws -> [URL] {
        let library = changes.library
        switch scope {
        case .damaged:
            let health = try await LibraryHealth.gather(library, index: try? await changes.index.open())
            return (health.states.first { $0.state == "damaged" }?.paths ?? []).map { library.root.appendingPathComponent($0) }
        case .temps:
            return try LibraryScanner.scan(library).leftoverTemps
        case .document(let path):
            return [library.root.appendingPathComponent(path)]
        }
    }

    /// `repair` (or its dry run) on `targets`; nothing when there are none.
    static func run(_ targets: [URL], options: RepairOptions, library: Library) async -> RepairReport {
        guard !targets.isEmpty else { return RepairReport(dryRun: options.dryRun) }
        return await Repairer(library: library).repair(targets, options: options)
    }

    /// A repair job's outcome, one line per file.
    static func outcome(_ report: RepairReport) -> Jobs.Outcome {
        let removed = report.repaired.filter { $0.action == .removeTemp }.count
        var details = report.repaired.map { action in
            action.action == .removeTemp ? "\(action.path): removed (kept in the version store\(action.keptAs.map { " as \($0)" } ?? ""))"
                : "\(action.path): repaired (\(action.action.rawValue)): \(action.detail)"
        }
        details += report.notRepaired.map { "\($0.path): not repaired: \($0.detail)" }
        details += report.offered.map { "\($0.path): \($0.detail)" }
        details += report.waiting.map { "\($0.path): left for later: \($0.detail)" }
        var message = "\(JobRoutes.count(report.repaired.count - removed, "document")) repaired"
        if removed > 0 { message += ", \(JobRoutes.count(removed, "temporary file")) put away" }
        if !report.notRepaired.isEmpty { message += ", \(report.notRepaired.count) not repaired" }
        if !report.waiting.isEmpty { message += ", \(report.waiting.count) left for later (still arriving)" }
        return .init(state: report.notRepaired.isEmpty ? "done" : "failed", message: message, details: details)
    }
}

/// The repair page: the dry run's plan first (`GET /repair`, for the damaged documents and
/// the leftover temporary files, or `?path=` for one document), then the buttons that do it
/// as a job; a temporary file holding a complete document put in place from it
/// (`POST /repair/take-temp`).
struct RepairRoutes {
    let changes: Changes

    struct TakeForm: Decodable, Sendable, CSRFCarrying {
        let name: String
        let csrf: String
    }

    func add(to router: some RouterMethods<ServeContext>) {
        let changes = self.changes
        router.get("/repair") { request, _ -> Response in
            let path = try request.formParameters.get("path").map { try DocumentLocator.document($0, in: changes.library).path }
            var options = RepairOptions()
            options.dryRun = true
            let documents = try await RepairPlan.targets(path.map { .document($0) } ?? .damaged, changes: changes)
            let temps = path == nil ? try await RepairPlan.targets(.temps, changes: changes) : []
            let plan = await RepairPlan.run(documents, options: options, library: changes.library)
            let tempPlan = await RepairPlan.run(temps, options: options, library: changes.library)
            return HTML.page(title: "Repair", library: changes.library,
                             body: HTML.repairPlan(plan, temps: tempPlan, path: path, token: changes.readOnly ? nil : changes.csrf.value))
        }
        router.post("/repair/take-temp") { request, _ -> Response in
            let form = try await changes.csrf.form(TakeForm.self, from: request, readOnly: changes.readOnly, needs: "name and csrf")
            let library = changes.library
            // Only a leftover temporary file the library lists: nothing else is ever named here.
            guard let temp = try LibraryScanner.scan(library).leftoverTemps.first(where: { library.relativePath(of: $0) == form.name }) else {
                throw HTTPError(.notFound, message: "No leftover temporary file \(String(form.name.prefix(200)).debugDescription) in this library.")
            }
            let action: RepairAction
            do {
                action = try Repairer(library: library).takeTemp(temp)
            } catch {
                throw HTTPError(.conflict, message: "\(form.name) was not put in place: \(error)")
            }
            await IndexAfterWrites.update(action.document.map { [$0] } ?? [], library: library, index: changes.index)
            let link = action.document.map { " <a href=\"\(HTML.escape(HTML.base + "/doc?path=" + HTML.queryValue($0)))\">Open it</a>" } ?? ""
            return HTML.page(title: "Put in place", library: library,
                             body: "<h1>Put in place</h1><p role=\"status\">\(HTML.escape(form.name)): \(HTML.escape(action.detail))"
                                 + (action.keptAs.map { " (what it replaced is kept as version \(HTML.escape($0)))" } ?? "") + ".\(link)</p>")
        }
    }
}

extension HTML {
    /// The dry run's plan, with the buttons that carry it out (none on a read-only server).
    static func repairPlan(_ plan: RepairReport, temps: RepairReport, path: String?, token: String?) -> String {
        let b = escape(base)
        var html = "<h1>Repair\(path.map { " \u{201C}\(escape($0))\u{201D}" } ?? "")</h1>"
            + "<p>What would be done: nothing is changed until a button is pressed, and each document is kept in the version store before it is written.</p>"
        let documents = plan.repaired.count + plan.notRepaired.count + plan.waiting.count
        html += path == nil ? "<h2>Damaged documents</h2>" : ""
        if documents == 0 {
            html += "<p>\(path == nil ? "No document is known to be damaged." : "Nothing to repair: it verifies.")</p>"
        } else {
            html += "<ul class=\"plan\">"
            for action in plan.repaired {
                html += "<li><strong>\(escape(action.path))</strong>: would be repaired (\(escape(action.action.rawValue))): \(escape(action.detail))</li>"
            }
            for action in plan.notRepaired {
                html += "<li class=\"error\"><strong>\(escape(action.path))</strong>: cannot be repaired from what it holds: \(escape(action.detail))</li>"
            }
            for action in plan.waiting { html += "<li><strong>\(escape(action.path))</strong>: left for later: \(escape(action.detail))</li>" }
            html += "</ul>"
            if let token, !plan.repaired.isEmpty || !plan.notRepaired.isEmpty {
                html += "<form method=\"post\" action=\"\(b)/jobs/start\">" + hidden("kind", "repair") + (path.map { hidden("path", $0) } ?? "") + hidden("csrf", token)
                    + (plan.notRepaired.isEmpty ? "" : "<p><label><input type=\"checkbox\" name=\"from_version\" value=\"1\"> "
                        + "Where nothing can be recovered, put back the newest kept version that verifies</label></p>")
                    + "<button type=\"submit\">Repair \(path == nil ? JobRoutes.count(plan.repaired.count + plan.notRepaired.count, "document") : "it")</button></form>"
            }
            html += "<p class=\"meta\">The same from a terminal: <code>yiana repair --dry-run\(path.map { " " + escape(Shell.quoted($0)) } ?? "")</code>, then without <code>--dry-run</code>.</p>"
        }
        guard path == nil else { return html }
        html += "<h2 id=\"temps\">Temporary files left by interrupted writes</h2>"
        let listed = temps.offered + temps.notRepaired
        guard !listed.isEmpty else { return html + "<p>None.</p>" }
        html += "<ul class=\"plan\">"
        for action in temps.offered {
            html += "<li><strong>\(escape(action.path))</strong>: \(escape(action.detail.components(separatedBy: "; to put it in place").first ?? action.detail))"
            if let token {
                html += " <form class=\"inline\" method=\"post\" action=\"\(b)/repair/take-temp\">" + hidden("name", action.path) + hidden("csrf", token)
                    + "<button type=\"submit\">Put it in place</button></form>"
            }
            html += "</li>"
        }
        for action in temps.notRepaired { html += "<li><strong>\(escape(action.path))</strong>: \(escape(action.detail))</li>" }
        html += "</ul>"
        if let token {
            html += "<form method=\"post\" action=\"\(b)/jobs/start\">" + hidden("kind", "remove-temps") + hidden("csrf", token)
                + "<button type=\"submit\">Put them all away</button> <span class=\"meta\">each kept in the version store first, then taken out of the library</span></form>"
        }
        return html + "<p class=\"meta\">The same from a terminal: <code>yiana repair --take-temp NAME</code>, or <code>yiana repair --remove-temps</code>.</p>"
    }

    /// A hidden form field.
    static func hidden(_ name: String, _ value: String) -> String {
        "<input type=\"hidden\" name=\"\(escape(name))\" value=\"\(escape(value))\">"
    }
}

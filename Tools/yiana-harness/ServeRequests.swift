import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// The server's write paths under the harness: `yiana serve` is the process the shim faults
/// and the kills hit, and one request is sent to it as its page sends it (the form token from
/// the import page, this server's origin). A run's "arguments" are
/// `["@serve", METHOD, TARGET, BODY-FILE, LIBRARY]`: a form body's `{csrf}` is replaced by the
/// token; any other body is sent as it is, with the token in `X-CSRF-Token`.
enum ServeRequests {
    static let marker = "@serve"

    static func arguments(library: String, method: String, target: String, body: String) -> [String] {
        [marker, method, target, body, library]
    }

    static let scenarios: [Scenario] = [
        Scenario(name: "serve import", libraries: ["lib"], what: "yiana serve: a 1.5 MB PDF dropped on the import page",
                 build: { context in
                     try context.importPDFs(["old1"], into: "lib")
                     let pdf = try context.pdf("dropped", in: "in", big: true)
                     return arguments(library: context.path("lib"), method: "POST", target: "/import?folder=Inbox&name=dropped.pdf", body: pdf.path)
                 },
                 finished: { library in
                     let url = library.appendingPathComponent("Inbox/dropped.yianazip")
                     return (try? DocumentReader(path: url.path).metadata()) == nil ? "Inbox/dropped.yianazip is not there" : nil
                 }),
        Scenario(name: "serve restore", libraries: ["lib"], what: "yiana serve: the restore button of a 1.5 MB version",
                 build: { context in
                     try context.importPDFs(["doc"], into: "lib", big: ["doc"])
                     let library = try Library(root: context.url("lib"))
                     let first = try VersionStore(library: library).keep(context.url("lib/doc.yianazip"), reason: "the first version")
                     try context.edit("lib/doc.yianazip", pdf: PDFDocument.onePagePDF(lines: ["the second version", Scenarios.word("second")])) { $0.title = "second" }
                     let form = context.url("in/restore.form")
                     try context.folder("in")
                     try Data("path=doc.yianazip&version=\(first.shortID)&csrf={csrf}".utf8).write(to: form)
                     return arguments(library: context.path("lib"), method: "POST", target: "/versions/restore", body: form.path)
                 },
                 finished: { library in
                     let title = try? DocumentReader(path: library.appendingPathComponent("doc.yianazip").path).metadata().title
                     return title == "doc" ? nil : "doc.yianazip's title is \(title ?? "unreadable"), not the first version's"
                 }),
        Scenario(name: "serve edit", libraries: ["lib"], what: "yiana serve: a 1.5 MB document renamed, retagged and moved from its page",
                 build: { context in
                     try context.importPDFs(["doc"], into: "lib", big: ["doc"])
                     let form = context.url("in/edit.form")
                     try context.folder("in")
                     try Data("path=doc.yianazip&was=doc&title=moved%20doc&tags=a%2C%20b&folder=Sub%2FFolder&csrf={csrf}".utf8).write(to: form)
                     return arguments(library: context.path("lib"), method: "POST", target: "/doc/edit", body: form.path)
                 },
                 finished: { library in
                     let metadata = try? DocumentReader(path: library.appendingPathComponent("Sub/Folder/Moved_Doc.yianazip").path).metadata()
                     return metadata?.title == "moved doc" && metadata?.tags == ["a", "b"] ? nil : "Sub/Folder/Moved_Doc.yianazip is not the edited document"
                 },
                 rerunMayFindItDone: true),  // moved by the run, it is not where the rerun's request looks: a 404
        Scenario(name: "serve delete", libraries: ["lib"], what: "yiana serve: a 1.5 MB document deleted from its page (kept first)",
                 build: { context in
                     try context.importPDFs(["doc", "other"], into: "lib", big: ["doc"])
                     let form = context.url("in/delete.form")
                     try context.folder("in")
                     try Data("path=doc.yianazip&csrf={csrf}".utf8).write(to: form)
                     return arguments(library: context.path("lib"), method: "POST", target: "/doc/delete", body: form.path)
                 },
                 finished: { library in
                     FileManager.default.fileExists(atPath: library.appendingPathComponent("doc.yianazip").path) ? "doc.yianazip is still there" : nil
                 },
                 rerunMayFindItDone: true),  // deleted by the run: the rerun's request is a 404
        Scenario(name: "serve resolve", libraries: ["lib"], what: "yiana serve: the merge button of a conflict (1.5 MB)",
                 build: { context in
                     try context.importPDFs(["c1"], into: "lib", big: ["c1"])
                     let copy = "lib/c1.sync-conflict-20260301-142233-ABCDEF7.yianazip"
                     try FileManager.default.copyItem(at: context.url("lib/c1.yianazip"), to: context.url(copy))
                     try context.edit(copy) { $0.tags = ["phone"] }
                     try context.edit("lib/c1.yianazip") { $0.title = "c1 here" }
                     let form = context.url("in/resolve.form")
                     try context.folder("in")
                     try Data("path=c1.yianazip&strategy=merge&csrf={csrf}".utf8).write(to: form)
                     return arguments(library: context.path("lib"), method: "POST", target: "/conflicts/resolve", body: form.path)
                 },
                 finished: { library in
                     let left = ((try? FileManager.default.contentsOfDirectory(atPath: library.path)) ?? []).filter { $0.contains("sync-conflict") }
                     let metadata = try? DocumentReader(path: library.appendingPathComponent("c1.yianazip").path).metadata()
                     if !left.isEmpty { return "conflict copies left: \(left)" }
                     return metadata?.title == "c1 here" && metadata?.tags == ["phone"] ? nil : "c1.yianazip is not the merge of both"
                 }),
    ]
}

extension Runner {
    /// One request to a `yiana serve` started for it (with the shim when asked), killed with
    /// SIGKILL `killAfter` seconds after the request was sent if it is still running; else
    /// stopped with SIGTERM once answered. Status: 0 for a 2xx or 3xx answer, 1 for a 4xx,
    /// 2 for a 5xx, 3 for none; `seconds` is the request's time.
    func serve(_ arguments: [String], injection: Injection?, killAfter: Double?) throws -> Outcome {
        let (method, target, bodyFile, library) = (arguments[1], arguments[2], arguments[3], arguments[4])
        let process = Process()
        process.executableURL = yiana
        process.arguments = ["serve", "--library", library, "--listen", "127.0.0.1:0"]
        process.environment = environment(injection)
        let output = try Output(process, scratch: scratch)
        defer { output.remove() }
        try process.run()
        func ended(_ status: Int32, seconds: Double) -> Outcome {
            process.waitUntilExit()
            let signalled = process.terminationReason == .uncaughtSignal
            return Outcome(status: signalled ? -1 : status, signal: signalled ? process.terminationStatus : nil, seconds: seconds,
                           stderr: output.stderr)
        }
        var base: URL?
        let deadline = Date().addingTimeInterval(30)
        while base == nil, process.isRunning, Date() < deadline {
            let text = output.stdout
            if let range = text.range(of: #"http://127\.0\.0\.1:\d+/"#, options: .regularExpression) { base = URL(string: String(text[range])) }
            else { Sys.sleep(seconds: 0.01) }
        }
        guard let base else {
            if process.isRunning { Sys.signal(process.processIdentifier, Sys.killSignal) }
            return ended(3, seconds: 0)
        }
        let page = Self.exchange(URLRequest(url: URL(string: "/import", relativeTo: base)!), timeout: 60)
        let token = page.body.flatMap { text in
            text.range(of: #"data-csrf="[0-9a-f]+""#, options: .regularExpression).map { String(text[$0].dropFirst(11).dropLast()) }
        }
        var request = URLRequest(url: URL(string: target, relativeTo: base)!)
        request.httpMethod = method
        request.setValue("http://\(base.host!):\(base.port!)", forHTTPHeaderField: "Origin")
        let body = try Data(contentsOf: URL(fileURLWithPath: bodyFile))
        if bodyFile.hasSuffix(".form") {
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "{csrf}", with: token ?? "").utf8)
        } else {
            request.setValue(token ?? "", forHTTPHeaderField: "X-CSRF-Token")
            request.httpBody = body
        }
        let start = Date(), sent = request
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            answer.value = Self.exchange(sent, timeout: 120)
            done.signal()
        }
        if let killAfter, done.wait(timeout: .now() + killAfter) == .timedOut {
            Sys.signal(process.processIdentifier, Sys.killSignal)
            done.wait()
        } else if killAfter == nil {
            done.wait()
        }
        let seconds = Date().timeIntervalSince(start)
        if process.isRunning { process.terminate() }
        let status: Int32 = answer.value.status.map { $0 < 400 ? 0 : $0 < 500 ? 1 : 2 } ?? 3
        return ended(status, seconds: seconds)
    }

    /// One request and its answer (status and body), or nils when none came.
    static func exchange(_ request: URLRequest, timeout: Double) -> (status: Int?, body: String?) {
        var request = request
        request.timeoutInterval = timeout
        let result = Answer()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, response, _ in
            result.value = ((response as? HTTPURLResponse)?.statusCode, data.map { String(decoding: $0, as: UTF8.self) })
            done.signal()
        }.resume()
        done.wait()
        return result.value
    }

    /// An answer handed from the thread that waits for it; read only after its semaphore.
    final class Answer: @unchecked Sendable {
        var value: (status: Int?, body: String?) = (nil, nil)
    }
}

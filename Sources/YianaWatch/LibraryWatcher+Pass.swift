import Foundation
import YianaLibrary
import YianaOCR
import YianaSearch
import YianaSync
import YianaSystem

/// The index run of a pass failed: the search index cannot be used (told to the person).
struct IndexUnusable: Error, CustomStringConvertible {
    let error: Error
    var description: String { "the search index cannot be used: \(error)" }
}

/// A problem a pass found: reported once, cleared once it is gone.
struct Problem {
    let code: String
    let path: String
    let detail: String
    var key: String { "\(code) \(path)" }
}

extension LibraryWatcher {
    /// One pass over the library, `changed` the paths inotify named since the last one (nil:
    /// the library walked whole). Returns when the next one is due without any event
    /// (documents still arriving, OCR backing off, a pass that failed), or nil.
    func pass(changed: Set<String>?) async -> Date? {
        health.passes += 1
        health.lastPass = Date()
        var problems: [Problem] = []
        var next: Date?
        do {
            var changed = changed
            if options.inject {
                let (found, appended) = try injectLetters()
                problems += found
                if appended { changed = nil }  // documents and letters moved: walked whole
            }
            let recheck = unsettled
            if let named = changed { changed = named.union(recheck.map { library.root.appendingPathComponent($0).path }) }
            var scan = try scanCache.scan(changed: changed, recheck: recheck)
            walkWhole = false
            var indexOptions = IndexOptions(jobs: options.jobs)
            indexOptions.settle = options.settle
            // Every document's status only where the first pass's OCR or extraction looks at every document.
            indexOptions.listEveryDocument = health.passes == 1 && (options.ocr != nil || options.extract)
            let report: IndexReport
            do { report = try await Indexer(library: library, index: index).run(options: indexOptions, scan: scan) } catch {
                throw IndexUnusable(error: error)
            }
            unsettled = Set((report.keeper?.unsettled ?? []) + report.unsettled)
            next = indexed(report, problems: &problems)
            try await logIndexed(report, everyListed: indexOptions.listEveryDocument)
            let (held, resolved) = try await conflicts(scan, &problems)
            // What resolving changed, seen now (its events come again with the next pass's).
            if !resolved.isEmpty { scan = try scanCache.scan(changed: Set(resolved.map { library.root.appendingPathComponent($0).path })) }
            problems += scan.leftoverTemps.map { url in
                Problem(code: "leftover-temp-file", path: library.relativePath(of: url) ?? url.path,
                        detail: "a temporary file left by an interrupted write (`yiana repair` offers it or removes it)")
            }
            problems += companionProblems(scan)
            var recognised: [String] = []
            if let ocr = options.ocr {
                let (retry, done) = try await recognise(report, everyListed: indexOptions.listEveryDocument, options: ocr, holding: held, problems: &problems)
                next = [next, retry].compactMap { $0 }.min()
                recognised = done
            }
            if options.extract { try await extractPeople(report, everyListed: indexOptions.listEveryDocument, recognised: recognised) }
        } catch {
            record(.error, detail: "\(error)")
            walkWhole = true
            // What this pass did not see is not known to be gone: the notifier keeps what it
            // last saw, and hears of an index that cannot be used.
            tellNotifier(failed: error as? IndexUnusable)
            next = Date().addingTimeInterval(max(options.settle, 5))
            return next
        }
        settle(problems)
        tellNotifier(problems)
        return next
    }

    /// The index's statuses of `paths` (those it holds): from the report where it lists them,
    /// else read (a whole pass's report lists only the problems, unless `everyListed`).
    /// Logs each document the index run wrote, with its status: asked of the index a few
    /// thousand at a time (a first pass writes every document of the library).
    private func logIndexed(_ report: IndexReport, everyListed: Bool) async throws {
        for start in stride(from: 0, to: report.changed.count, by: 2000) {
            let paths = report.changed[start..<min(start + 2000, report.changed.count)]
            let documents = try await statuses(of: Set(paths), in: report, everyListed: everyListed)
            for path in paths {
                let document = documents[path]
                let how = report.reusedPaths.contains(path) ? "reused the pages of the same PDF (moved, renamed or only its metadata changed)" : "extracted"
                record(.indexed, path: path, code: document?.status.rawValue, detail: document.map { "\($0.pages) pages, \($0.textPages) with text; \(how)" })
            }
        }
    }

    func statuses(of paths: Set<String>, in report: IndexReport, everyListed: Bool) async throws -> [String: IndexReport.Document] {
        var statuses: [String: IndexReport.Document] = [:]
        for document in report.documents where paths.contains(document.path) { statuses[document.path] = document }
        let unlisted: Set<String> = everyListed ? [] : paths.filter { statuses[$0] == nil && report.covered?.contains($0) != true }
        for document in unlisted.isEmpty ? [] : try await index.statuses(paths: unlisted) { statuses[document.path] = document }
        return statuses
    }

    /// Logs what the index run removed and what the keeper found, and collects the
    /// documents' problems.
    private func indexed(_ report: IndexReport, problems: inout [Problem]) -> Date? {
        for path in report.removedPaths { record(.removed, path: path) }
        if let covered = report.covered {
            for path in covered { notable[path] = nil }
        } else {
            notable.removeAll()
        }
        for path in report.removedPaths { notable[path] = nil }
        for document in report.documents where document.status != .ok { notable[document.path] = document }
        if let keeper = report.keeper { kept(keeper, problems: &problems) }
        var next: Date?
        for document in Array(notable.values) + report.notIndexed {  // in any order: settle(_:) sorts what it tells
            switch document.status {
            case .stillArriving:
                next = Date().addingTimeInterval(max(options.settle, 0.5))
            case .damaged, .encrypted, .failed, .notDownloaded:
                problems.append(Problem(code: document.status.rawValue, path: document.path, detail: document.reason ?? document.status.rawValue))
            case .noTextLayer where options.ocr == nil:
                problems.append(Problem(code: document.status.rawValue, path: document.path,
                                        detail: "scanned pages without text: `yiana ocr` (or `yiana watch --ocr`) makes them searchable"))
            default:
                break
            }
        }
        return next
    }

    /// What the keeper found: documents gone or overwritten (their states kept), its failures,
    /// and the mass-loss alarm, said as an error the first pass it is raised and a problem
    /// while it stays.
    private func kept(_ keeper: KeeperReport, problems: inout [Problem]) {
        for path in keeper.gone {
            record(.action, path: path, code: "kept-deleted", detail: "gone from the library; its states are kept here: `yiana versions list --deleted`")
        }
        for path in keeper.notDocuments {
            record(.problem, path: path, code: "overwritten", detail: "now holds bytes that are not a document; its last good state is kept here: `yiana versions list --deleted`")
        }
        for path in keeper.damaged {
            record(.problem, path: path, code: "rewritten-in-place", detail: "a program rewrote it in place, changing the state kept by link; the keeper copies from now on")
        }
        for failure in keeper.failures { record(.error, code: "keeper", detail: "not kept: \(failure)") }
        alarm = keeper.alarm
        if let alarm = keeper.alarm {
            if reported["mass-loss ."] == nil { record(.error, code: "mass-loss", detail: alarm.message) }
            problems.append(Problem(code: "mass-loss", path: ".", detail: alarm.message))
        }
    }

    /// Conflict copies and stray copies; with `--resolve identical`, groups whose copies are
    /// all identical to their document are collapsed (the copies kept in the version store).
    /// Returns the documents OCR must leave alone this pass (when identical copies are to
    /// collapse): those beside a copy still identical to them or one that could not be read
    /// (an I/O error, a partial download), and those that could not be read themselves (the
    /// original of a copy not grouped with it for that reason); for recognising them would
    /// turn a copy that collapses by itself into a diverged one that waits for a person.
    /// Also returns the paths resolving changed.
    private func conflicts(_ scan: LibraryScan, _ problems: inout [Problem]) async throws -> (held: Set<String>, resolved: [String]) {
        let report = try await ConflictDetector(library: library).detect(jobs: options.jobs, settle: options.settle, cache: factsCache, scan: scan)
        var held = options.resolveIdentical ? Set(report.unreadable) : []
        var resolved: [String] = []
        for group in report.groups {
            guard let original = group.files.first?.path else { continue }
            let copies = group.files.dropFirst()
            var collapsed = Set<String>()
            if options.resolveIdentical, copies.contains(where: { $0.role == .identicalCopy }) {
                var resolve = ResolveOptions(strategy: .newest)
                resolve.identicalOnly = true
                resolve.documents = [original]
                resolve.settle = options.settle
                let result = try await ConflictResolver(library: library).resolve(resolve)
                for step in result.resolutions.flatMap(\.steps) {
                    record(.action, path: step.path, code: step.action, detail: step.detail + (step.keptAs.map { " (kept as version \($0))" } ?? ""))
                    collapsed.insert(step.path)
                    resolved.append(step.path)
                }
                for failure in result.failed { record(.error, path: failure.path, detail: failure.reason) }
            }
            if options.resolveIdentical, copies.contains(where: { ($0.role == .identicalCopy && !collapsed.contains($0.path)) || $0.role == .damaged }) {
                held.insert(original)
            }
            for copy in copies where [.conflictCopy, .identicalCopy].contains(copy.role) && !collapsed.contains(copy.path) {
                let what = copy.role == .identicalCopy ? "identical to" : "a diverged copy of"
                problems.append(Problem(code: copy.role.rawValue, path: copy.path,
                                        detail: "\(what) \(original) (\(copy.marks.joined(separator: ", "))): `yiana conflicts resolve`"))
            }
        }
        for stray in report.strayCopies {
            problems.append(Problem(code: "stray-copy", path: stray.path, detail: stray.reason ?? "a copy whose document is not here"))
        }
        // The app's companion files: identical copies collapse here; the rest are reported
        // with the other companion problems (``companionProblems(_:)``).
        let identical = report.companions.filter { $0.files.contains { $0.role == .identicalCopy } }
        if options.resolveIdentical, !identical.isEmpty {
            var resolve = ResolveOptions(strategy: .merge)
            resolve.identicalOnly = true
            var result = ResolveReport()
            CompanionResolver(library: library).resolve(identical, options: resolve, arriving: Set(report.arriving), now: Date(), into: &result)
            for step in result.resolutions.flatMap(\.steps) {
                record(.action, path: step.path, code: step.action, detail: step.detail + (step.keptAs.map { " (kept as version \($0))" } ?? ""))
                resolved.append(step.path)
            }
            for failure in result.failed { record(.error, path: failure.path, detail: failure.reason) }
        }
        return (held, resolved)
    }

    /// The letters in `.letters/inject/` appended to their documents (before the index run,
    /// which then sees the new pages); what could not be appended is a problem.
    /// Also returns whether any letter was appended or released (documents and letters changed).
    private func injectLetters() throws -> (problems: [Problem], appended: Bool) {
        var inject = InjectOptions()
        inject.settle = options.settle
        var problems: [Problem] = []
        var appended = false
        for letter in try Injector(library: library).run(inject).letters {
            switch letter.outcome {
            case .appended, .alreadyAppended, .released:
                appended = true
                record(.action, path: letter.path, code: "inject-\(letter.outcome.rawValue)",
                       detail: [letter.document.map { "to \($0)" }, letter.pages.map { "pages \($0)" }, letter.reason].compactMap { $0 }.joined(separator: ", "))
            case .unmatched:
                record(.problem, path: letter.path, code: "inject-unmatched", detail: letter.reason)
            case .ambiguous, .claimLeft:
                problems.append(Problem(code: "inject-\(letter.outcome.rawValue)", path: letter.path, detail: letter.reason ?? ""))
            case .waiting:
                break
            }
        }
        return (problems, appended)
    }

    /// What is wrong with the app's companion files (a conflict copy the app never reads, a
    /// file it cannot decode, its leftover temporary file), each file read again only when
    /// it changed since the last pass.
    private func companionProblems(_ scan: LibraryScan) -> [Problem] {
        let check = CompanionCheck(library: library)
        let arrival = Arrival(scan: scan, window: options.settle)
        var checked: [String: (identity: FileIdentity, problems: [VerifyProblem])] = [:]
        for file in scan.companions {
            let identity = FileIdentity.current(at: library.root.appendingPathComponent(file.path).path)
            if let last = companionChecks[file.path], last.identity == identity {
                checked[file.path] = last
                continue
            }
            let problems = check.check(file, arrival: arrival).problems
            // A file still arriving is looked at again on the next pass.
            if !problems.contains(where: { $0.code == .stillArriving }) { checked[file.path] = (identity, problems) }
        }
        companionChecks = checked
        return checked.sorted { $0.key < $1.key }.flatMap { path, entry in
            entry.problems.filter { !$0.isNotice }.map { Problem(code: $0.code.rawValue, path: path, detail: $0.message) }
        }
    }

    /// Reports the problems seen for the first time, and clears those that are gone.
    private func settle(_ problems: [Problem]) {
        var now: [String: Problem] = [:]
        for problem in problems { now[problem.key] = problem }
        for (key, problem) in now.sorted(by: { $0.key < $1.key }) where reported[key] != problem.detail {
            if reported[key] == nil { record(.problem, path: problem.path, code: problem.code, detail: problem.detail) }
            reported[key] = problem.detail
        }
        for key in reported.keys.sorted() where now[key] == nil {
            let space = key.firstIndex(of: " ")!
            record(.cleared, path: String(key[key.index(after: space)...]), code: String(key[..<space]))
            reported[key] = nil
        }
    }

    /// OCR of the documents this pass indexed (every document on the first pass), and of
    /// those whose back-off has ended. Returns when the next back-off ends, and what it recognised.
    private func recognise(_ report: IndexReport, everyListed: Bool, options ocr: OCROptions, holding held: Set<String>,
                           problems: inout [Problem]) async throws -> (retry: Date?, recognised: [String]) {
        let firstPass = health.passes == 1
        let now = Date()
        var paths = Set(firstPass ? report.documents.map(\.path) : report.changed)
        for (path, when) in ocrRetry where when <= now {
            paths.insert(path)
            ocrRetry[path] = nil
        }
        for path in paths.intersection(held) {
            paths.remove(path)
            ocrRetry[path] = now.addingTimeInterval(max(options.settle, 5))
            problems.append(Problem(code: "ocr-held", path: path,
                                    detail: "not recognised yet: a copy beside it is identical or could not be read, and recognising it now would make that copy differ (tried again on the next pass)"))
        }
        let statuses = try await statuses(of: paths, in: report, everyListed: everyListed).mapValues(\.status)
        let items = paths.sorted().filter { [.ok, .noTextLayer].contains(statuses[$0]) }.map { path in
            let url = library.root.appendingPathComponent(path)
            return LibraryItem(kind: .document, url: url, documentURL: url)
        }
        guard !items.isEmpty else { return (ocrRetry.values.min(), []) }
        let result = try OCRRunner(library: library, options: ocr).run(items, named: false)
        for document in result.documents {
            switch document.status {
            case .recognized, .embedded:
                record(.ocr, path: document.path, code: document.status.rawValue,
                       detail: "\(document.pagesRecognized) pages recognised, \(document.pagesWithText) with their own text")
            case .failed, .backingOff:
                if document.status == .failed { record(.problem, path: document.path, code: "ocr-failed", detail: document.error) }
                ocrRetry[document.path] = document.retryAfter ?? now.addingTimeInterval(OCRFailures.backoff(afterFailures: 1))
            case .alreadyDone where document.resultCopiesRemoved > 0:
                record(.action, path: document.path, code: "settle-ocr-results", detail: "\(document.resultCopiesRemoved) conflict copies of its results files settled")
            default:
                break
            }
        }
        return (ocrRetry.values.min(), result.documents.filter { [.recognized, .embedded].contains($0.status) }.map(\.path))
    }
}

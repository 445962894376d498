import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaPDF
import YianaSystem

/// How `yiana inject` goes.
public struct InjectOptions: Sendable {
    /// Say what would be done; change nothing.
    public var dryRun = false
    /// Seconds a letter must have been left alone before it is taken (``Arrival``).
    public var settle = Arrival.defaultWindow
    /// Give leftover claims (`….pdf.processing` older than ``claimAge``) back as `….pdf`, to
    /// be taken on the next run.
    public var releaseClaims = false
    /// Seconds after which a claim nobody finished counts as left over.
    public var claimAge: Double = 600

    public init() {}
}

/// What `yiana inject` did with each letter in `.letters/inject/`.
public struct InjectReport: Codable, Sendable {
    public enum Outcome: String, Codable, Sendable {
        /// Appended to its document.
        case appended
        /// Already in its document (on this device or another): its copy here was kept in
        /// the version store and removed.
        case alreadyAppended = "already-appended"
        /// Moved to `.letters/unmatched/`, as the app does: no such document, not named as
        /// the app expects, or not a PDF that can be appended.
        case unmatched
        /// Two or more documents have the target's name: left where it is, for a person.
        case ambiguous
        /// Still arriving, or its document is not downloaded: left for a later run.
        case waiting
        /// A claim (`….processing`) left by a run that never finished.
        case claimLeft = "claim-left"
        /// A left-over claim given back (`--release-claims`).
        case released
    }

    public struct Letter: Codable, Sendable {
        /// Where it was found, relative to the library.
        public let path: String
        public let outcome: Outcome
        public var document: String?
        public var pages: String?
        /// The version-store id of what was removed or replaced.
        public var keptAs: String?
        public var reason: String?
    }

    public var letters: [Letter] = []
    public var dryRun = false
    /// True when a letter could not be appended (unmatched, ambiguous, a claim left).
    public var failed: Bool { letters.contains { [.unmatched, .ambiguous, .claimLeft].contains($0.outcome) } }
}

/// Appends the rendered letters the app's render service drops in `.letters/inject/`
/// (`<target>_<UUID>.pdf`) to the document whose file name is `<target>`, as the app's
/// InjectWatcher does, and better: two documents of that name are reported, not the first
/// taken; a letter still arriving waits; a letter already in its document, by its id in
/// the shared history or in the document itself (appended on any device), is never appended
/// again. A letter is claimed first by renaming it `….processing`, as the app does; what
/// cannot be appended goes to `.letters/unmatched/` with the reason.
public struct Injector: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    var injectFolder: URL { library.root.appendingPathComponent(CompanionFile.lettersFolder).appendingPathComponent("inject") }
    var unmatchedFolder: URL { library.root.appendingPathComponent(CompanionFile.lettersFolder).appendingPathComponent("unmatched") }

    /// Processes every letter in `.letters/inject/`.
    /// - Throws: when the library cannot be scanned; a bad letter never throws, it is reported.
    public func run(_ options: InjectOptions = InjectOptions(), now: Date = Date()) throws -> InjectReport {
        let scan = try LibraryScanner.scan(library)
        var report = InjectReport(dryRun: options.dryRun)
        let letters = scan.companions.filter { $0.kind == .injectLetter && !$0.isTemp && !$0.isConflictCopy }.sorted { $0.path < $1.path }
        let arrival = Arrival(scan: scan, now: now, window: options.settle)
        for letter in letters {
            let url = library.root.appendingPathComponent(letter.path)
            if letter.path.hasSuffix(".processing") {
                // This machine's claim whose process died (its lock is free): finished now.
                if claims.isOurs(url), let lock = try? DocumentLock(document: url.path, mode: .exclusive, timeout: 0) {
                    report.letters.append(inject(letter, url: url, claimed: lock, scan: scan, arrival: arrival, options: options, now: now))
                    continue
                }
                report.letters += claim(letter, url: url, options: options, now: now)
                continue
            }
            report.letters.append(inject(letter, url: url, claimed: nil, scan: scan, arrival: arrival, options: options, now: now))
        }
        return report
    }

    /// This machine's claims, recorded (outside the library) before each rename and removed
    /// when the letter is done: a claim recorded here whose lock is free was left by a run
    /// that died, and is finished by the next; any other claim is another device's or the app's.
    var claims: Claims { Claims(folder: LocalState(library: library).folder.appendingPathComponent("inject-claims")) }

    struct Claims {
        let folder: URL
        func marker(_ claim: URL) -> URL { folder.appendingPathComponent(claim.lastPathComponent) }
        func isOurs(_ claim: URL) -> Bool { FileManager.default.fileExists(atPath: marker(claim).path) }
        func record(_ claim: URL) throws {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try TemporaryFile.replace(marker(claim).path, with: Data(claim.path.utf8))
        }
        func forget(_ claim: URL) { Sys.removeIfPresent(marker(claim).path) }
    }

    /// One letter: `url` is the letter as dropped, or (with `claimed`, its lock held) this
    /// machine's claim of it that a run left unfinished.
    private func inject(_ letter: CompanionFile, url: URL, claimed resumed: DocumentLock?, scan: LibraryScan, arrival: Arrival,
                        options: InjectOptions, now: Date) -> InjectReport.Letter {
        func result(_ outcome: InjectReport.Outcome, _ reason: String?, document: String? = nil) -> InjectReport.Letter {
            InjectReport.Letter(path: letter.path, outcome: outcome, document: document, reason: reason)
        }
        defer {
            resumed?.release()
            // A resumed claim that was moved or removed is done with.
            if resumed != nil, !FileManager.default.fileExists(atPath: url.path) { claims.forget(url) }
        }
        let name = resumed == nil ? url.lastPathComponent : url.deletingPathExtension().lastPathComponent
        guard let parsed = InjectName(name) else {
            return unmatched(letter, url: url, reason: "not named `<document>_<UUID>.pdf`, as the render service names letters", options: options,
                             originalName: name)
        }
        let whole = (try? PDFDocument(path: url.path)) != nil
        if resumed == nil, let why = arrival.stillArriving(url, whole: whole) {
            return result(.waiting, "still arriving (\(why)); taken on a later run")
        }
        let candidates = scan.items.filter { ($0.documentName as NSString).deletingPathExtension == parsed.target }
        guard !candidates.isEmpty else {
            return unmatched(letter, url: url, reason: "no document named \(parsed.target).\(Library.documentExtension) in the library", options: options,
                             originalName: name)
        }
        let paths = candidates.map { library.documentPath(of: $0) ?? $0.path }
        guard candidates.count == 1, let target = candidates.first else {
            return result(.ambiguous, "\(candidates.count) documents are named \(parsed.target): \(paths.joined(separator: ", ")); rename one (or move the letter into the document with `yiana append`); left where it is")
        }
        guard target.kind == .document else {
            return result(.waiting, "\(paths[0]) is not downloaded; `yiana download` it, then the letter is appended", document: paths[0])
        }
        if let earlier = appended(parsed.letterID, to: target.documentURL) {
            // The removal takes the file's lock itself: this process's own lock goes first.
            resumed?.release()
            return alreadyIn(letter, url: url, document: paths[0], pages: earlier, options: options)
        }
        guard !options.dryRun else { return result(.appended, "would be appended", document: paths[0]) }
        return claimAndAppend(letter, url: url, resumed: resumed, into: target.documentURL, shown: paths[0], letterID: parsed.letterID,
                              name: name, options: options, now: now)
    }

    /// Claims the letter (unless `resumed` holds this machine's claim of it already) and
    /// appends it to `document`; what fails for the letter's own sake goes to unmatched, the
    /// rest is given back for the next run.
    private func claimAndAppend(_ letter: CompanionFile, url: URL, resumed: DocumentLock?, into document: URL, shown: String, letterID: String,
                                name: String, options: InjectOptions, now: Date) -> InjectReport.Letter {
        func result(_ outcome: InjectReport.Outcome, _ reason: String?) -> InjectReport.Letter {
            InjectReport.Letter(path: letter.path, outcome: outcome, document: shown, reason: reason)
        }
        // Claimed as the app claims it: a rename, which fails when another took it first;
        // recorded on this machine first, and locked while it is worked on.
        let claimed = resumed == nil ? url.appendingPathExtension("processing") : url
        var lock = resumed
        if resumed == nil {
            do {
                try claims.record(claimed)
                lock = try DocumentLock(document: claimed.path, mode: .exclusive, timeout: 0)
                try FileManager.default.moveItem(at: url, to: claimed)
            } catch {
                lock?.release()
                claims.forget(claimed)
                return result(.waiting, "taken by another process meanwhile")
            }
        }
        defer {
            lock?.release()
            // A claim still there (it could not be given back) stays this machine's: the next
            // run finishes it.
            if !FileManager.default.fileExists(atPath: claimed.path) { claims.forget(claimed) }
        }
        var appendOptions = AppendOptions()
        appendOptions.letterID = letterID
        do {
            let appended = try Appender(library: library).append([claimed], to: document, options: appendOptions, now: now)
            if let refusal = appended.refused.first {
                guard refusal.code == .alreadyAppended else {
                    // A read that failed once (an I/O error poppler took for damage) is not the
                    // letter's fault: only what fails again goes to unmatched.
                    let readsNow = refusal.code != .notAPDF && ((try? PDFDocument(path: claimed.path))?.pageCount ?? 0) > 0
                    if refusal.code == .unreadable || readsNow { throw AppendError(description: refusal.reason) }
                    return unmatched(letter, url: claimed, reason: refusal.reason, options: options, originalName: name)
                }
                lock?.release()  // the removal takes the file's lock itself
                return alreadyIn(letter, url: claimed, document: shown, pages: nil, options: options)
            }
            var done = result(.appended, nil)
            done.pages = appended.appended.first?.range
            lock?.release()  // the removal takes the file's lock itself
            done.keptAs = try? DocumentRewrite(library: library).keepAndRemove(claimed, reason: "letter \(letterID) appended to \(shown)").shortID
            return done
        } catch {
            // Not the letter's fault (an I/O error, a full disk, the document damaged or
            // changed again and again): given back for the next run, never sent to unmatched.
            lock?.release()
            let original = claimed.deletingPathExtension()
            let back = (try? FileManager.default.moveItem(at: claimed, to: original)) != nil
            return result(.waiting, "could not be appended now (\(error)); \(back ? "given back" : "its claim is kept") for the next run")
        }
    }

    /// The pages the letter `id` became in the document at `document`, when it is there
    /// already: by the shared history (any device's) or the document's own record.
    private func appended(_ id: String, to document: URL) -> String? {
        if let entry = DocumentHistory(library: library).appends(ofLetter: id).first { return entry.pages ?? "?" }
        guard let metadata = try? DocumentReader(path: document.path).metadata() else { return nil }
        return Appender.recordedAppends(metadata).first { $0.letter?.lowercased() == id.lowercased() }?.pages
    }

    private func alreadyIn(_ letter: CompanionFile, url: URL, document: String, pages: String?, options: InjectOptions) -> InjectReport.Letter {
        var result = InjectReport.Letter(path: letter.path, outcome: .alreadyAppended, document: document, pages: pages,
                                         reason: "already in \(document)\(pages.map { " as pages \($0)" } ?? ""); this copy is kept in the version store and removed")
        if !options.dryRun {
            result.keptAs = try? DocumentRewrite(library: library).keepAndRemove(url, reason: "letter already in \(document)").shortID
        }
        return result
    }

    /// Moves the letter to `.letters/unmatched/` under its original name (numbered when taken).
    private func unmatched(_ letter: CompanionFile, url: URL, reason: String, options: InjectOptions, originalName: String? = nil) -> InjectReport.Letter {
        var result = InjectReport.Letter(path: letter.path, outcome: .unmatched, reason: reason)
        guard !options.dryRun else { return result }
        let name = originalName ?? url.lastPathComponent
        let stem = (name as NSString).deletingPathExtension, ext = (name as NSString).pathExtension
        do {
            try FileManager.default.createDirectory(at: unmatchedFolder, withIntermediateDirectories: true)
            var destination = unmatchedFolder.appendingPathComponent(name)
            var number = 0
            while FileManager.default.fileExists(atPath: destination.path) {
                number += 1
                destination = unmatchedFolder.appendingPathComponent("\(stem) \(number).\(ext)")
            }
            try FileManager.default.moveItem(at: url, to: destination)
            result.document = nil
            result.reason = reason + "; moved to \(library.relativePath(of: destination) ?? destination.path)"
        } catch {
            result.reason = reason + "; it could not be moved to .letters/unmatched/ (\(error.localizedDescription)), so it was left where it is"
        }
        return result
    }

    /// A claim: reported when older than `claimAge` (nobody finished it), given back with `releaseClaims`.
    private func claim(_ letter: CompanionFile, url: URL, options: InjectOptions, now: Date) -> [InjectReport.Letter] {
        guard let stat = try? Sys.lstat(url.path), now.timeIntervalSince1970 - stat.modifiedSeconds >= options.claimAge else { return [] }
        let age = Int((now.timeIntervalSince1970 - stat.modifiedSeconds) / 60)
        guard options.releaseClaims, !options.dryRun else {
            return [InjectReport.Letter(path: letter.path, outcome: .claimLeft,
                                        reason: "claimed \(age) minutes ago and never finished; `yiana inject --release-claims` gives it back to be appended")]
        }
        let back = url.deletingPathExtension()
        do {
            try FileManager.default.moveItem(at: url, to: back)
            return [InjectReport.Letter(path: letter.path, outcome: .released, reason: "given back as \(library.relativePath(of: back) ?? back.path)")]
        } catch {
            return [InjectReport.Letter(path: letter.path, outcome: .claimLeft, reason: "could not be given back (\(error.localizedDescription))")]
        }
    }
}

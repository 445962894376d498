import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaSystem

/// A temporary file left by an interrupted write, and the document it was meant to become.
struct LeftoverTemp {
    let url: URL
    let path: String
    /// The document it would replace (or become), when that can be told.
    let document: URL?
    /// True when it passes verify as a document on its own.
    let valid: Bool
    let modified: Date

    /// The document name a temporary file was written for: the toolkit's own
    /// (`.Name.yianazip.yiana-tmp-XXXXXXXX`) and libzip's (`Name.yianazip.XXXXXX`) carry
    /// it; the app's (`<UUID>.tmp`) does not (nil).
    static func documentName(forTemp name: String) -> String? {
        if name.hasPrefix("."), let marker = name.range(of: CoordinatedDocument.temporaryMarker, options: .backwards) {
            let documentName = String(name[name.index(after: name.startIndex)..<marker.lowerBound])
            return documentName.isEmpty ? nil : documentName
        }
        if !name.hasPrefix("."), let range = name.range(of: ".\(Library.documentExtension).", options: .backwards) {
            return String(name[..<range.lowerBound]) + ".\(Library.documentExtension)"
        }
        return nil
    }
}

extension Repairer {
    /// Reads the leftover temporary files in `files` (paths from a verify report): which
    /// document each belongs to (by its name, or for the app's `<UUID>.tmp` by the id it
    /// holds), and whether it is a complete document.
    func leftoverTemps(_ files: [(url: URL, path: String)]) -> [LeftoverTemp] {
        files.map { file in
            let valid = DocumentCheck.damage(at: file.url.path).isEmpty
            let modified = (try? FileManager.default.attributesOfItem(atPath: file.url.path)[.modificationDate] as? Date) ?? .distantPast
            var document = LeftoverTemp.documentName(forTemp: file.url.lastPathComponent).map {
                file.url.deletingLastPathComponent().appendingPathComponent($0)
            }
            if document == nil, valid, let id = try? DocumentReader(path: file.url.path).metadata().id {
                document = documentHolding(id, in: file.url.deletingLastPathComponent())
            }
            return LeftoverTemp(url: file.url, path: file.path, document: document, valid: valid, modified: modified)
        }
    }

    /// The document in `folder` whose metadata carries `id`.
    private func documentHolding(_ id: UUID, in folder: URL) -> URL? {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.sorted()
            .filter { !$0.hasPrefix(".") && ($0 as NSString).pathExtension.lowercased() == Library.documentExtension }
            .map { folder.appendingPathComponent($0) }
            .first { (try? DocumentReader(path: $0.path).metadata().id) == id }
    }

    /// What repair says about each leftover temporary file: for each document, the newest
    /// one that is complete is offered (`--take-temp`); none is ever deleted.
    func offers(for temps: [LeftoverTemp]) -> [RepairAction] {
        let newestValid = Dictionary(grouping: temps.filter(\.valid)) { $0.document?.path ?? $0.url.path }
            .compactMapValues { $0.max { ($0.modified, $0.path) < ($1.modified, $1.path) } }
        return temps.map { temp in
            let target = temp.document.map { library.relativePath(of: $0) ?? $0.path }
            if let companion = LibraryScanner.companion(at: temp.path, path: temp.url.path), companion.isTemp {
                return RepairAction(path: temp.path, action: .none,
                                    detail: "a temporary file of \(companion.plainPath) (\(companion.kind.label)), left by an interrupted save; left as it is (`yiana repair --remove-temps` keeps it in the version store and removes it; `yiana versions restore` can put it in place of \(companion.plainPath))")
            }
            guard temp.valid else {
                return RepairAction(path: temp.path, action: .none,
                                    detail: "an incomplete temporary file left by an interrupted write; left as it is (`yiana repair --remove-temps` keeps it in the version store and removes it)")
            }
            guard newestValid[temp.document?.path ?? temp.url.path]?.url == temp.url else {
                let newest = newestValid[temp.document?.path ?? temp.url.path]!
                return RepairAction(path: temp.path, action: .none,
                                    detail: "a complete document left by an interrupted write, older than \(newest.path); left as it is (`yiana repair --remove-temps` keeps it in the version store and removes it)")
            }
            var existing = "which does not exist now"
            if let document = temp.document, let date = (try? FileManager.default.attributesOfItem(atPath: document.path)[.modificationDate]) as? Date {
                existing = "last written \(InternetTime.string(date))"
            }
            let into = target.map { "\($0) (\(existing))" } ?? "a new document (no document with its id is here)"
            return RepairAction(path: temp.path, action: .offerTemp,
                                detail: "a complete document written \(InternetTime.string(temp.modified)) for \(into); to put it in place: `yiana repair --take-temp '\(temp.path)'` (what it replaces is kept in the version store)")
        }
    }

    /// `repair --take-temp FILE`: the temporary file `argument` names (as given, else inside
    /// the library) put in place of its document (see ``takeTemp(_:dryRun:)``), as a report.
    public func takeTemp(named argument: String, dryRun: Bool = false) -> RepairReport {
        var report = RepairReport(dryRun: dryRun)
        let url = URL(fileURLWithPath: argument, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL
        let resolved = FileManager.default.fileExists(atPath: url.path) ? url : library.root.appendingPathComponent(argument)
        do {
            report.repaired.append(try takeTemp(resolved, dryRun: dryRun))
        } catch {
            report.notRepaired.append(RepairAction(path: argument, action: .none, detail: "\(error)"))
        }
        return report
    }

    /// Puts the leftover temporary file `temp` in place of the document it was written for,
    /// after keeping that document (and the temp file) in the version store.
    public func takeTemp(_ temp: URL, dryRun: Bool = false) throws -> RepairAction {
        let path = library.relativePath(of: temp) ?? temp.path
        guard FileManager.default.fileExists(atPath: temp.path) else { throw RepairIssue("no such file") }
        guard LibraryScanner.isLeftoverTemp(temp.lastPathComponent) else {
            throw RepairIssue("not a temporary file from an interrupted write (`.Name.yianazip.yiana-tmp-…`, `Name.yianazip.XXXXXX` or `<UUID>.tmp`)")
        }
        let problems = DocumentCheck.damage(at: temp.path)
        guard problems.isEmpty else {
            throw RepairIssue("not a complete document (verify finds \(problems.map(\.rawValue).joined(separator: ", "))); nothing was changed")
        }
        guard let found = leftoverTemps([(temp, path)]).first else { throw RepairIssue("cannot be read") }
        var document = found.document
        if document == nil {
            let title = (try? DocumentReader(path: temp.path).metadata().title) ?? "Recovered"
            document = DocumentRewrite(library: library).freeName(for: title, in: temp.deletingLastPathComponent())
        }
        let target = document!
        let targetPath = library.relativePath(of: target) ?? target.path
        var action = RepairAction(path: path, action: .takeTemp, detail: "put in place as \(targetPath)")
        action.document = targetPath
        guard !dryRun else { return action }
        let store = VersionStore(library: library)
        _ = try store.keep(temp, reason: "temporary file taken into \(targetPath)")
        let current = FileIdentity.current(at: target.path)
        if current != .absent {
            action.keptAs = try store.keep(target, reason: "replaced by the temporary file \(temp.lastPathComponent)").shortID
        }
        try CoordinatedDocument.replace(at: target.path, withBytesOf: temp.path, expecting: current)
        // Its bytes are now the document and in the version store: it is moved, not lost.
        try FileManager.default.removeItem(at: temp)
        action = RepairAction(path: path, action: .takeTemp, detail: "put in place as \(targetPath); the temporary file is gone (its bytes are the document now)", keptAs: action.keptAs)
        action.document = targetPath
        return action
    }

    /// How long a temporary file of another program (libzip's, the app's) must have been left
    /// untouched before `--remove-temps` takes it: that program may still be writing it.
    public static let foreignTempQuietPeriod: TimeInterval = 3600

    /// Keeps the leftover temporary file `temp` in the version store, then removes it from
    /// the library, so that nothing of it is lost and the synced folder is clean again. The
    /// toolkit's own is taken only while its document's lock is free (a writer holds that lock
    /// for as long as its temporary file exists); another program's only after
    /// ``foreignTempQuietPeriod``.
    func removeTemp(_ temp: LeftoverTemp, offered: Bool, dryRun: Bool, now: Date = Date()) throws -> RepairAction {
        let name = temp.url.lastPathComponent
        var lock: DocumentLock?
        if Verifier.isToolkitTemp(name), let document = temp.document {
            do {
                lock = try DocumentLock(document: document.path, mode: .exclusive, timeout: 0)
            } catch ArchiveError.Code.lockTimeout {
                throw RepairIssue("its document is being written now (it is locked); left as it is")
            }
        } else {
            let age = now.timeIntervalSince(temp.modified)
            guard age >= Self.foreignTempQuietPeriod else {
                throw RepairIssue("last written \(Int(age / 60)) minutes ago, perhaps by a program still writing it; left as it is until it has been untouched for \(Int(Self.foreignTempQuietPeriod / 60)) minutes")
            }
        }
        defer { lock?.release() }
        // The action says what is done (`remove-temp`: kept, then removed); the detail, what it was.
        let companion = LibraryScanner.companion(at: temp.path, path: temp.url.path).flatMap { $0.isTemp ? $0 : nil }
        let what = offered ? "the newest complete document left for \(temp.document.map { library.relativePath(of: $0) ?? $0.path } ?? "a new document")"
            : temp.valid ? "a complete document left by an interrupted write, older than another"
            : companion.map { "a temporary file of \($0.plainPath) (\($0.kind.label)) left by an interrupted save; `yiana versions restore` can put it in place" }
            ?? "an incomplete temporary file left by an interrupted write"
        guard !dryRun else { return RepairAction(path: temp.path, action: .removeTemp, detail: what) }
        let identity = FileIdentity.current(at: temp.url.path)
        guard identity != .absent else { throw RepairIssue("it is gone already") }
        // A complete document is listed under the document it was written for.
        let kept = try VersionStore(library: library).keep(temp.url, reason: "leftover temporary file \(name) removed by repair",
                                                           as: temp.valid ? temp.document : nil)
        // Only the bytes just kept may go: a file changed meanwhile is left for the next run.
        guard FileIdentity.current(at: temp.url.path) == identity else {
            throw RepairIssue("it changed while it was being kept; left as it is")
        }
        try FileManager.default.removeItem(at: temp.url)
        var detail = what
        if offered, let document = temp.document {
            detail += "; `yiana versions restore '\(library.relativePath(of: document) ?? document.path)' \(kept.shortID)` puts it in place"
        }
        return RepairAction(path: temp.path, action: .removeTemp, detail: detail, keptAs: kept.shortID)
    }
}

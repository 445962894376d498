import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// Resolves the conflicts ``ConflictDetector`` finds.
public struct ConflictResolver: Sendable {
    public let library: Library
    /// Called after a group is planned and before its plan runs, with the attempt's number
    /// (tests use it to change a document the way another process would).
    var willExecute: (@Sendable (_ attempt: Int) throws -> Void)?

    public init(library: Library) {
        self.library = library
    }

    /// Resolves every group needing it (or those of `options.documents`). Nothing is lost:
    /// every file removed or replaced is kept in the version store first. Groups with an
    /// evicted or damaged copy are skipped until it is downloaded or repaired.
    /// - Throws: when the library cannot be scanned. A failing step stops its group only
    ///   (after what it had kept) and is reported in `failed`; the other groups go on.
    public func resolve(_ options: ResolveOptions, now: Date = Date()) async throws -> ResolveReport {
        var report = ResolveReport(dryRun: options.dryRun)
        var found = try await ConflictDetector(library: library).detect(settle: options.settle, now: now)
        if options.downloadEvicted, !options.dryRun {
            let evicted = found.groups.flatMap(\.files).filter { $0.role == .notDownloaded }
            for file in evicted {
                do {
                    try Downloader(library: library).download(library.root.appendingPathComponent(file.path))
                } catch {
                    report.skipped.append(.init(path: file.path, reason: "could not be downloaded: \(error)"))
                }
            }
            if !evicted.isEmpty { found = try await ConflictDetector(library: library).detect(settle: options.settle, now: now) }
        }
        let wanted = Set(options.documents.map { library.relativePath(of: URL(fileURLWithPath: $0, relativeTo: library.root)) ?? $0 })
        // A group another process changes while it is being resolved (an edit, a sync) is
        // planned again from what is there now, as running the command again would; only
        // after `Self.attempts` such tries is it reported as failed.
        var again: Set<String>?
        for attempt in 1...Self.attempts {
            var changed: Set<String> = []
            for group in found.groups {
                guard wanted.isEmpty || !wanted.isDisjoint(with: group.files.map(\.path)) else { continue }
                guard again?.contains(Self.key(of: group)) ?? true else { continue }
                let arriving = group.files.filter { found.arriving.contains($0.path) }
                guard arriving.isEmpty else {
                    report.skipped += arriving.map {
                        .init(path: $0.path, reason: "still arriving (a sync program is writing it): its group is resolved on a later run, or now with --now")
                    }
                    continue
                }
                let waiting = group.files.filter { $0.role == .notDownloaded || $0.role == .damaged }
                guard waiting.isEmpty else {
                    report.skipped += waiting.map {
                        .init(path: $0.path, reason: $0.role == .notDownloaded
                              ? "not downloaded: its group is resolved once it is downloaded"
                              : "damaged: its group is resolved once it is repaired (\($0.reason ?? ""))")
                    }
                    continue
                }
                var skipped: [ResolveReport.Skipped] = []
                do {
                    var plan = try GroupPlan(group: group, library: library, options: options, now: now)
                    skipped = plan.skipped
                    if !plan.steps.isEmpty {
                        if options.dryRun {
                            plan.resolution.steps = plan.steps
                        } else {
                            try willExecute?(attempt)
                            try plan.execute()
                        }
                        report.resolutions.append(plan.resolution)
                    }
                    report.skipped += skipped
                } catch let error as ArchiveError where error.kind == .documentChanged && attempt < Self.attempts {
                    changed.insert(Self.key(of: group))
                } catch {
                    // This group only: the others are still resolved.
                    report.skipped += skipped
                    report.failed.append(.init(path: group.files[0].path, reason: "\(error)"))
                }
            }
            guard !changed.isEmpty else { break }
            again = changed
            found = try await ConflictDetector(library: library).detect(settle: options.settle, now: now)
        }
        // The app's companion files, after the documents they belong to (which resolving
        // documents never touches).
        let companions = found.companions.filter { wanted.isEmpty || $0.document.map(wanted.contains) == true }
        CompanionResolver(library: library).resolve(companions, options: options, arriving: Set(found.arriving), now: now, into: &report)
        return report
    }

    /// How many times a group is planned when other processes keep changing it.
    static let attempts = 4

    private static func key(of group: ConflictReport.Group) -> String {
        group.documentID ?? group.files[0].path
    }
}

/// The steps that resolve one group, planned before anything is touched.
struct GroupPlan {
    struct PlannedStep {
        var step: ResolveReport.Step
        let perform: () throws -> VersionRecord?
    }

    let library: Library
    let history: DocumentHistory
    let rewrite: DocumentRewrite
    var resolution: ResolveReport.Resolution
    var planned: [PlannedStep] = []
    var skipped: [ResolveReport.Skipped] = []
    var parents: [String] = []
    /// New documents' names planned in this group, so that two never get the same one.
    var reservedNames: Set<String> = []
    let expected = ExpectedVersions()
    var steps: [ResolveReport.Step] { planned.map(\.step) }

    init(group: ConflictReport.Group, library: Library, options: ResolveOptions, now: Date) throws {
        self.library = library
        history = DocumentHistory(library: library)
        rewrite = DocumentRewrite(library: library)
        let original = try Snapshot(group.files[0].path, library: library, placedAt: group.target)
        expected.note(original)
        let id = original.metadata.id.uuidString
        resolution = .init(documentID: id, original: original.path, strategy: options.strategy.rawValue)
        parents = [original.key].compactMap { $0 }
        if group.target != nil, !options.identicalOnly { addRestoreName(from: group.files[0].path, identity: original.sourceIdentity, to: original) }
        let kept = Set(((try? VersionStore(library: library).records()) ?? []).filter { $0.documentID == id }.compactMap(\.contentKey))

        var conflicts: [Snapshot] = []
        for file in group.files.dropFirst() where !options.identicalOnly || file.role == .identicalCopy {
            switch file.role {
            case .identicalCopy:
                let copy = try Snapshot(file.path, library: library)
                guard copy.key != nil, copy.key == original.key else {
                    skipped.append(.init(path: file.path, reason: "changed since the conflicts were listed; run resolve again"))
                    continue
                }
                expected.note(copy)
                addRemoval(file.path, action: "collapse-identical", detail: "the same metadata and PDF as \(original.path)")
            case .duplicate:
                if options.reassignIDs {
                    let copy = try Snapshot(file.path, library: library)
                    expected.note(copy)
                    var metadata = copy.metadata
                    metadata.id = UUID()
                    add("reassign-id", copy.path, "made by the app's Duplicate command; gets id \(metadata.id.uuidString)") { [rewrite, expected] in
                        let record = try VersionStore(library: library).keep(copy.url, reason: "before giving a duplicate its own id")
                        try rewrite.write(metadata, pdfFrom: copy.url, to: copy.url, replacing: true, expecting: expected[copy.path])
                        expected.refresh(copy.path, at: copy.url)
                        return record
                    }
                } else {
                    skipped.append(.init(path: file.path, reason: "duplicate id (the app's Duplicate command); --reassign-id gives it its own"))
                }
            case .conflictCopy:
                let copy = try Snapshot(file.path, library: library)
                expected.note(copy)
                parents += [copy.key].compactMap { $0 }
                if let copyKey = copy.key, let originalKey = original.key,
                   history.isAncestor(copyKey, of: originalKey, documentID: id) || (kept.contains(copyKey) && !history.isAncestor(originalKey, of: copyKey, documentID: id)) {
                    addRemoval(copy.path, action: "remove-older", detail: "an older version of \(original.path) (by the history or the version store)")
                } else if let copyKey = copy.key, let originalKey = original.key, history.isAncestor(originalKey, of: copyKey, documentID: id) {
                    addReplaceOriginal(original, with: copy, detail: "descends from the original: an update, not a conflict")
                } else {
                    conflicts.append(copy)
                }
            case .original, .notDownloaded, .damaged:
                break
            }
        }
        guard !conflicts.isEmpty else { return }
        switch options.strategy {
        case .newest: planNewest(original, conflicts)
        case .keepBoth: planKeepBoth(conflicts)
        case .merge: planMerge(original, conflicts, now: now)
        }
    }

    // MARK: Strategies

    private mutating func planNewest(_ original: Snapshot, _ conflicts: [Snapshot]) {
        let candidates = [original] + conflicts
        let id = original.metadata.id.uuidString
        // Causally newest: one that every other descends into; else the newest clock, then the path.
        let causal = candidates.first { candidate in
            candidates.allSatisfy { other in
                other.path == candidate.path || (other.key != nil && candidate.key != nil && history.isAncestor(other.key!, of: candidate.key!, documentID: id))
            }
        }
        let winner = causal ?? candidates.max { ($0.metadata.modified, $1.path) < ($1.metadata.modified, $0.path) }!
        resolution.winner = winner.path
        if winner.path != original.path {
            addReplaceOriginal(original, with: winner, detail: "the newest copy (modified \(winner.metadata.modified))")
        }
        for loser in conflicts where loser.path != winner.path {
            addRemoval(loser.path, action: "remove-copy", detail: "lost to \(winner.path) (newest)")
        }
    }

    private mutating func planKeepBoth(_ conflicts: [Snapshot]) {
        for copy in conflicts {
            var metadata = copy.metadata
            metadata.id = UUID()
            let marks = ConflictName(fileName: copy.url.lastPathComponent).marks
            metadata.title = "\(copy.metadata.title) (conflict copy\(marks.isEmpty ? "" : " \(marks[0].shortLabel)"))"
            let destination = reserveName(for: metadata.title, in: copy.url.deletingLastPathComponent())
            add("new-document", library.relativePath(of: destination) ?? destination.path, "the copy \(copy.path) as a document of its own") { [rewrite] in
                try rewrite.writeNew(metadata, pdfFrom: copy.url, preferring: destination)
                return nil
            }
            addRemoval(copy.path, action: "remove-copy", detail: "now its own document")
        }
        resolution.winner = resolution.original
    }

    /// A kept copy of the version with content key `key`: in the version store, else in
    /// the attached cloud store (which keeps every version a device uploaded).
    static func bytes(withContentKey key: String, library: Library) -> URL? {
        let store = VersionStore(library: library)
        if let record = try? store.records().last(where: { $0.contentKey == key && store.contains($0) }) { return store.objectURL(record) }
        return (try? CloudAttachment.load(library).cloud())?.object(withContentKey: key)
    }

    // MARK: Steps

    mutating func reserveName(for title: String, in folder: URL) -> URL {
        let url = rewrite.freeName(for: title, in: folder, reserved: reservedNames)
        reservedNames.insert(url.lastPathComponent.lowercased())
        return url
    }

    mutating func add(_ action: String, _ path: String, _ detail: String, perform: @escaping () throws -> VersionRecord?) {
        planned.append(PlannedStep(step: .init(action: action, path: path, detail: detail), perform: perform))
    }

    mutating func addRemoval(_ path: String, action: String, detail: String) {
        let url = library.root.appendingPathComponent(path)
        add(action, path, detail) { [rewrite, expected] in
            try rewrite.keepAndRemove(url, reason: "resolved away (\(action)): \(detail)", expecting: expected[path])
        }
    }

    /// Puts the file a sync service renamed back under the plain name (never replacing a
    /// file that appeared there meanwhile), then keeps and removes the renamed one.
    private mutating func addRestoreName(from source: String, identity: FileIdentity?, to original: Snapshot) {
        let sourceURL = library.root.appendingPathComponent(source)
        expected.note(path: source, identity)
        add("restore-name", original.path, "from \(source): a sync service took the plain name away") { [expected] in
            try CoordinatedDocument.replace(at: original.url.path, withBytesOf: sourceURL.path, expecting: expected[original.path])
            expected.refresh(original.path, at: original.url)
            return nil
        }
        addRemoval(source, action: "remove-copy", detail: "now at \(original.path)")
    }

    private mutating func addReplaceOriginal(_ original: Snapshot, with copy: Snapshot, detail: String) {
        let library = self.library
        add("replace-original", original.path, "with \(copy.path): \(detail)") { [expected] in
            let record = try VersionStore(library: library).keep(original.url, reason: "replaced by \(copy.path)")
            try CoordinatedDocument.replace(at: original.url.path, withBytesOf: copy.url.path, expecting: expected[original.path])
            expected.refresh(original.path, at: original.url)
            return record
        }
        addRemoval(copy.path, action: "remove-copy", detail: "now at \(original.path)")
    }

    /// Runs the steps in order, then records the new state in the history and the decision log.
    mutating func execute() throws {
        var keptAs: [String: String] = [:]
        for index in planned.indices {
            if let record = try planned[index].perform() {
                planned[index].step.keptAs = record.shortID
                keptAs[planned[index].step.path] = record.shortID
            }
        }
        resolution.steps = steps
        let originalURL = library.root.appendingPathComponent(resolution.original)
        if let key = try? DocumentReader(path: originalURL.path).contentKey {
            try history.record(documentID: resolution.documentID, key: key, parents: parents, what: "resolve \(resolution.strategy)")
        }
        let log = ResolutionLogEntry.log(library)
        var entry = ResolutionLogEntry(time: Date(), documentID: resolution.documentID, copies: steps.map(\.path),
                                       strategy: resolution.strategy, winner: resolution.winner, kept: keptAs)
        entry.overruled = resolution.overruled
        try log.append(entry)
    }
}

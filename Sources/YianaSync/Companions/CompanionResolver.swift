import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// Settles the conflict copies of companion files by their kind's rule (``CompanionMerge``):
/// identical copies collapse; corrections, the work list, drafts and the letterhead merge;
/// extraction results keep the newest. Every file written over or removed is kept in the
/// version store first, the merged result too (the base of the next three-way merge), and
/// every decision goes to the resolutions log.
public struct CompanionResolver: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Why the version store holds a merged result: the base the next merge of that file starts from.
    public static let mergedResultReason = "merged result of conflict copies"

    /// Resolves `groups` into `report` (as ``ConflictResolver`` does for documents).
    /// `arriving`: paths a sync program is still writing (``ConflictReport/arriving``): their groups wait.
    public func resolve(_ groups: [CompanionGroup], options: ResolveOptions, arriving: Set<String>, now: Date, into report: inout ResolveReport) {
        // The merged results kept so far, read once: the bases of three-way merges.
        let merges = groups.contains(where: \.needsResolving)
            ? ((try? VersionStore(library: library).records()) ?? []).filter { $0.reason == Self.mergedResultReason } : []
        for group in groups where group.needsResolving {
            let arriving = group.files.filter { arriving.contains($0.path) }
            guard arriving.isEmpty else {
                report.skipped += arriving.map { .init(path: $0.path, reason: "still arriving (a sync program is writing it): resolved on a later run, or now with --now") }
                continue
            }
            do {
                if let resolution = try resolve(group, options: options, base: base(of: group, among: merges), now: now, skipped: &report.skipped) {
                    report.resolutions.append(resolution)
                }
            } catch {
                report.failed.append(.init(path: group.plainPath, reason: "\(error)"))
            }
        }
    }

    private func resolve(_ group: CompanionGroup, options: ResolveOptions, base: JSONValue?, now: Date,
                         skipped: inout [ResolveReport.Skipped]) throws -> ResolveReport.Resolution? {
        let identities = Dictionary(uniqueKeysWithValues: group.files.map { ($0.path, FileIdentity.current(at: library.root.appendingPathComponent($0.path).path)) })
        var resolution = ResolveReport.Resolution(documentID: group.key ?? "library", original: group.plainPath, strategy: "identical")
        var steps: [(step: ResolveReport.Step, run: () throws -> VersionRecord?)] = []
        let rewrite = DocumentRewrite(library: library)
        func removal(_ path: String, _ action: String, _ detail: String) {
            let url = library.root.appendingPathComponent(path)
            steps.append((.init(action: action, path: path, detail: detail), {
                try rewrite.keepAndRemove(url, reason: "resolved away (\(action)): \(detail)", expecting: identities[path])
            }))
        }
        for file in group.files where file.role == .identicalCopy {
            removal(file.path, "collapse-identical", "the same content as \(group.plainPath)")
        }
        let diverged = group.files.filter { $0.role == .conflictCopy }
        if !diverged.isEmpty, options.identicalOnly {
            skipped += diverged.map { .init(path: $0.path, reason: "differs from \(group.plainPath): resolved by `yiana conflicts resolve`") }
        } else if !diverged.isEmpty {
            let members = group.files.filter { $0.role != .identicalCopy }
            guard let versions = read(members, kind: group.kind, skipped: &skipped),
                  let merged = CompanionMerge.merge(group.kind, versions, base: base, now: now) else {
                if CompanionShape.of(group.kind) == nil {
                    skipped += diverged.map { .init(path: $0.path, reason: "a different file than \(group.plainPath) (\(group.kind.label)); left as it is: compare them and keep what you want") }
                }
                return steps.isEmpty ? nil : try run(&resolution, steps, options: options)
            }
            resolution = ResolveReport.Resolution(documentID: group.key ?? "library", original: group.plainPath, strategy: merged.rule, winner: merged.winner)
            resolution.overruled = merged.notes
            steps.append(try write(merged.value, to: group.plainPath, kind: group.kind, expecting: identities[group.plainPath] ?? .absent,
                                   detail: "\(merged.rule) of \(members.count) version(s)"))
            if group.kind == .addressExtraction, let (path, value, identity) = correctionsToCarry(merged.value, into: group) {
                // The app reads a non-empty corrections file instead of the extraction's own
                // corrections: those carried from an older file go there too, to be seen.
                resolution.overruled.append("corrections kept inside an older extraction file merged into \(path)")
                steps.append(try write(value, to: path, kind: .addressCorrections, expecting: identity, detail: "corrections carried from an older extraction file"))
            }
            for file in diverged { removal(file.path, "remove-copy", "merged into \(group.plainPath)") }
        }
        return steps.isEmpty ? nil : try run(&resolution, steps, options: options)
    }

    /// The step that writes `value` as the file at `path` (the app must decode it as a file of
    /// `kind`), only if it is still the version `expecting`: what it replaces is kept first,
    /// and the result too, as the base of the next three-way merge of that file.
    private func write(_ value: JSONValue, to path: String, kind: CompanionKind, expecting: FileIdentity,
                       detail: String) throws -> (step: ResolveReport.Step, run: () throws -> VersionRecord?) {
        let data = try CompanionMerge.encode(value)
        let shape = CompanionShape.of(kind)
        let url = library.root.appendingPathComponent(path)
        let library = self.library
        return (.init(action: "merge-into", path: path, detail: detail), {
            var record: VersionRecord?
            if expecting != .absent {
                record = try VersionStore(library: library).keep(url, reason: "replaced by the merge of its conflict copies")
            }
            try CoordinatedDocument.replace(at: url.path, with: data, expecting: expecting) { written in
                // What the app will read must decode as the app's model.
                let value = try CompanionContent.json(at: URL(fileURLWithPath: written)).get()
                if let failure = shape?.failures(value).first { throw ArchiveError(.verificationFailed("\(failure.key): \(failure.reason)"), path: url.path) }
            }
            try VersionStore(library: library).keep(url, reason: Self.mergedResultReason)
            return record
        })
    }

    /// For a merged extraction file holding corrections (carried from older files): the
    /// document's corrections file with them added, when that file holds corrections of its
    /// own (then the app reads it, not the extraction's); nil when nothing needs adding.
    private func correctionsToCarry(_ merged: JSONValue, into group: CompanionGroup) -> (String, JSONValue, FileIdentity)? {
        let carried = CompanionMerge.entries(merged, "overrides")
        guard !carried.isEmpty, let key = group.key else { return nil }
        let path = ((group.plainPath as NSString).deletingLastPathComponent as NSString).appendingPathComponent(key + ".overrides.json")
        let url = library.root.appendingPathComponent(path)
        let identity = FileIdentity.current(at: url.path)
        guard case .success(.object(var file)) = CompanionContent.json(at: url) else { return nil }
        let own = CompanionMerge.entries(.object(file), "overrides")
        let missing = carried.filter { !own.contains($0) }
        guard !own.isEmpty, !missing.isEmpty else { return nil }
        file["overrides"] = .array(own + missing)
        return (path, .object(file), identity)
    }

    private func run(_ resolution: inout ResolveReport.Resolution, _ steps: [(step: ResolveReport.Step, run: () throws -> VersionRecord?)],
                     options: ResolveOptions) throws -> ResolveReport.Resolution {
        resolution.steps = steps.map(\.step)
        guard !options.dryRun else { return resolution }
        var kept: [String: String] = [:]
        for index in steps.indices {
            if let record = try steps[index].run() {
                resolution.steps[index].keptAs = record.shortID
                kept[steps[index].step.path] = record.shortID
            }
        }
        var entry = ResolutionLogEntry(time: Date(), documentID: "companion:\(resolution.original)", copies: resolution.steps.map(\.path),
                                       strategy: resolution.strategy, winner: resolution.winner, kept: kept)
        entry.overruled = resolution.overruled
        try ResolutionLogEntry.log(library).append(entry)
        return resolution
    }

    /// Every member's JSON, or nil (and why, in `skipped`) when one is not JSON the app reads.
    private func read(_ files: [CompanionGroup.File], kind: CompanionKind, skipped: inout [ResolveReport.Skipped]) -> [CompanionVersion]? {
        guard let shape = CompanionShape.of(kind) else { return nil }
        var versions: [CompanionVersion] = []
        for file in files {
            let url = library.root.appendingPathComponent(file.path)
            switch CompanionContent.json(at: url) {
            case .success(let value):
                guard let failure = shape.failures(value).first else {
                    versions.append(CompanionVersion(path: file.path, value: value, modified: file.modified ?? .distantPast))
                    continue
                }
                skipped.append(.init(path: file.path, reason: "the app cannot decode it (\(failure.key): \(failure.reason)); its group waits until it is mended (`yiana verify` names the key)"))
                return nil
            case .failure(let failure):
                skipped.append(.init(path: file.path, reason: "\(failure.reason); its group waits until it is mended or removed"))
                return nil
            }
        }
        return versions
    }

    /// The last merged result of this file (among `merges`, oldest first) both devices may
    /// have had: the base of a three-way merge.
    private func base(of group: CompanionGroup, among merges: [VersionRecord]) -> JSONValue? {
        let store = VersionStore(library: library)
        guard let record = merges.last(where: { $0.originalPath == group.plainPath }), store.contains(record) else { return nil }
        return try? CompanionContent.json(at: store.objectURL(record)).get()
    }
}

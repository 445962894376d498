import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// What bringing back one lost document did (or, with a dry run, would do).
public struct LostRestore: Codable, Sendable, Equatable {
    public enum Outcome: String, Codable, Sendable {
        case restored
        case wouldRestore = "would-restore"
        /// Something else is at its path now, or no kept state of it verifies.
        case skipped
        case failed
    }

    public let path: String
    public let how: LostDocument.How
    /// The state put back (its short id), when there is one.
    public let version: String?
    public let outcome: Outcome
    /// Why it was skipped or failed.
    public var reason: String?
    /// Where the bytes it replaced (an overwritten document's garbage) were kept.
    public var replacedKeptAs: String?
}

extension Keeper {
    /// Brings back every document lost since `since` (deleted, or overwritten by bytes that
    /// are not a document), each with its newest kept state that verifies, through the
    /// coordinated writer (so the restore syncs to the other devices like any write). A
    /// deleted document's path must still be free, an overwritten one's must still hold
    /// what is not a document: anything a person or another device put there since is left
    /// alone. With `dryRun`, nothing is written.
    public func restoreLost(since: Date?, dryRun: Bool) async -> [LostRestore] {
        var results: [LostRestore] = []
        var written: [URL] = []
        let store = VersionStore(library: library)
        for document in lost(since: since) {
            let url = library.root.appendingPathComponent(document.path)
            guard let version = document.versions.first(where: { Self.verifiesWhole(objectURL($0.sha256)) }) else {
                results.append(LostRestore(path: document.path, how: document.how, version: nil, outcome: .skipped,
                                           reason: "no kept state of it verifies as a document"))
                continue
            }
            switch (document.how, FileKind.at(url.path)) {
            case (.deleted, .missing):
                break
            case (.overwritten, .regular) where (try? DocumentReader(path: url.path, checks: .layout).metadata()) == nil:
                break
            default:
                results.append(LostRestore(path: document.path, how: document.how, version: version.shortID, outcome: .skipped,
                                           reason: "something else is at its path now; `yiana versions restore \"\(document.path)\" \(version.shortID)` replaces it"))
                continue
            }
            if dryRun {
                results.append(LostRestore(path: document.path, how: document.how, version: version.shortID, outcome: .wouldRestore))
                continue
            }
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                let replaced = try store.restore(version, to: url)
                var result = LostRestore(path: document.path, how: document.how, version: version.shortID, outcome: .restored)
                result.replacedKeptAs = replaced?.shortID
                results.append(result)
                written.append(url)
            } catch {
                results.append(LostRestore(path: document.path, how: document.how, version: version.shortID, outcome: .failed, reason: "\(error)"))
            }
        }
        await recordRestored(written)
        return results.sorted { $0.path < $1.path }
    }

    /// Records documents just put back (by any restore): kept as they are now, and the alarm
    /// lowered when every document it named is back.
    public func recordRestored(_ urls: [URL]) async {
        guard !urls.isEmpty else { return }
        await observe(urls, reason: Self.seenHere)
        refreshAlarm()
    }

    /// Lowers the alarm when every document it named is back.
    public func refreshAlarm(now: Date = Date()) {
        guard alarm() != nil else { return }
        _ = updateAlarm(catalog(), now: now)
    }

    /// True when the file at `url` opens as a document and every byte of it checks.
    static func verifiesWhole(_ url: URL) -> Bool {
        guard let reader = try? DocumentReader(path: url.path) else { return false }
        return (try? reader.verifyContents()) != nil
    }
}

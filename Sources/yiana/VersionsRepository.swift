import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// `--repo` (or `--backup`) for `versions list` and `versions restore`: the states a restic
/// repository holds, read back (``ResticHistory``).
struct BackupSourceOptions: ParsableArguments {
    @OptionGroup var repositoryOptions: RepositoryOptions

    @Flag(help: "Read the restic repository restic's own settings name (RESTIC_REPOSITORY or RESTIC_REPOSITORY_FILE).")
    var backup = false

    @OptionGroup var historyOptions: HistoryOptions

    /// True when the repository is read, not this machine's stores.
    var reading: Bool { backup || repositoryOptions.repository != nil }

    func validate() throws {
        if !reading, historyOptions.snapshot != nil || historyOptions.at != nil || historyOptions.libraryID != nil {
            throw ValidationError("--snapshot, --at and --library-id go with --repo.")
        }
    }

    /// The history and the snapshot read.
    private func open(_ library: Library) throws -> (ResticHistory, ResticSnapshot) {
        let history = try historyOptions.history(repositoryOptions, library)
        do { return (history, try historyOptions.snapshot(of: history)) } catch { throw RepositoryOptions.failure(error) }
    }

    /// The states of the document at `path` (`id`: its metadata id): in the snapshot asked
    /// for, else in the newest that holds any (walking back from the newest).
    private func states(_ history: ResticHistory, _ snapshot: ResticSnapshot, path: String, id: String?,
                        wanted: (RepositoryState) -> Bool = { _ in true }) throws -> (ResticSnapshot, [RepositoryState]) {
        let states = try history.contents(of: snapshot).states(path: path, documentID: id).filter(wanted)
        guard states.isEmpty, historyOptions.snapshot == nil, historyOptions.at == nil,
              let earlier = try history.newestStates(path: path, documentID: id, before: snapshot, wanted: wanted) else { return (snapshot, states) }
        return earlier
    }

    /// `versions list --repo`: the states of `document`, or (none given) the documents the
    /// snapshot holds that the library does not.
    func list(_ library: Library, document: String?, json: Bool) async throws {
        let (history, newest) = try open(library)
        func source(_ snapshot: ResticSnapshot) -> String { "snapshot \(snapshot.shortID) (\(LocalTime(snapshot.time).text)) in \(history.restic.shownRepository)" }
        guard let document else {
            let contents = try await repositoryOptions.said { try history.contents(of: newest) }
            let source = source(newest)
            let lost = contents.lost(from: library)
            if json { return try Output.json(lost) }
            var text = [UInt8]()
            for document in lost {
                let what = switch document.how {
                case .deleted: "deleted before the snapshot"
                case .overwritten: "overwritten before the snapshot"
                case .missingHere: "in the snapshot, not in the library now"
                }
                text += "\(document.path)  \(what)\n".utf8
                for state in document.versions { text += "    ".utf8; Self.append(state, to: &text) }
            }
            text += "\(Output.count(lost.count, "document")) of \(source) not in the library; `yiana versions restore --repo REPO DOC [VERSION]` brings one back.\n".utf8
            return print(String(decoding: text, as: UTF8.self), terminator: "")
        }
        let url = try Yiana.Versions.documentURL(document, in: library)
        let path = library.relativePath(of: url) ?? document
        let id = (try? DocumentReader(path: url.path, checks: .layout).metadata())?.id.uuidString
        let (snapshot, states) = try await repositoryOptions.said { try self.states(history, newest, path: path, id: id) }
        if json { return try Output.json(states) }
        guard !states.isEmpty else { return print("no state of \(path) in any snapshot of \(history.restic.shownRepository).") }
        var text = [UInt8]()
        for state in states { Self.append(state, to: &text) }
        text += "\(Output.count(states.count, "state")) of \(path) in \(source(snapshot)).\n".utf8
        print(String(decoding: text, as: UTF8.self), terminator: "")
    }

    /// `versions restore --repo DOC [VERSION]`.
    func restore(_ document: String, version: String?, in library: Library) async throws {
        let (history, newest) = try open(library)
        let url = try Yiana.Versions.documentURL(document, in: library)
        let path = library.relativePath(of: url) ?? document
        let id = (try? DocumentReader(path: url.path, checks: .layout).metadata())?.id.uuidString
        try await repositoryOptions.said {
            let prefix = version?.lowercased() ?? ""
            let (snapshot, matching) = try self.states(history, newest, path: path, id: id) { $0.sha256.hasPrefix(prefix) }
            // Without a version asked for: the newest state that is a document (bytes that
            // overwrote one are kept and listed, never put back as the document).
            guard let state = version == nil ? matching.first(where: { $0.documentID != nil }) : matching.first else { throw CommandFailure(RepositoryHistoryError.noState(version.map { "\(path) with id \($0)" } ?? path).description) }
            if Set(matching.map(\.sha256)).count > 1, let version { throw CommandFailure(RepositoryHistoryError.ambiguous(version, matching.count).description) }
            let replaced = try await history.restore(state, from: snapshot, to: url, in: library)
            print("restored \(state.shortID) (seen \(LocalTime(state.seenAt).text)) from snapshot \(snapshot.shortID) to \(path)"
                  + (replaced.map { "; the replaced \($0.documentID == nil ? "file" : "document") is kept as \($0.shortID)" } ?? ""))
        }
    }

    /// A state's line: `0c576a6c0162  2026-11-29 01:02:19  2.6 KB      seen here  (Doc.yianazip, snapshot 1f5c9d34)`.
    static func append(_ state: RepositoryState, to text: inout [UInt8]) {
        let size = readableByteCount(state.size)
        text += "\(state.shortID)  \(LocalTime(state.seenAt).text)  \(size)".utf8
        text += repeatElement(UInt8(ascii: " "), count: max(0, 10 - size.utf8.count))
        text += "  \(state.reason)  (\(state.path), snapshot \(state.snapshot))\n".utf8
    }
}

import Foundation
import Synchronization

/// An index's vocabulary kept in memory (a ``Lexicon``) by a process that searches many times
/// (`yiana serve` turns it on, ``enable()``), current while the index's vocabulary version is
/// the one it was read at. The index bumps that version in the transaction that adds words, so
/// a search reads it with the pages it searches.
///
/// A search never waits for it: while it is missing or behind, the search looks words up in the
/// index (the same words, ``Approximate``), and the lexicon is read anew in the background, not
/// more often than would take a tenth of the time (an index being written to all day costs at
/// most that; a quiet one is read once).
public final class ResidentVocabulary: Sendable {
    /// What the background reading gives: the vocabulary's version, read in the same
    /// transaction as its words, and the words.
    public typealias Reading = @Sendable () async throws -> (version: [Int64], words: [String])

    private struct State {
        var enabled = false
        var lexicon: Lexicon?
        var version: [Int64]?
        var reading: Task<Void, Never>?
        var notBefore = ContinuousClock.now
        /// The matches of words searched for since the lexicon was read (at most
        /// ``wordsKept``): a name is searched for again and again.
        var kept: [String: [String]] = [:]
    }

    /// The most words whose matches are kept (a few MB).
    static let wordsKept = 20_000

    private let state = Mutex(State())

    public init() {}

    /// Keeps the vocabulary in memory from the next search on.
    public func enable() {
        state.withLock { $0.enabled = true }
    }

    public var isEnabled: Bool { state.withLock(\.enabled) }

    /// The lexicon last read, current or not.
    public var current: Lexicon? { state.withLock(\.lexicon) }

    /// For each of `words` (folded) that has any, its matches by the rule
    /// (``Lexicon/matches(of:)``), when the lexicon was read at `version`; else nil, and it is
    /// read anew with `read` in the background (unless a reading is under way or came too
    /// recently).
    public func matches(of words: [String], at version: [Int64], read: @escaping Reading) -> [String: [String]]? {
        guard let (lexicon, kept) = lexicon(at: version, words: words, read: read) else { return nil }
        var found = kept.filter { !$0.value.isEmpty }
        let walked = lexicon.matches(of: words.filter { kept[$0] == nil })
        found.merge(walked) { $1 }
        state.withLock { state in
            guard state.version == version else { return }
            if state.kept.count + words.count > Self.wordsKept { state.kept = [:] }
            for word in words where state.kept[word] == nil { state.kept[word] = walked[word] ?? [] }
        }
        return found
    }

    /// The lexicon, and the matches kept of `words`, when it was read at `version`; else as
    /// ``matches(of:at:read:)``.
    private func lexicon(at version: [Int64], words: [String] = [], read: @escaping Reading) -> (Lexicon, [String: [String]])? {
        state.withLock { state -> (Lexicon, [String: [String]])? in
            guard state.enabled else { return nil }
            if state.version == version, let lexicon = state.lexicon {
                return (lexicon, words.reduce(into: [:]) { kept, word in kept[word] = state.kept[word] })
            }
            let now = ContinuousClock.now
            guard state.reading == nil, now >= state.notBefore else { return nil }
            state.reading = Task.detached(priority: .utility) { [self] in
                let started = ContinuousClock.now
                let read = try? await read()
                let lexicon = read.map { Lexicon(words: $0.words) }
                self.state.withLock { state in
                    if let read, let lexicon {
                        state.lexicon = lexicon
                        state.version = read.version
                        state.kept = [:]
                    }
                    state.reading = nil
                    let now = ContinuousClock.now
                    state.notBefore = now + (now - started) * 9
                }
            }
            return nil
        }
    }

    /// Waits for a reading under way (for the tests).
    public func settled() async {
        await state.withLock(\.reading)?.value
    }
}

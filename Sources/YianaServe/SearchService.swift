import Foundation
import YianaLibrary
import YianaSearch
import YianaSystem

/// The searches of the API and the pages, with the answers of recent searches kept until the
/// index changes (as a search engine's request cache is dropped when its index is refreshed).
/// Search as you type repeats the same few queries many times over; the FTS5 ranking of a
/// common word in 10,000 documents costs milliseconds, a kept answer microseconds. What is
/// kept is the answer as sent (the JSON, the results' HTML), so a repeat costs no encoding.
///
/// The index's version is its files' stamps (size, time in ns, inode) of the database and its
/// write-ahead log: every commit changes the log's, every checkpoint the database's, whoever
/// wrote (`yiana index`, the watcher, this server). They are read before the search runs, so an
/// answer is never kept under a newer version than the one it read. An answer is also dropped
/// after ``lifetime`` whatever the stamps say (two commits of the same size within one clock
/// tick of the file system would leave them alike).
final class SearchService: @unchecked Sendable {
    struct Answer {
        let hits: [SearchHit]
        /// What the library holds that the index has not seen; nil when nothing or not known.
        let stale: IndexFreshness.Staleness?
    }

    /// The form an answer is kept in, one per route that sends it.
    enum Form: Hashable {
        case json, html
    }

    private struct Key: Hashable {
        let form: Form
        let query: String
        let tags: [String]
        let folder: String?
        let since: Date?
        let until: Date?
        let limit: Int
        let sort: BrowseQuery.Sort?
        let pages: Int
        let document: String?
        let exact: Bool
    }

    private struct Kept {
        let body: String
        let stale: IndexFreshness.Staleness?
        let version: [FileStamp?]
        let made: TimeInterval
        var used: UInt64
    }

    let index: IndexHandle
    let library: Library
    let capacity: Int
    let lifetime: TimeInterval
    private let lock = NSLock()
    private var kept: [Key: Kept] = [:]
    /// The bytes of the kept answers, at most ``byteLimit``.
    private var bytes = 0
    let byteLimit = 16 << 20
    private var uses: UInt64 = 0
    private var staleness: (version: [FileStamp?], checked: TimeInterval, value: IndexFreshness.Staleness?)?
    /// The library's outline, kept while the index file is the same version.
    private var keptOutline: (version: [FileStamp?], made: TimeInterval, value: LibraryOutline)?

    /// The library's folders and tags with their counts: from the index, or as kept while the
    /// index has not changed (a GROUP BY over every document, on every page otherwise).
    func outline() async throws -> LibraryOutline {
        let opened = try await index.open()
        let now = ProcessInfo.processInfo.systemUptime
        guard let version = index.version else { return try await opened.outline() }
        if let kept = lock.withLock({ keptOutline }), kept.version == version, now - kept.made < lifetime { return kept.value }
        let value = try await opened.outline()
        lock.withLock { keptOutline = (version, now, value) }
        return value
    }

    init(index: IndexHandle, library: Library, capacity: Int = 256, lifetime: TimeInterval = 10) {
        self.index = index
        self.library = library
        self.capacity = capacity
        self.lifetime = lifetime
    }

    /// The answer to `search` in `form`, as `render` makes it from the hits and the index's
    /// staleness (an empty query has no hits), or as it was kept.
    /// - Throws: 503 when there is no index, 400 for a query the index cannot take.
    func answer(_ search: SearchRequest, as form: Form, render: (Answer) throws -> String) async throws -> String {
        let opened = try await index.open()
        let now = ProcessInfo.processInfo.systemUptime
        guard let version = index.version else {
            // A database on a server: other machines change it unseen, so no answer is kept (the
            // staleness check, of this machine's folders, at most once a second).
            let stale = await staleness(opened, version: [], now: now)
            return try render(Answer(hits: search.query.isEmpty ? [] : try await search.run(on: opened), stale: stale))
        }
        let stale = await staleness(opened, version: version, now: now)
        let key = Key(form: form, query: search.query, tags: search.options.tags, folder: search.options.folder,
                      since: search.options.since, until: search.options.until, limit: search.options.limit, sort: search.options.sort,
                      pages: search.options.pages, document: search.options.document, exact: search.options.exact)
        if let body = lookUp(key, version: version, stale: stale, now: now) { return body }
        let body = try render(Answer(hits: search.query.isEmpty ? [] : try await search.run(on: opened), stale: stale))
        keep(body, stale: stale, for: key, version: version, now: now)
        return body
    }

    private func lookUp(_ key: Key, version: [FileStamp?], stale: IndexFreshness.Staleness?, now: TimeInterval) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard var entry = kept[key], entry.version == version, entry.stale == stale, now - entry.made < lifetime else { return nil }
        uses += 1
        entry.used = uses
        kept[key] = entry
        return entry.body
    }

    private func keep(_ body: String, stale: IndexFreshness.Staleness?, for key: Key, version: [FileStamp?], now: TimeInterval) {
        lock.lock()
        defer { lock.unlock() }
        uses += 1
        bytes += body.utf8.count - (kept[key]?.body.utf8.count ?? 0)
        kept[key] = Kept(body: body, stale: stale, version: version, made: now, used: uses)
        guard kept.count > capacity || bytes > byteLimit else { return }
        // Over its bounds (so many answers, so many bytes: a client asking for 200 hits of one
        // distinct query after another must not grow the server): the entries of an older
        // version of the index go first, then the least recently used (a scan of a few
        // hundred entries, only when one is added).
        kept = kept.filter { $0.value.version == version }
        bytes = kept.values.reduce(0) { $0 + $1.body.utf8.count }
        while kept.count > capacity || bytes > byteLimit, let oldest = kept.min(by: { $0.value.used < $1.value.used }) {
            bytes -= oldest.value.body.utf8.count
            kept[oldest.key] = nil
        }
    }

    /// The staleness check (a `stat` of each folder the index knows, a look into the folders that
    /// changed) at most once a second and again whenever the index changes.
    private func staleness(_ opened: any IndexStore, version: [FileStamp?], now: TimeInterval) async -> IndexFreshness.Staleness? {
        if let recent = lock.withLock({ staleness }), recent.version == version, now - recent.checked < 1 { return recent.value }
        let value = (try? await IndexFreshness.check(library, index: opened)).flatMap { $0?.isEmpty == false ? $0 : nil }
        lock.withLock { staleness = (version, now, value) }
        return value
    }
}

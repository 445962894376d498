import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceLifecycle
import Synchronization
import YianaLibrary
import YianaSearch
import YianaSync
import YianaSystem
import YianaWatch

/// What the pages of one library follow without reloading: the index's version (a new
/// arrival indexed), the number of conflict copies (the count in the navigation), the job
/// that runs; and, when no watcher runs on the library, the server's own scan that keeps the
/// index up to date while a page listens.
final class Live: @unchecked Sendable {
    // @unchecked: the counts and flags are touched only under `lock`.
    let library: Library
    let index: IndexHandle
    let jobs: Jobs
    /// False on a read-only server: it writes nothing, the index included.
    let mayScan: Bool
    private let lock = NSLock()
    private var conflicts: (count: Int, at: TimeInterval, version: String)?
    private var scanning = false
    private var counting = false
    private var scanned: TimeInterval = -.infinity

    /// Seconds between two of the server's own scans while a page listens.
    static let scanInterval: TimeInterval = 10

    init(library: Library, index: IndexHandle, jobs: Jobs, mayScan: Bool) {
        self.library = library
        self.index = index
        self.jobs = jobs
        self.mayScan = mayScan
        Self.registry.withLock { $0[library.root.path] = self }
        countInBackground(version: "")
    }

    /// The pages' header reads the count from here (``HTML/page(title:library:body:script:refresh:)``).
    private static let registry = Mutex<[String: Live]>([:])

    static func of(_ library: Library) -> Live? { registry.withLock { $0[library.root.path] } }

    /// The library's conflict copies (files a sync program named as such, as the health
    /// page's `in-conflict`), counted again when the index changed (at most every 2 s) or
    /// every 30 s: a walk of the folder's names, no document opened.
    func conflictCount(version: String) -> Int {
        let now = ProcessInfo.processInfo.systemUptime
        if let kept = lock.withLock({ conflicts }), now - kept.at < (kept.version == version ? 30 : 2) { return kept.count }
        return recount(version: version)
    }

    /// For a page's header, which must never wait for a walk of a large library: the last
    /// count (nil until the first, which the server starts as it starts), counted again in the
    /// background when 30 s old.
    func shownConflictCount() -> Int? {
        let now = ProcessInfo.processInfo.systemUptime
        let kept = lock.withLock { conflicts }
        if kept.map({ now - $0.at >= 30 }) ?? true { countInBackground(version: kept?.version ?? "") }
        return kept?.count
    }

    private func countInBackground(version: String) {
        let start = lock.withLock { () -> Bool in
            guard !counting else { return false }
            counting = true
            return true
        }
        guard start else { return }
        Task.detached {
            _ = self.recount(version: version)
            self.lock.withLock { self.counting = false }
        }
    }

    private func recount(version: String) -> Int {
        let count = ((try? LibraryScanner.scan(library))?.items ?? []).filter { ConflictName(fileName: $0.name).isSyncConflict }.count
        lock.withLock { conflicts = (count, ProcessInfo.processInfo.systemUptime, version) }
        return count
    }

    /// The server's own scan: when no watcher runs on the library (its heartbeat says so) and
    /// the library has an index, `yiana index`'s run every ``scanInterval`` seconds, one at a
    /// time however many pages listen. What it indexes changes the index's version, which
    /// every page hears.
    func scanIfNoWatcher() async {
        guard mayScan, index.location.mayExist, WatchHealth.file(for: library).load()?.isRunning != true else { return }
        let now = ProcessInfo.processInfo.systemUptime
        let due = lock.withLock { () -> Bool in
            guard !scanning, now - scanned >= Self.scanInterval else { return false }
            scanning = true
            return true
        }
        guard due else { return }
        defer { lock.withLock { scanning = false; scanned = ProcessInfo.processInfo.systemUptime } }
        do {
            var options = IndexOptions(jobs: 1)
            options.listEveryDocument = false
            switch index.location {
            case .file:
                guard let store = try await index.location.openExisting(library, writable: true) else { return }
                _ = try await store.closing { try await Indexer(library: library, index: store).run(options: options) }
            case .server:
                // The server's shared connection: not closed.
                _ = try await Indexer(library: library, index: try await index.open()).run(options: options)
            }
        } catch {
            FileHandle.standardError.write(Data("yiana serve: the library's own scan could not update the index (\(index.location)): \(error)\n".utf8))
        }
    }
}

/// `/events`: server-sent events for the pages of one library. `changed` when the index
/// changes (checked every second); `conflicts` with the number of conflict copies, first
/// thing (the page was drawn with a count that may have moved since, counted again by another
/// page's connection or a page's header) and whenever it changes; `job` with the job's status
/// (as `/api/jobs`) when it moves; a comment every 15 s keeps the connection. Ends at once when the server stops, else after ten minutes (the
/// browser reconnects).
struct LiveRoutes {
    let live: Live

    func add(to router: some RouterMethods<ServeContext>) {
        let live = self.live
        router.get("/events") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: ResponseBody { writer in
                try await writer.write(ByteBuffer(string: "retry: 2000\n\n"))
                var version = await PageRoutes.indexVersion(live.index)
                var conflicts: Int?  // the first count sent at once, as the job's status
                var job: Int?  // the first status sent at once: the page may have been drawn before it moved
                for second in 1...600 where !Task.isShuttingDownGracefully && !Task.isCancelled {
                    try await Task.sleep(nanoseconds: 1_000_000_000)
                    var events = ""
                    let now = await PageRoutes.indexVersion(live.index)
                    if now != version {
                        events += "event: changed\ndata: \(second)\n\n"
                        version = now
                    }
                    if second % 2 == 1 {
                        let count = live.conflictCount(version: version)
                        if count != conflicts { events += "event: conflicts\ndata: \(count)\n\n" }
                        conflicts = count
                    }
                    if let status = live.jobs.current, status.serial != job {
                        let json = String(decoding: try JSONEncoder().encode(status), as: UTF8.self)
                        events += "event: job\ndata: \(json)\n\n"
                        job = status.serial
                    }
                    if second % 15 == 0 && events.isEmpty { events = ": alive\n\n" }
                    if !events.isEmpty { try await writer.write(ByteBuffer(string: events)) }
                    if second == 2 || second % 5 == 0 { Task { await live.scanIfNoWatcher() } }
                }
                try await writer.finish(nil)
            })
        }
    }
}

extension HTML {
    /// Every page's script: one connection to `/events` that the page's parts follow (the
    /// count in the navigation, a job's progress; the list, through `yiana:changed`). Closed
    /// when the page is left: a page the browser keeps for its Back button (the back/forward
    /// cache) would otherwise keep its connection, and after six pages every request to the
    /// server waited (a browser opens at most six connections to one server) for a minute.
    /// Opened again when such a page is shown again.
    static let liveScript = """
        (() => {
          if (!window.EventSource) return;
          let events = null;
          addEventListener("pagehide", () => { if (events) events.close(); events = null; });
          addEventListener("pageshow", event => { if (event.persisted || !events) listen(); });
          const listen = () => {
            events = new EventSource(document.body.dataset.base + "/events");
            events.addEventListener("changed", () => document.dispatchEvent(new Event("yiana:changed")));
            events.addEventListener("conflicts", event => {
              const count = parseInt(event.data, 10), badge = document.getElementById("conflict-count");
              if (!badge || isNaN(count)) return;
              badge.textContent = count > 0 ? String(count) : "";
              badge.hidden = count === 0;
              badge.setAttribute("aria-label", count + " conflict cop" + (count === 1 ? "y" : "ies"));
            });
            events.addEventListener("job", event => {
              const job = JSON.parse(event.data), box = document.getElementById("job");
              if (!box || box.dataset.serial === String(job.serial)) return;
              if (job.state !== "running" || box.dataset.state !== "running") { location.reload(); return; }
              box.dataset.serial = String(job.serial);
              const bar = box.querySelector("progress"), said = box.querySelector("[role=status]");
              if (bar) { bar.max = Math.max(1, job.total); bar.value = job.done; bar.textContent = job.done + " of " + job.total; }
              if (said) said.textContent = "Running: " + job.done + " of " + job.total + " documents.";
            });
          };
          listen();
        })();
        """
}

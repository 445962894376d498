import ArgumentParser
import Foundation
import YianaLibrary
import YianaNotify
import YianaPostgres
import YianaServe
import YianaSystem
import YianaWatch

extension Yiana {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the library in a browser: search, documents, conflicts, import, the library's health.",
            discussion: """
                Pages rendered on the server (every value escaped, nothing loaded from \
                elsewhere, a strict Content-Security-Policy) and a JSON API under /api/ \
                described by /api/openapi.json: /api/search (q, tag, folder, since, until, \
                limit, as `yiana search` takes them) and /api/health (what `yiana status` \
                summarises). It calls the same library code as the commands.

                It listens on 127.0.0.1:8484 unless told otherwise and then answers to \
                loopback names only. Any other address needs a password: make its file once \
                with --set-password FILE (it keeps an scrypt hash, never the password), then \
                pass --password-file FILE; every page then asks to log in (a session cookie: \
                HttpOnly, SameSite=Strict, Secure behind an HTTPS proxy), wrong passwords are \
                rate-limited. For HTTPS put a reverse proxy in front (docs/BROWSER.md: an nginx example). \
                Every change (restore, resolve, download, import) carries the page's form \
                token; --read-only refuses them all. Ctrl-C (SIGINT) or SIGTERM stops it.

                Examples:
                  yiana serve --library ~/Yiana
                  yiana serve --listen 127.0.0.1:0      # any free port; the address is printed
                  yiana serve --watch                   # and keep the index current as files arrive
                  curl 'http://127.0.0.1:8484/api/search?q=invoice&limit=5'
                  yiana serve --set-password ~/.config/yiana/serve-password
                  yiana serve --listen 0.0.0.0:8484 --password-file ~/.config/yiana/serve-password
                """
        )

        @Option(name: .customLong("library"), help: ArgumentHelp(
            "A library folder (repeat for several: each is served under /NAME/, its folder's name, and / lists them).",
            discussion: "Default: $YIANA_LIBRARY, else the current folder.", valueName: "dir"))
        var libraries: [String] = []
        @OptionGroup var indexOptions: IndexOptionGroup

        @Option(help: ArgumentHelp("Where to listen: HOST:PORT (a loopback host; port 0 takes any free one).", valueName: "host:port"))
        var listen = "127.0.0.1:8484"

        @Flag(help: "Refuse every request that would change the library.")
        var readOnly = false

        @Option(help: ArgumentHelp("The largest PDF the import page takes, in MB.", valueName: "MB"))
        var maxImport = 512

        @Option(help: ArgumentHelp("The password file (made with --set-password): every request then needs a login. Needed for an address beyond loopback.", valueName: "file"))
        var passwordFile: String?

        @Flag(help: "Also watch the library in this process, as `yiana watch` does (the index kept current, problems logged, its health on the health page), so the pages stay current. For OCR or letters to inject, run `yiana watch --ocr --inject` instead, beside the server.")
        var watch = false

        @Option(help: ArgumentHelp("Ask for a new password (or read one line from stdin), write its hash to this file and exit.", valueName: "file"))
        var setPassword: String?

        @OptionGroup var notify: NotifyOptions

        func validate() throws {
            guard libraries.count <= 1 || indexOptions.path == nil || PostgresLocation.isURL(indexOptions.path ?? "") else {
                throw ValidationError("--index names one library's index file: with several libraries each uses its own default index (or name a postgres:// database, which holds them all).")
            }
            let (host, _) = try Self.address(listen)
            guard (1...65536).contains(maxImport) else { throw ValidationError("--max-import \(maxImport): a size in MB from 1 to 65536.") }
            guard ServeOptions.isLoopback(host) || passwordFile != nil || setPassword != nil else {
                throw ValidationError("--listen \(listen): \(host) is not a loopback address, and a server others can reach needs a password: "
                                      + "make one with `yiana serve --set-password FILE`, then add --password-file FILE.")
            }
        }

        static func address(_ text: String) throws -> (String, Int) {
            do { return try ServeOptions.parseListen(text) } catch { throw ValidationError(error.description) }
        }

        func run() async throws {
            if let setPassword { return try PasswordPrompt.write(to: setPassword) }
            let opened = try (libraries.isEmpty ? [nil] : libraries.map { Optional($0) }).map { root in
                do { return try Library.resolve(explicit: root) } catch let error as LibraryError { throw ValidationError(error.description) }
            }
            var options = ServeOptions(libraries: opened)
            if indexOptions.isNamed, opened.count == 1 || indexOptions.isServer { options.index = try indexOptions.resolve(for: opened[0]) }
            (options.host, options.port) = try Self.address(listen)
            options.readOnly = readOnly
            options.importLimit = maxImport << 20
            do { options.password = try passwordFile.map(PasswordHash.init(file:)) } catch let error as ServeError { throw ValidationError(error.description) }
            let index = options.index(for: opened[0])
            let served = opened.count == 1 ? "library \(opened[0].root.path); index \(index)" : "\(opened.count) libraries, listed at /"
            let fixed = options
            let indexOf = { @Sendable (library: Library) in fixed.index(for: library) }
            // --watch: the watcher in this process, started once the server listens (the address
            // is the first line), stopped by the same SIGINT/SIGTERM (each has its own handler).
            guard watch || (notify.urls.isEmpty && notify.heartbeat == nil) else {
                throw ValidationError("--notify and --heartbeat tell what the watcher sees: add --watch (or give them to `yiana watch`).")
            }
            let checked = watch ? try notify.targets() : nil
            let notifiers = Dictionary(opened.map { ($0.root.path, notify.notifier(for: $0, checked)) }, uniquingKeysWith: { first, _ in first })
            let heartbeats = Dictionary(try opened.map { ($0.root.path, watch ? try notify.heartbeat(for: $0) : nil) }, uniquingKeysWith: { first, _ in first })
            let digest = try notify.digestSchedule()
            let stop = watch ? try StopSignals() : nil
            let printer = EventPrinter(json: false, several: opened.count > 1)
            let watching = StartedLater()
            let app = YianaServer.application(options) { url in
                // Unbuffered: a script or test reading the address gets it at once.
                FileHandle.standardOutput.write(Data("yiana serve: \(url)  (\(served)); Ctrl-C stops it\n".utf8))
                guard let stop else { return }
                for library in opened {
                    watching.start {
                        var watchOptions = WatchOptions(index: indexOf(library))
                        watchOptions.notifier = notifiers[library.root.path] ?? nil
                        watchOptions.heartbeat = heartbeats[library.root.path] ?? nil
                        watchOptions.digest = digest
                        let watcher = try await LibraryWatcher(library: library, options: watchOptions) { printer.print($0, library: library.root.lastPathComponent) }
                        try await watcher.run(wake: stop.fd) { stop.requested }
                    }
                }
            }
            try await app.runService()
            try await watching.finish()
        }
    }
}

/// Tasks started from a callback (the server's "listening"), awaited later.
final class StartedLater: @unchecked Sendable {
    // @unchecked: `tasks` is guarded by `lock`.
    private let lock = NSLock()
    private var tasks: [Task<Void, Error>] = []

    func start(_ work: @escaping @Sendable () async throws -> Void) {
        lock.withLock { tasks.append(Task { try await work() }) }
    }

    func finish() async throws {
        for task in lock.withLock({ tasks }) { try await task.value }
    }
}

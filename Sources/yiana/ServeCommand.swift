import ArgumentParser
import Foundation
import YianaLibrary
import YianaServe

extension Yiana {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "serve",
            abstract: "Serve the library in a browser: search, and the library's health.",
            discussion: """
                Pages rendered on the server (every value escaped, nothing loaded from \
                elsewhere, a strict Content-Security-Policy) and a JSON API under /api/ \
                described by /api/openapi.json: /api/search (q, tag, folder, since, until, \
                limit, as `yiana search` takes them) and /api/health (what `yiana status` \
                summarises). It calls the same library code as the commands.

                It listens on 127.0.0.1:8484 unless told otherwise, and only on a loopback \
                address (127.x.x.x, ::1, localhost): this version has no login, so another \
                address is refused. Ctrl-C (SIGINT) or SIGTERM stops it.

                Examples:
                  yiana serve --library ~/Yiana
                  yiana serve --listen 127.0.0.1:0      # any free port; the address is printed
                  curl 'http://127.0.0.1:8484/api/search?q=invoice&limit=5'
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var indexOptions: IndexOptionGroup

        @Option(help: ArgumentHelp("Where to listen: HOST:PORT (a loopback host; port 0 takes any free one).", valueName: "host:port"))
        var listen = "127.0.0.1:8484"

        @Flag(help: "Refuse every request that would change the library.")
        var readOnly = false

        func validate() throws {
            let (host, _) = try Self.address(listen)
            guard ServeOptions.isLoopback(host) else {
                throw ValidationError("--listen \(listen): \(host) is not a loopback address. This version has no login, so it serves this machine only "
                                      + "(127.0.0.1, ::1, localhost); put a reverse proxy with its own authentication in front to reach it from elsewhere.")
            }
        }

        static func address(_ text: String) throws -> (String, Int) {
            do { return try ServeOptions.parseListen(text) } catch { throw ValidationError(error.description) }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            var options = ServeOptions(library: library)
            options.indexPath = indexOptions.path.map { _ in indexOptions.location(for: library) }
            (options.host, options.port) = try Self.address(listen)
            options.readOnly = readOnly
            let index = options.index
            let app = YianaServer.application(options) { url in
                // Unbuffered: a script or test reading the address gets it at once.
                FileHandle.standardOutput.write(Data("yiana serve: \(url)  (library \(library.root.path); index \(index)); Ctrl-C stops it\n".utf8))
            }
            try await app.runService()
        }
    }
}

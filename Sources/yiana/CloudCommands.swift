import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Cloud: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Attach the library to a simulated cloud store.",
            subcommands: [Init.self]
        )

        struct Init: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Attach the library to the cloud store in DIR (created if needed).",
                discussion: """
                    A cloud store is a folder that behaves like iCloud Drive toward every \
                    library attached to it: several libraries attached to one store act as \
                    several devices of one user. The attachment is kept in .yiana/cloud.json.

                    Example:
                      yiana cloud init --library ~/laptop ~/cloud --device laptop
                    """
            )

            @OptionGroup var libraryOptions: LibraryOptions

            @Option(help: "This device's name (default: the host name).")
            var device: String = ProcessInfo.processInfo.hostName

            @Argument(help: ArgumentHelp("The cloud store folder.", valueName: "dir"))
            var store: String

            func run() async throws {
                let library = try libraryOptions.open()
                let attachment = try CloudAttachment.attach(library, store: URL(fileURLWithPath: store), device: device)
                print("attached \(library.root.path) to the cloud store \(attachment.store) as device \"\(attachment.device)\".")
            }
        }
    }

    struct Evict: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Evict documents to the cloud, leaving placeholders.",
            discussion: """
                The cloud store is given each document's current bytes first; then the local \
                file is replaced by an iCloud stub, .Name.yianazip.icloud (or, with \
                --dataless, the macOS 14 way: a file of the same name and size without data). \
                Damaged documents are not evicted; one evicted already is left as it is.

                Example:
                  yiana evict "Letters/Bank statement" Scan
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Evict the macOS 14 way: keep the name and size, drop the data.")
        var dataless = false

        @Argument(help: ArgumentHelp("The documents.", valueName: "doc"))
        var documents: [String]

        func validate() throws {
            guard !documents.isEmpty else { throw ValidationError("name at least one document to evict.") }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            var failed = false
            for argument in documents {
                do {
                    if case .placeholder(_, let document) = library.locate(argument) {
                        // Evicting what is evicted already is done, not an error (a rerun after an interruption).
                        print("already evicted \(library.relativePath(of: document) ?? document.path)")
                        continue
                    }
                    let url = try libraryOptions.document(argument, in: library)
                    try Eviction(library: library).evict(url, dataless: dataless)
                    print("evicted \(library.relativePath(of: url) ?? url.path)")
                } catch {
                    Output.error("failed   \(argument): \(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode.failure }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show each document's download status.",
            discussion: """
                Apple's statuses: notDownloaded (only a placeholder is here), downloaded (the \
                local copy is older than the cloud's), current (the newest version is local); \
                beside them whether a download is under way (with its progress), the last \
                download error, changes not uploaded yet, and conflicts.

                Examples:
                  yiana status
                  yiana status --json Letters
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print the status as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("Documents or folders (default: the whole library).", valueName: "path"))
        var paths: [String] = []

        func run() async throws {
            let library = try libraryOptions.open()
            let report = try await CloudStore.status(of: library, paths: paths.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 })
            if json { return try Output.json(report) }
            for document in report.documents {
                var notes: [String] = []
                if document.isDownloading, let progress = document.progress { notes.append("downloading \(Int(progress * 100))%") }
                if let error = document.downloadError { notes.append("error: \(error)") }
                if document.uploadPending { notes.append("changes not uploaded") }
                if document.inConflict { notes.append("in conflict") }
                print("\(document.status.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(document.path)\(notes.isEmpty ? "" : "  (\(notes.joined(separator: "; ")))")")
            }
            let dates = DateFormatter()
            dates.dateFormat = "yyyy-MM-dd HH:mm:ss"
            print("device \(report.device); last sync: \(report.lastSync.map { dates.string(from: $0) } ?? "never")")
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download evicted documents from the simulated cloud.",
            discussion: """
                The transfer is simulated with the bandwidth and latency given, resumes from \
                what arrived before, and is verified (ZIP structure, every CRC, the cloud's \
                SHA-256) before the document is put in place; only then is the placeholder \
                removed. Faults can be injected, repeatably from --seed, with the flags below \
                or a JSON file (--faults) such as {"flakiness": 0.3, "seed": 7}. Transient \
                failures are retried with capped exponential backoff and jitter.

                Examples:
                  yiana download "Letters/Bank statement"
                  yiana download --all --bandwidth 2MB --latency 0.2 --flaky 0.3 --seed 7
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Download every evicted document.")
        var all = false

        @Option(help: ArgumentHelp("Bytes per second, e.g. 500KB or 2MB (default: unlimited).", valueName: "rate"))
        var bandwidth: String?

        @Option(help: "Seconds before each attempt's first byte.")
        var latency: Double = 0

        @Flag(help: "Simulate being offline.")
        var offline = false

        @Option(help: ArgumentHelp("Probability (0…1) that an attempt breaks part-way.", valueName: "p"))
        var flaky: Double = 0

        @Flag(help: "Simulate an exceeded storage quota.")
        var quotaExceeded = false

        @Flag(help: "Simulate a damaged copy in the cloud (it is caught, never placed).")
        var damaged = false

        @Option(help: "Seed for the injected faults and the jitter.")
        var seed: UInt64 = 1

        @Option(help: ArgumentHelp("A JSON file of faults (offline, flakiness, quotaExceeded, damaged, seed).", valueName: "file"))
        var faults: String?

        @Option(help: "Attempts per document before giving up.")
        var attempts = 8

        @Argument(help: ArgumentHelp("The documents.", valueName: "doc"))
        var documents: [String] = []

        func validate() throws {
            guard all != !documents.isEmpty else { throw ValidationError("name documents to download, or --all.") }
            guard (0...1).contains(flaky) else { throw ValidationError("--flaky takes a probability from 0 to 1.") }
            guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1.") }
            if let bandwidth { guard Self.rate(bandwidth) != nil else { throw ValidationError("--bandwidth \(bandwidth): use a number of bytes per second, e.g. 500KB or 2MB.") } }
        }

        static func rate(_ text: String) -> Double? {
            let units: [(String, Double)] = [("GB", 1e9), ("MB", 1e6), ("KB", 1e3), ("B", 1)]
            for (suffix, factor) in units where text.uppercased().hasSuffix(suffix) {
                return Double(text.dropLast(suffix.count)).map { $0 * factor }
            }
            return Double(text)
        }

        func run() async throws {
            let library = try libraryOptions.open()
            var downloader = Downloader(library: library)
            downloader.transfer = TransferSettings(bytesPerSecond: bandwidth.flatMap(Self.rate), latency: latency)
            downloader.retry = RetryPolicy(attempts: attempts)
            if let faults {
                guard let data = FileManager.default.contents(atPath: faults),
                      let settings = try? JSONDecoder().decode(FaultSettings.self, from: data) else {
                    throw ValidationError("--faults \(faults): not a readable JSON file of fault settings.")
                }
                downloader.faults = settings
            } else {
                downloader.faults.offline = offline
                downloader.faults.flakiness = flaky
                downloader.faults.quotaExceeded = quotaExceeded
                downloader.faults.damaged = damaged
                downloader.faults.seed = seed
            }
            let targets: [URL]
            if all {
                targets = try LibraryScanner.scan(library.root).filter { $0.kind == .placeholder }.map(\.documentURL)
            } else {
                targets = try documents.map { argument in
                    switch library.locate(argument) {
                    case .placeholder(_, let document): return document
                    case .document(let url): throw CommandFailure("\(library.relativePath(of: url) ?? url.path) is already downloaded.")
                    case .notFound: throw CommandFailure("no document \"\(argument)\" here, evicted or not.")
                    }
                }
            }
            var failed = false
            for (number, url) in targets.enumerated() {
                let name = library.relativePath(of: url) ?? url.path
                let bar = ProgressBar(label: "Downloading \(number + 1)/\(targets.count)")
                do {
                    let tries = try downloader.download(url) { bar.update(completed: Int($0 * 1000), total: 1000, current: name) }
                    bar.finish()
                    print("downloaded \(name)\(tries > 1 ? " (after \(tries) attempts)" : "")")
                } catch {
                    bar.finish()
                    Output.error("failed     \(name): \(error)")
                    failed = true
                }
            }
            if failed { throw ExitCode.failure }
        }
    }
}

extension Yiana {
    struct SyncCommand: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sync",
            abstract: "Upload local changes to the simulated cloud and pull remote ones.",
            discussion: """
                A document changed on this device and another since the last sync keeps this \
                device's version; the other arrives as a conflict copy named as iCloud names \
                them ("Name 2"), for `yiana conflicts` to resolve. Deletions travel as \
                tombstones; a document deleted elsewhere is kept in the version store before it \
                is removed here, and an edit wins over a deletion it had not seen. Evicted \
                documents stay evicted.

                Example:
                  yiana sync --library ~/laptop
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print the report as JSON.")
        var json = false

        func run() async throws {
            let library = try libraryOptions.open()
            let report = try Sync(library: library).run()
            if json {
                try Output.json(report)
            } else {
                for path in report.uploaded { print("uploaded   \(path)") }
                for path in report.pulled { print("pulled     \(path)") }
                for (path, copy) in report.conflictCopies.sorted(by: { $0.key < $1.key }) { print("conflict   \(path): the other device's version is \(copy)") }
                for path in report.deletedInCloud { print("deleted in the cloud  \(path)") }
                for path in report.deletedHere { print("deleted here (kept in the version store)  \(path)") }
                for (path, error) in report.failed.sorted(by: { $0.key < $1.key }) { Output.error("failed     \(path): \(error)") }
                print("\(report.uploaded.count) uploaded, \(report.pulled.count) pulled, \(Output.count(report.conflictCopies.count, "conflict")), "
                      + "\(Output.count(report.deletedInCloud.count + report.deletedHere.count, "deletion")), \(report.failed.count) failed.")
            }
            if !report.failed.isEmpty { throw ExitCode.failure }
        }
    }
}

import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Download: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "download",
            abstract: "Download evicted documents from the simulated cloud.",
            discussion: """
                The transfer is simulated with the bandwidth and latency given, resumes from \
                what arrived before, and is verified (ZIP structure, every CRC, the cloud's \
                SHA-256) before the document is put in place; only then is the placeholder \
                removed. Faults can be injected, repeatably from --seed, with the flags below \
                or a JSON file (--faults) such as {"flakiness": 0.3, "seed": 7}. Transient \
                failures are retried with capped exponential backoff and jitter.

                Exit codes: 0 every document arrived; 1 some did not (the others did); 2 the \
                command line is wrong.

                Examples:
                  yiana download "Letters/Bank statement"
                  yiana download --all --json | jq '.failed[].document'
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

        @Flag(help: "Print the report as JSON.")
        var json = false

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
                downloader.faults = try FaultSettings.load(faults)
            } else {
                downloader.faults.offline = offline
                downloader.faults.flakiness = flaky
                downloader.faults.quotaExceeded = quotaExceeded
                downloader.faults.damaged = damaged
                downloader.faults.seed = seed
            }
            let targets: [URL]
            do { targets = try downloader.targets(named: all ? nil : documents) } catch let error as DocumentLookupError {
                throw CommandFailure(error.description)
            }
            let bar = ProgressBar(label: "Downloading")
            let report = downloader.download(targets) { number, path, fraction in
                bar.update(completed: number * 1000 + Int(fraction * 1000), total: targets.count * 1000, current: path)
            }
            bar.finish()
            if json {
                try Output.json(report)
            } else {
                for item in report.downloaded { print("downloaded \(item.path)\(item.attempts > 1 ? " (after \(item.attempts) attempts)" : "")") }
                for failure in report.failed { Output.error("failed     \(failure.document): \(failure.error)") }
            }
            if !report.failed.isEmpty { throw ExitCode.failure }
        }
    }
}

import Foundation
import YianaArchive
import YianaLibrary
import YianaTestSupport
import YianaSystem

/// A mutation fuzzer for the document reader: takes valid documents, damages them in the
/// ways files get damaged (and hostile ones), and has the reader open, verify and read them.
/// Half the inputs are damaged byte by byte; the other half are rebuilt with a damaged
/// structure (``structural(_:_:)``): bytes inserted before the end record, appended data
/// behind a copied end record, deflated entries with huge (or lying) inflated sizes;
/// every fourth input also goes through `verify` and a dry run of `repair` (which reads the
/// bytes its own way to salvage entries, and writes and checks the result in scratch space).
/// Any error is fine; a crash or a hang is not. The input of each iteration is written to
/// WORK/current.yianazip first, so a crash leaves its reproducer behind.
struct ReaderFuzzer {
    let corpus: URL
    let work: URL
    let seed: UInt64

    func run(seconds: Double) async -> Int32 {
        let samples = ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [])
            .filter { $0.hasSuffix(".yianazip") }.sorted()
            .compactMap { FileManager.default.contents(atPath: corpus.appendingPathComponent($0).path) }
        guard !samples.isEmpty else {
            FileHandle.standardError.write(Data("fuzz-reader: no .yianazip files in \(corpus.path)\n".utf8))
            return 2
        }
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        let input = work.appendingPathComponent("current.yianazip")
        var random = SeededGenerator(seed: seed)
        let deadline = Date().addingTimeInterval(seconds)
        let watchdog = Watchdog(limit: 10, input: input)
        var iterations = 0, opened = 0, verified = 0, repairs = 0, repairable = 0
        let library = try? Library(root: work)
        var dryRun = RepairOptions()
        dryRun.dryRun = true
        dryRun.settle = 0  // each input was written just now
        let parts = samples.compactMap(Parts.init)
        var structural = 0
        while Date() < deadline {
            var bytes = Array(samples[Int(random.next() % UInt64(samples.count))])
            if random.next() % 2 == 0, !parts.isEmpty {
                bytes = self.structural(parts[Int(random.next() % UInt64(parts.count))], &random)
                structural += 1
                if random.next() % 4 == 0 { mutate(&bytes, &random) }
            } else {
                for _ in 0..<(1 + random.next() % 4) { mutate(&bytes, &random) }
            }
            bytes.withUnsafeMutableBytes { raw in  // no copy of the input on the way
                let data = Data(bytesNoCopy: raw.baseAddress ?? UnsafeMutableRawPointer(bitPattern: 1)!, count: raw.count, deallocator: .none)
                _ = FileManager.default.createFile(atPath: input.path, contents: data)
            }
            watchdog.begin(iterations)
            if let reader = try? DocumentReader(path: input.path) {
                opened += 1
                _ = try? reader.metadata()
                if (try? reader.verifyContents()) != nil { verified += 1 }
                _ = try? reader.pdfBytes()
                _ = reader.contentKey
            }
            if iterations % 4 == 0, let library {
                let report = await Repairer(library: library).repair([input], options: dryRun)
                repairs += 1
                repairable += report.repaired.count
            }
            // The next input is made untimed: building a 256 MiB bomb bit by bit is the harness's
            // work (seconds in a debug build under load), not the reader's.
            watchdog.idle()
            iterations += 1
        }
        watchdog.stop()
        print("fuzz-reader: seed \(seed), \(iterations) inputs in \(Int(seconds)) s (\(structural) with a damaged structure), \(opened) opened, \(verified) verified, \(repairs) through verify and repair --dry-run (\(repairable) repairable); 0 crashes, 0 hangs")
        return 0
    }

    /// A sample's metadata and PDF, to rebuild archives of any structure from.
    struct Parts {
        let metadata: [UInt8]
        let pdf: [UInt8]?

        init?(_ data: Data) {
            let path = NSTemporaryDirectory() + "fuzz-part-\(UUID().uuidString)"
            guard FileManager.default.createFile(atPath: path, contents: data) else { return nil }
            defer { Sys.removeIfPresent(path) }
            guard let reader = try? DocumentReader(path: path), let metadata = try? reader.metadataData() else { return nil }
            var pdf: [UInt8]? = nil
            if reader.pdf != nil {
                var bytes: [UInt8] = []
                guard (try? reader.readPDF { bytes.append(contentsOf: $0) }) != nil else { return nil }
                pdf = bytes
            }
            self.metadata = Array(metadata)
            self.pdf = pdf
        }
    }

    /// An archive of `parts` with a damaged structure.
    func structural(_ parts: Parts, _ random: inout SeededGenerator) -> [UInt8] {
        var builder = ZipBuilder.document(metadata: String(decoding: parts.metadata, as: UTF8.self), pdf: parts.pdf)
        func junk(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        switch random.next() % 5 {
        case 0:  // bytes inserted before the end record (the central directory still found)
            var bytes = builder.build()
            bytes.insert(contentsOf: junk(1 + Int(random.next() % 4096)), at: bytes.count - 22)
            return bytes
        case 1:  // appended data, then a copy of the end record
            var bytes = builder.build()
            let end = Array(bytes[(bytes.count - 22)...])
            bytes += junk(Int(random.next() % 4096))
            bytes += end
            return bytes
        case 2, 3:  // a deflated entry inflating to up to 256 MiB (~159:1), its sizes and CRC true or lying
            let index = Int(random.next() % UInt64(builder.entries.count))
            let name = builder.entries[index].name
            let prefix = name == "content.pdf" ? Array("%PDF-1.4\n".utf8) : Array("{\"title\":\"".utf8)
            let count = Int(random.next() % (random.next() % 2 == 0 ? 1 << 28 : 1 << 20))
            var entry = ZipBuilder.Entry(name: name, data: Deflate.stream(prefix, repeatingLast: count))
            entry.method = 8
            entry.crc = count < 1 << 20 ? Deflate.crc(prefix, repeatingLast: count) : UInt32(truncatingIfNeeded: random.next())
            let declared: [UInt32] = [UInt32(truncatingIfNeeded: prefix.count + count), 0, UInt32(prefix.count),
                                      0xFFFF_FFFF, UInt32(truncatingIfNeeded: random.next())]
            entry.uncompressedSize = declared[Int(random.next() % (random.next() % 2 == 0 ? 1 : UInt64(declared.count)))]
            builder.entries[index] = entry
            return builder.build()
        default:  // a deflated entry holding the real bytes (literals only): the streaming path
            let index = Int(random.next() % UInt64(builder.entries.count))
            let original = builder.entries[index]
            builder.entries[index] = .deflated(original.name, original.data)
            return builder.build()
        }
    }

    private func mutate(_ bytes: inout [UInt8], _ random: inout SeededGenerator) {
        guard !bytes.isEmpty else { bytes = [0x50, 0x4B, 0x03, 0x04]; return }
        let at = Int(random.next() % UInt64(bytes.count))
        switch random.next() % 7 {
        case 0:  // flip bits
            bytes[at] ^= UInt8(1 << (random.next() % 8))
        case 1:  // overwrite a range with noise
            let length = min(bytes.count - at, 1 + Int(random.next() % 64))
            for i in at..<(at + length) { bytes[i] = UInt8(truncatingIfNeeded: random.next()) }
        case 2:  // truncate
            bytes.removeLast(bytes.count - at)
        case 3:  // insert noise
            bytes.insert(contentsOf: (0..<(1 + random.next() % 32)).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: at)
        case 4:  // duplicate a chunk
            let length = min(bytes.count - at, 1 + Int(random.next() % 256))
            bytes.insert(contentsOf: bytes[at..<(at + length)], at: Int(random.next() % UInt64(bytes.count)))
        case 5:  // a 16- or 32-bit field near a ZIP signature set to an extreme
            let signatures: [[UInt8]] = [[0x50, 0x4B, 0x01, 0x02], [0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x05, 0x06]]
            let signature = signatures[Int(random.next() % 3)]
            if let start = (0..<max(0, bytes.count - 4)).first(where: { bytes[$0..<($0 + 4)].elementsEqual(signature) && random.next() % 3 == 0 }) {
                let field = start + 4 + Int(random.next() % 40)
                let extremes: [UInt8] = [0x00, 0xFF, 0x7F, 0x80]
                let value = extremes[Int(random.next() % 4)]
                if field < bytes.count {
                    for i in field..<min(bytes.count, field + (random.next() % 2 == 0 ? 2 : 4)) { bytes[i] = value }
                }
            }
        default:  // swap two bytes far apart
            let other = Int(random.next() % UInt64(bytes.count))
            bytes.swapAt(at, other)
        }
    }
}

/// Notices an iteration that runs too long (a hang) and stops the process, keeping its input.
final class Watchdog: @unchecked Sendable {
    // @unchecked: `current` and `since` are guarded by `lock`.
    private let lock = NSLock()
    private var current = -1
    private var since = Date()
    private var running = true

    init(limit: Double, input: URL) {
        Thread {
            while true {
                Thread.sleep(forTimeInterval: 1)
                self.lock.lock()
                let (iteration, started, running) = (self.current, self.since, self.running)
                self.lock.unlock()
                guard running else { return }
                // Only an input's iteration is timed: before the first, the process is setting up
                // (opening the library, reading the corpus), slow on a loaded machine but no hang.
                if iteration >= 0, Date().timeIntervalSince(started) > limit {
                    FileHandle.standardError.write(Data("fuzz-reader: HANG on iteration \(iteration); input kept at \(input.path)\n".utf8))
                    exit(3)
                }
            }
        }.start()
    }

    func begin(_ iteration: Int) {
        lock.lock()
        current = iteration
        since = Date()
        lock.unlock()
    }

    /// Between inputs: nothing is timed until the next ``begin(_:)``.
    func idle() {
        lock.lock()
        current = -1
        lock.unlock()
    }

    func stop() {
        lock.lock()
        running = false
        lock.unlock()
    }
}

import Foundation
import YianaArchive
import YianaLibrary

/// A mutation fuzzer for the document reader: takes valid documents, damages them in the
/// ways files get damaged (and hostile ones), and has the reader open, verify and read them;
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
        while Date() < deadline {
            var bytes = Array(samples[Int(random.next() % UInt64(samples.count))])
            for _ in 0..<(1 + random.next() % 4) { mutate(&bytes, &random) }
            _ = FileManager.default.createFile(atPath: input.path, contents: Data(bytes))
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
            iterations += 1
        }
        watchdog.stop()
        print("fuzz-reader: seed \(seed), \(iterations) inputs in \(Int(seconds)) s, \(opened) opened, \(verified) verified, \(repairs) through verify and repair --dry-run (\(repairable) repairable); 0 crashes, 0 hangs")
        return 0
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
                if Date().timeIntervalSince(started) > limit {
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

    func stop() {
        lock.lock()
        running = false
        lock.unlock()
    }
}

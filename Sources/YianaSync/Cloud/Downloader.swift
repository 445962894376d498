import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// How the simulated network behaves.
public struct TransferSettings: Sendable {
    /// Bytes per second; nil for as fast as the disk.
    public var bytesPerSecond: Double?
    /// Seconds before the first byte of each attempt.
    public var latency: Double = 0
    public var chunkSize = 64 << 10

    public init(bytesPerSecond: Double? = nil, latency: Double = 0) {
        self.bytesPerSecond = bytesPerSecond
        self.latency = latency
    }
}

/// Faults to inject, repeatable from a seed.
public struct FaultSettings: Codable, Sendable {
    /// Every attempt fails at once: the cloud cannot be reached.
    public var offline = false
    /// Each attempt fails part-way with this probability (0…1).
    public var flakiness = 0.0
    /// Every attempt is refused: the storage quota is exceeded (not worth retrying).
    public var quotaExceeded = false
    /// Every downloaded copy arrives with one byte changed (a damaged copy in the cloud).
    public var damaged = false
    public var seed: UInt64 = 1

    public init() {}
}

/// Retries with capped exponential backoff and jitter.
public struct RetryPolicy: Sendable {
    public var attempts = 8
    /// The first pause, in seconds; it doubles with each retry up to `cap`.
    public var base = 0.1
    public var cap = 2.0

    public init(attempts: Int = 8, base: Double = 0.1, cap: Double = 2.0) {
        self.attempts = max(1, attempts)
        self.base = base
        self.cap = cap
    }

    /// The pause before retry `n` (1-based): full jitter over the capped exponential.
    func delay(_ n: Int, random: inout SeededGenerator) -> Double {
        let ceiling = min(cap, base * pow(2, Double(n - 1)))
        return ceiling * (0.5 + 0.5 * Double(random.next() % 1_000_000) / 1_000_000)
    }
}

/// A download in progress, in `downloads.json` (this machine's ``LocalState``), so that `status` can show it and a
/// later `download` can resume it.
public struct DownloadProgress: Codable, Sendable, Equatable {
    public let sha256: String
    public let size: UInt64
    public var received: UInt64
    public var attempts: Int
    public var error: String?
}

public struct Downloads: Codable, Sendable {
    public var byPath: [String: DownloadProgress] = [:]
    public init() {}

    static func file(_ library: Library) -> StateFile<Downloads> {
        LocalState(library: library).stateFile("downloads.json")
    }
}

/// Downloads evicted documents from the simulated cloud.
public struct Downloader: Sendable {
    public let library: Library
    public var transfer = TransferSettings()
    public var faults = FaultSettings()
    public var retry = RetryPolicy()

    public init(library: Library) {
        self.library = library
    }

    /// Downloads the cloud's newest version of the document at `documentURL` and puts it in
    /// place: resumable (bytes received survive a failed attempt or a killed process),
    /// verified (ZIP structure, every CRC, the cloud's SHA-256) before it is placed through
    /// the coordinated writer, and only then is the stub (or dataless record) removed.
    /// - Returns: how many attempts it took.
    /// - Throws: ``CloudError`` after the last attempt, or at once for a fault not worth retrying.
    @discardableResult
    public func download(_ documentURL: URL, progress: @escaping @Sendable (Double) -> Void = { _ in }) throws -> Int {
        let attachment = try CloudAttachment.load(library)
        let cloud = try attachment.cloud()
        guard let path = library.relativePath(of: documentURL) else { throw CloudError.notInCloud(documentURL.path) }
        guard let record = cloud.latest()[path], let sha256 = record.sha256 else { throw CloudError.notInCloud(path) }
        var random = SeededGenerator(seed: faults.seed ^ UInt64(truncatingIfNeeded: path.hashValueStable))
        // Partial downloads are this machine's: never in the synced folder.
        let partial = LocalState(library: library).cacheFolder.appendingPathComponent("downloads").appendingPathComponent("\(sha256).partial")
        try FileManager.default.createDirectory(at: partial.deletingLastPathComponent(), withIntermediateDirectories: true)

        let standIn = FileIdentity.current(at: documentURL.path)  // nothing, or a data-less file

        var attempt = 0
        while true {
            attempt += 1
            do {
                try transferOnce(cloud.objectURL(sha256), to: partial, record: record, path: path, attempt: attempt, random: &random, progress: progress)
                try place(partial, sha256: sha256, at: documentURL, path: path, standIn: standIn)
                try Downloads.file(library).update(initial: Downloads()) { $0.byPath[path] = nil }
                return attempt
            } catch let error as CloudError {
                _ = try? Downloads.file(library).update(initial: Downloads()) {
                    var entry = $0.byPath[path] ?? DownloadProgress(sha256: sha256, size: record.size, received: 0, attempts: attempt, error: nil)
                    entry.error = error.description
                    entry.attempts = attempt
                    if error == .damagedInCloud(path) { entry.received = 0 }  // its bytes were discarded
                    $0.byPath[path] = entry
                }
                guard error.isTransient, attempt < retry.attempts else { throw error }
                Thread.sleep(forTimeInterval: retry.delay(attempt, random: &random))
            }
        }
    }

    private func transferOnce(_ object: URL, to partial: URL, record: CloudRecord, path: String, attempt: Int,
                              random: inout SeededGenerator, progress: (Double) -> Void) throws {
        if faults.quotaExceeded { throw CloudError.quotaExceeded }
        if faults.offline { throw CloudError.offline }
        let sha256 = record.sha256!
        // Resume: the bytes received before stay in the partial file.
        var received = UInt64((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? Int) ?? 0)
        if received > record.size { Sys.removeIfPresent(partial.path); received = 0 }
        try Downloads.file(library).update(initial: Downloads()) {
            $0.byPath[path] = DownloadProgress(sha256: sha256, size: record.size, received: received, attempts: attempt, error: nil)
        }
        if transfer.latency > 0 { Thread.sleep(forTimeInterval: transfer.latency) }
        let failAt: UInt64? = random.unit() < faults.flakiness && record.size > received
            ? received + random.next() % (record.size - received) : nil

        let input: Int32, output: Int32
        do { input = try Sys.open(object.path, .readOnly) } catch { throw CloudError.transferFailed("the cloud copy cannot be read (\(error.code))") }
        defer { Sys.close(input) }
        do { output = try Sys.open(partial.path, [.writeOnly, .create]) } catch { throw CloudError.transferFailed("cannot write \(partial.path) (\(error.code))") }
        defer { Sys.close(output) }
        do {
            try copyChunks(from: input, to: output, record: record, received: &received, failAt: failAt, path: path, progress: progress)
        } catch let error as SystemError {
            throw CloudError.transferFailed("\(error.operation) error: \(error.code)")
        }
    }

    /// Copies the object's bytes from `received` on, as fast as the simulated link allows;
    /// stops with the simulated connection reset at `failAt`.
    private func copyChunks(from input: Int32, to output: Int32, record: CloudRecord, received: inout UInt64, failAt: UInt64?,
                            path: String, progress: (Double) -> Void) throws {
        let partialPath = "\(path) (partial download)"
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: transfer.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        let started = Date()
        let startedAt = received
        while received < record.size {
            var want = Int(min(UInt64(transfer.chunkSize), record.size - received))
            if let failAt, received + UInt64(want) > failAt { want = Int(failAt - received) }
            let n = try Sys.pread(input, buffer, want, received, path: record.sha256 ?? path)
            if n > 0 {
                try Sys.pwriteAll(output, buffer, n, received, path: partialPath)
                received += UInt64(n)
            }
            if let failAt, received >= failAt {
                try Sys.fsync(output, path: partialPath)
                let kept = received
                _ = try? Downloads.file(library).update(initial: Downloads()) { $0.byPath[path]?.received = kept }
                throw CloudError.transferFailed("connection reset after \(received) of \(record.size) bytes")
            }
            progress(record.size == 0 ? 1 : Double(received) / Double(record.size))
            if let rate = transfer.bytesPerSecond {
                let due = Double(received - startedAt) / rate - Date().timeIntervalSince(started)
                if due > 0 { Thread.sleep(forTimeInterval: due) }
            }
        }
        if faults.damaged, record.size > 0 {
            // The cloud hands over a copy with one byte changed.
            let at = record.size / 2
            var byte = try Sys.pread(input, count: 1, at: at, path: path)
            byte[0] ^= 0x20
            try Sys.pwriteAll(output, byte, 1, at, path: partialPath)
        }
        try Sys.fsync(output, path: partialPath)
    }

    /// Verifies the received file and puts it in place; then removes the stand-in.
    private func place(_ partial: URL, sha256: String, at documentURL: URL, path: String, standIn: FileIdentity) throws {
        let actual = try? FileHash.sha256(of: partial)
        do {
            try DocumentReader(path: partial.path).verifyContents()
            guard actual == sha256 else { throw CloudError.damagedInCloud(path) }
        } catch {
            Sys.removeIfPresent(partial.path)  // never resumed from damaged bytes
            throw CloudError.damagedInCloud(path)
        }
        let stub = Placeholder.existingStub(for: documentURL)
        // In place of the stand-in only: a document that arrived meanwhile (another download,
        // then perhaps an edit) is never written over.
        do {
            try CoordinatedDocument.replace(at: documentURL.path, withBytesOf: partial.path, expecting: standIn)
        } catch let error as ArchiveError where error.kind == .documentChanged {
            // Another download placed these very bytes first: done. Anything else stays as it is.
            let there = try? FileHash.sha256(of: documentURL)
            guard there == sha256 else { throw error }
        }
        if let stub { Sys.removeIfPresent(stub.path) }
        try DatalessFiles.file(library).update(initial: DatalessFiles()) { $0.sizes[path] = nil }
        try SyncState.file(library).update(initial: SyncState()) {
            $0.synced[path] = sha256
            $0.files[path] = FileState(documentURL)
        }
        Sys.removeIfPresent(partial.path)
        if stub != nil { try? Sys.fsyncDirectory(documentURL.deletingLastPathComponent().path) }
    }
}

extension String {
    /// A hash that is the same in every run (Swift's `hashValue` is seeded per process).
    var hashValueStable: Int {
        Int(truncatingIfNeeded: StableHash.of(self))
    }
}

import Foundation
import YianaFolder
import YianaArchive
import YianaSystem

/// An append-only log of JSON records, one per line, in the library's `.yiana/` folder.
///
/// Appends are locked against other processes and `fsync`ed; a last line torn by a crash
/// is skipped when reading and ended before the next append, so it never swallows a record.
public struct JSONLinesLog<Record: Codable & Sendable>: Sendable {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// Appends `record` as one line.
    /// - Throws: ``VersionStoreError/unwritable(_:_:)`` naming the log.
    public func append(_ record: Record) throws {
        try withLock { try appendLocked([record]) }
    }

    /// Appends `records`, one line each, with one `fsync`, for a caller already holding
    /// ``withLock(_:)``.
    func appendLocked(_ records: [Record]) throws {
        guard !records.isEmpty else { return }
        var line = Data()
        for record in records {
            line.append(try Self.encoder.encode(record))
            line.append(UInt8(ascii: "\n"))
        }
        do throws(SystemError) {
            try Sys.closeAfter(try Sys.open(url.path, [.readWrite, .append, .create])) { fd throws(SystemError) in
                // A crash mid-append leaves a last line without its newline: end it first, so this
                // record starts a line of its own instead of being glued to the fragment.
                let end = try Sys.fstat(fd, path: url.path).size
                if end > 0, try Sys.pread(fd, count: 1, at: end - 1, path: url.path) != [UInt8(ascii: "\n")] {
                    line.insert(UInt8(ascii: "\n"), at: 0)
                }
                try Sys.writeAll(fd, line, path: url.path)
                try Sys.fsync(fd, path: url.path)
            }
        } catch {
            throw VersionStoreError.unwritable(url.path, error.code.description)
        }
    }

    /// Every readable record, oldest first.
    public func read() -> [Record] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? Self.decoder.decode(Record.self, from: Data($0)) }
    }

    /// Runs `body` holding the log's exclusive lock.
    func withLock<T>(_ body: () throws -> T) throws -> T {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let lock = try DocumentLock(document: url.path, mode: .exclusive, timeout: CoordinatedDocument.defaultLockTimeout)
        defer { lock.release() }
        return try body()
    }

    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .internetTime
        return encoder
    }

    static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .internetTime
        return decoder
    }
}

import Foundation
import YianaSystem

/// A ZIP that is not a document: a data file as it is published (NHS England's
/// `epraccur.zip`), read an entry at a time through libzip, which checks each entry's CRC.
public enum ZipFile {
    /// The first entry of the ZIP at `path` whose name `matches`, read whole; nil when none
    /// matches.
    /// - Throws: an ``ArchiveError`` naming the file: not a ZIP, damaged, or the entry over
    ///   `limit` bytes.
    public static func firstEntry(at path: String, limit: UInt64, where matches: (String) -> Bool) throws -> (name: String, data: Data)? {
        let (fd, _) = try RegularFile.openForReadingWithSize(path)
        defer { Sys.close(fd) }
        let archive = try ZipArchive(fd: fd, path: path)
        for index in 0..<archive.entryCount {
            guard let name = archive.name(at: index), matches(name) else { continue }
            return (name, try archive.readWhole(index: index, name: name, limit: limit))
        }
        return nil
    }
}

extension ZipArchive {
    /// Entry `index` read to its end (where libzip checks its CRC), refused past `limit` bytes.
    func readWhole(index: Int, name: String, limit: UInt64) throws -> Data {
        var data = Data()
        try read(index: index, name: name, expectedSize: limit + 1, chunkSize: 1 << 20, allowShorter: true) { chunk in
            guard UInt64(data.count + chunk.count) <= limit else { throw ArchiveError(.entryTooLarge(name, limit: limit), path: path) }
            data.append(contentsOf: chunk)
        }
        return data
    }
}

import YianaSystem
import Foundation

extension DocumentReader {
    /// Parses the ZIP structure and refuses anything a Yiana document never contains.
    static func checkedLayout(_ reader: ByteReader, fileSize: UInt64) throws -> ZipLayout {
        let path = reader.path
        let layout: ZipLayout
        do {
            layout = try ZipLayout.read(reader, fileSize: fileSize)
        } catch let problem as ZipLayout.Problem {
            switch problem {
            case .noEndOfCentralDirectory:
                throw ArchiveError(.zip(.notAZip, message: "no end-of-central-directory record"), path: path)
            case .centralDirectoryOutOfBounds:
                throw ArchiveError(.centralDirectoryDamaged("it lies outside the file"), path: path)
            case .centralDirectoryTooLarge:
                throw ArchiveError(.centralDirectoryDamaged("it is implausibly large"), path: path)
            case .tooManyEntries(let count):
                throw ArchiveError(.damagedStructure("it lists \(count) entries, where a document has three"), path: path)
            case .badCentralHeader(let index):
                throw ArchiveError(.centralDirectoryDamaged("entry \(index + 1) is damaged"), path: path)
            case .badLocalHeader(let name):
                throw ArchiveError(.badLocalHeader(entry: name), path: path)
            case .multiDisk:
                throw ArchiveError(.damagedStructure("the archive claims to span several disks"), path: path)
            }
        } catch let error as SystemError {
            throw ArchiveError(.system(error), path: path)
        }

        for entry in layout.entries {
            try checkName(entry.name, path: path)
            if entry.isSymlink { throw ArchiveError(.symlinkEntry(entry.name), path: path) }
            if entry.isEncrypted { throw ArchiveError(.encryptedEntry(entry.name), path: path) }
        }
        try checkDuplicates(layout.entries.map(\.name), rawNames: layout.entries.map(\.rawName), path: path)
        for entry in layout.entries {
            guard knownNames.contains(entry.name) else { throw ArchiveError(.unexpectedEntry(entry.name), path: path) }
            switch entry.method {
            case 0:
                if entry.compressedSize != entry.uncompressedSize {
                    throw ArchiveError(.storedSizeMismatch(entry.name, compressed: entry.compressedSize,
                                                           uncompressed: entry.uncompressedSize), path: path)
                }
            case 8:
                if let reason = implausibleCompression(entry) {
                    throw ArchiveError(.implausibleEntry(entry.name, reason: reason), path: path)
                }
            default:
                throw ArchiveError(.unsupportedCompression(entry.name, method: entry.method), path: path)
            }
        }
        if let (first, second) = layout.firstOverlap() {
            throw ArchiveError(.overlappingEntries(first.name, second?.name ?? ""), path: path)
        }
        return layout
    }

    /// The most a compressed entry may inflate, by ratio, once it is over ``ratioFloor``
    /// bytes: deflate reaches about 1000:1 on repeated bytes (a compression bomb); JSON and
    /// real PDFs stay far below 100:1.
    static let maximumRatio: UInt64 = 100
    static let ratioFloor: UInt64 = 1 << 20
    /// The largest `format.json` (the app writes about 20 bytes).
    static let formatLimit: UInt64 = 64 << 10

    /// Why a compressed entry is refused before it is inflated, judged from its declared
    /// sizes (the reader never inflates past the declared size): nil when plausible.
    static func implausibleCompression(_ entry: ZipEntryLayout) -> String? {
        let limit = entry.name == "metadata.json" ? metadataLimit : entry.name == "format.json" ? formatLimit : nil
        if let limit, entry.uncompressedSize > limit {
            return "declares \(entry.uncompressedSize) bytes inflated, more than \(limit) for a small JSON file"
        }
        if entry.uncompressedSize > ratioFloor, entry.uncompressedSize / max(entry.compressedSize, 1) > maximumRatio {
            return "would inflate \(entry.uncompressedSize / max(entry.compressedSize, 1))-fold (\(entry.compressedSize) bytes to \(entry.uncompressedSize)), the shape of a compression bomb"
        }
        return nil
    }

    /// Refuses absolute names and names that climb out of the archive.
    static func checkName(_ name: String, path: String) throws {
        let bytes = Array(name.utf8)
        let driveLetter = bytes.count >= 2 && bytes[1] == UInt8(ascii: ":")
            && ((UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(bytes[0]) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]))
        if name.hasPrefix("/") || name.hasPrefix("\\") || driveLetter {
            throw ArchiveError(.absolutePath(name), path: path)
        }
        let components = name.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if components.contains("..") { throw ArchiveError(.pathTraversal(name), path: path) }
    }

    /// Refuses two entries with the same name, also after case folding and Unicode
    /// normalisation (Swift compares strings by canonical equivalence, which is NFC).
    static func checkDuplicates(_ names: [String], rawNames: [[UInt8]], path: String) throws {
        for i in names.indices {
            for j in names.indices where j > i {
                if rawNames[i] == rawNames[j] || names[i] == names[j] || names[i].lowercased() == names[j].lowercased() {
                    throw ArchiveError(.duplicateEntry(names[i], names[j]), path: path)
                }
            }
        }
    }

    /// The version `format.json` announces; 2 when the file has none, as the app reads it.
    static func formatVersion(_ data: Data?, path: String) throws -> Int {
        guard let data else { return DocumentFormat.currentVersion }
        guard case .object(let object)? = try? JSONValue.decode(data) else {
            throw ArchiveError(.invalidFormatFile("not a JSON object"), path: path)
        }
        switch object["formatVersion"] {
        case .integer(let version)?:
            return Int(clamping: version)
        case nil:
            throw ArchiveError(.invalidFormatFile("no formatVersion"), path: path)
        default:
            throw ArchiveError(.invalidFormatFile("formatVersion is not a whole number"), path: path)
        }
    }

    /// Locates the metadata and PDF of a legacy file: the JSON runs up to the first
    /// FF FF FF FF (a byte UTF-8 JSON never contains), the PDF follows it.
    static func readLegacyLayout(fd: Int32, path: String, fileSize: UInt64) throws -> (metadata: Range<UInt64>, pdf: Range<UInt64>?) {
        let chunkSize = 1 << 20
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize + 3, alignment: 16)
        defer { buffer.deallocate() }
        var offset: UInt64 = 0
        var carried = 0
        while offset < fileSize {
            guard offset <= metadataLimit else {
                throw ArchiveError(.entryTooLarge("metadata.json", limit: metadataLimit), path: path)
            }
            let n: Int
            do {
                n = try Sys.pread(fd, buffer.baseAddress! + carried, chunkSize, offset, path: path)
            } catch {
                throw ArchiveError(.system(error), path: path)
            }
            if n == 0 { break }
            let available = carried + n
            var i = 0
            while i + 3 < available {
                if buffer[i] == 0xFF, buffer[i + 1] == 0xFF, buffer[i + 2] == 0xFF, buffer[i + 3] == 0xFF {
                    let separator = offset - UInt64(carried) + UInt64(i)
                    return (0..<separator, (separator + 4)..<fileSize)
                }
                i += 1
            }
            // Keep the last three bytes: a separator may straddle two chunks.
            carried = min(3, available)
            for k in 0..<carried { buffer[k] = buffer[available - carried + k] }
            offset += UInt64(n)
        }
        guard fileSize <= metadataLimit else {
            throw ArchiveError(.entryTooLarge("metadata.json", limit: metadataLimit), path: path)
        }
        return (0..<fileSize, nil)
    }
}

import YianaSystem

/// An entry's bytes as one piece of evidence in a damaged ZIP locates them.
public struct EntryEvidence: Sendable, Equatable {
    /// Where a piece of evidence came from.
    public enum Source: Sendable, Equatable, CustomStringConvertible {
        case centralDirectory
        /// A local header found by walking the chain of local headers from the first one.
        case chain(at: UInt64)
        /// A local header found by scanning the bytes for its signature.
        case scan(at: UInt64)

        public var description: String {
            switch self {
            case .centralDirectory: "central directory"
            case .chain(let offset): "local header at offset \(offset) (by the chain of local headers)"
            case .scan(let offset): "local header at offset \(offset)"
            }
        }
    }

    public let name: String
    /// Where its local header is (or should be).
    public let headerOffset: UInt64
    public let dataOffset: UInt64
    public let size: UInt64
    public let method: UInt16
    public let crc: UInt32
    /// Where the evidence came from, for the report.
    public let source: Source
}

/// What a damaged ZIP file still says about its entries, gathered from three independent
/// places so that losing one does not lose the document: the central directory (read
/// leniently), the chain of local headers walked from the first one, and a forward scan for
/// local-header signatures. The scanner only gathers; what to make of the evidence is the
/// repairer's decision. It never trusts a declared size beyond the file's real size.
///
/// Its memory and the repairer's work are bounded however many entries a hostile file holds
/// (a document has three): of the document's own entries, at most ``perNameLimit`` pieces of
/// evidence a name from each place; of the others, how many names and the first few.
public struct ZipEvidence: Sendable {
    /// The most pieces of evidence kept of one of the document's names from each place.
    static let perNameLimit = 16
    /// How many other names are kept to be shown.
    static let shownNames = 5

    /// Evidence of the document's own entries, central directory first, then the chain, then the scan.
    public let entries: [EntryEvidence]
    /// Entries with other names: how many different names, and the first few of them.
    public let otherNames: (count: Int, first: [String])
    /// Where the central directory (and its end record) start: a partial entry's bytes end there at the latest.
    public let directoryStarts: [UInt64]
    /// Where the local headers the chain walked start (of any name).
    private let chainOffsets: [UInt64]
    public let fileSize: UInt64
    private let fd: Int32

    /// Gathers the evidence in the file open as `fd`, of `size` bytes; `fd` stays the
    /// caller's and must stay open while this value is used.
    public init(fd: Int32, size: UInt64) {
        self.fd = fd
        fileSize = size
        var gathered = Gathered()
        let starts = Self.centralDirectory(fd: fd, size: size, into: &gathered)
        Self.localHeaderChain(fd: fd, size: size, into: &gathered)
        Self.localHeaderScan(fd: fd, size: size, into: &gathered)
        entries = gathered.entries
        directoryStarts = starts
        otherNames = (gathered.otherNames.count, gathered.firstOthers)
        chainOffsets = gathered.chainOffsets
    }

    /// Where the next entry (or the central directory) starts after `offset`: where an
    /// entry's bytes found at `offset` end at the latest; the file's size when nothing follows.
    public func nextEntryStart(after offset: UInt64) -> UInt64 {
        var candidates = entries.map(\.headerOffset) + chainOffsets + directoryStarts
        Self.forEachLocalHeader(fd: fd, size: fileSize, from: offset + 1) { entry in
            candidates.append(entry.headerOffset)
            return false
        }
        return candidates.filter { $0 > offset }.min() ?? fileSize
    }

    /// The evidence as it is found, kept within bounds.
    struct Gathered {
        var entries: [EntryEvidence] = []
        /// The other names' hashes (their count is what is said; a hostile file's names may be long).
        var otherNames = Set<Int>()
        var firstOthers: [String] = []
        var chainOffsets: [UInt64] = []
        private var counts: [String: Int] = [:]

        /// Evidence from the next place on (the counts per name start again).
        mutating func nextPlace() {
            counts = [:]
        }

        mutating func add(_ entry: EntryEvidence) {
            if case .chain = entry.source { chainOffsets.append(entry.headerOffset) }
            guard DocumentReader.knownNames.contains(entry.name) else {
                if otherNames.insert(entry.name.hashValue).inserted, firstOthers.count < ZipEvidence.shownNames { firstOthers.append(entry.name) }
                return
            }
            counts[entry.name, default: 0] += 1
            if counts[entry.name]! <= ZipEvidence.perNameLimit { entries.append(entry) }
        }
    }

    /// The stored entries named `name` whose bytes pass their CRC, best evidence first.
    public func intact(_ name: String) -> [EntryEvidence] {
        // The same bytes found in several places are summed once.
        var sums: [ClosedRange<UInt64>: UInt32?] = [:]
        return entries.filter { entry in
            guard entry.name == name, entry.method == 0, entry.dataOffset + entry.size <= fileSize else { return false }
            let bytes = entry.dataOffset...(entry.dataOffset + entry.size)
            if sums[bytes] == nil { sums[bytes] = .some(crc(entry.dataOffset, entry.size)) }
            return sums[bytes]! == entry.crc
        }
    }

    /// Up to `count` bytes at `offset` (fewer at the end of the file), nil on a read error.
    public func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
        Self.read(fd, offset, count)
    }

    /// The CRC-32 of `count` bytes at `offset`, nil if they cannot all be read.
    public func crc(_ offset: UInt64, _ count: UInt64) -> UInt32? {
        Self.crc(fd: fd, offset, count)
    }

    /// The CRC-32 of `count` bytes at `offset` of the file open as `fd`, nil if they cannot all be read.
    public static func crc(fd: Int32, _ offset: UInt64, _ count: UInt64) -> UInt32? {
        var crc = CRC32.initial
        var done: UInt64 = 0
        while done < count {
            guard let bytes = Self.read(fd, offset + done, Int(min(1 << 20, count - done))), !bytes.isEmpty else { return nil }
            crc = bytes.withUnsafeBytes { CRC32.update(crc, $0.baseAddress, $0.count) }
            done += UInt64(bytes.count)
        }
        return crc
    }

    /// Entries as the central directory describes them, read leniently (it may be damaged),
    /// located by their local headers' lengths even when a local signature is overwritten;
    /// and where the directory (and its end record) start.
    static func centralDirectory(fd: Int32, size: UInt64, into found: inout Gathered) -> [UInt64] {
        defer { found.nextPlace() }
        let shape = ZipShape.read(fd: fd, size: size)
        guard let eocd = shape.endOfCentralDirectory, let record = read(fd, eocd, 22), record.count == 22 else { return [] }
        let cdSize = UInt64(record.u32(12)), cdOffset = UInt64(record.u32(16))
        var starts = [eocd]
        for shift in Set([0, shape.junkBefore]) {
            guard cdOffset + shift + cdSize <= size, cdSize < 1 << 22, let directory = read(fd, cdOffset + shift, Int(cdSize)) else { continue }
            if directory.count >= 4, directory.u32(0) == 0x0201_4B50 { starts.append(cdOffset + shift) }
            var position = 0
            while position + 46 <= directory.count, directory.u32(position) == 0x0201_4B50 {
                let nameLength = Int(directory.u16(position + 28)), extra = Int(directory.u16(position + 30)), comment = Int(directory.u16(position + 32))
                guard position + 46 + nameLength <= directory.count else { break }
                let name = String(decoding: directory[(position + 46)..<(position + 46 + nameLength)], as: UTF8.self)
                let local = UInt64(directory.u32(position + 42)) + shift
                // Local lengths when its header is there (signature or not), else the central ones.
                var dataOffset = local + 30 + UInt64(nameLength)
                if let header = read(fd, local, 30), header.count == 30, Int(header.u16(26)) == nameLength {
                    dataOffset += UInt64(header.u16(28))
                }
                found.add(EntryEvidence(name: name, headerOffset: local, dataOffset: dataOffset, size: UInt64(directory.u32(position + 20)),
                                        method: directory.u16(position + 10), crc: directory.u32(position + 16), source: .centralDirectory))
                position += 46 + nameLength + extra + comment
            }
        }
        return starts
    }

    /// Entries found by walking the local headers from the first one, each entry's sizes
    /// giving where the next header is: this finds a header whose signature is overwritten
    /// even when the central directory is gone too.
    static func localHeaderChain(fd: Int32, size: UInt64, into found: inout Gathered) {
        defer { found.nextPlace() }
        guard let first = read(fd, 0, Int(min(size, 1 << 16))),
              let start = (0..<max(0, first.count - 3)).first(where: { isLocalSignature(first, $0) }) else {
            return
        }
        var offset = UInt64(start)
        var walked = 0
        while offset + 30 <= size, walked < 16, let entry = localHeader(fd, at: offset, printableName: true, source: .chain(at: offset)) {
            found.add(entry)
            walked += 1
            offset = entry.dataOffset + entry.size
        }
    }

    /// Entries found by scanning the bytes forward for local-header signatures.
    static func localHeaderScan(fd: Int32, size: UInt64, into found: inout Gathered) {
        defer { found.nextPlace() }
        forEachLocalHeader(fd: fd, size: size, from: 0) { entry in
            found.add(entry)
            return true
        }
    }

    /// Calls `body` with each plausible local header from `start` on, in order, while it returns true.
    private static func forEachLocalHeader(fd: Int32, size: UInt64, from start: UInt64, _ body: (EntryEvidence) -> Bool) {
        let chunk = 1 << 20
        var offset = start
        while offset < size {
            guard let bytes = read(fd, offset, chunk + 3), bytes.count >= 4 else { return }
            for i in 0..<(bytes.count - 3) where isLocalSignature(bytes, i) {
                if let entry = localHeader(fd, at: offset + UInt64(i), printableName: false, source: .scan(at: offset + UInt64(i))),
                   !body(entry) { return }
            }
            offset += UInt64(chunk)
        }
    }

    /// The local header at `offset` read as evidence, if its name is plausible (1 to 255
    /// bytes; printable ASCII when `printableName`, as the chain requires to tell a header
    /// from data).
    private static func localHeader(_ fd: Int32, at offset: UInt64, printableName: Bool, source: EntryEvidence.Source) -> EntryEvidence? {
        guard let header = read(fd, offset, 30), header.count == 30 else { return nil }
        let nameLength = Int(header.u16(26)), extra = Int(header.u16(28))
        guard nameLength > 0, nameLength < 256, let nameBytes = read(fd, offset + 30, nameLength), nameBytes.count == nameLength,
              !printableName || nameBytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        return EntryEvidence(name: String(decoding: nameBytes, as: UTF8.self), headerOffset: offset,
                             dataOffset: offset + 30 + UInt64(nameLength + extra), size: UInt64(header.u32(18)),
                             method: header.u16(8), crc: header.u32(14), source: source)
    }

    private static func isLocalSignature(_ bytes: [UInt8], _ i: Int) -> Bool {
        bytes[i] == 0x50 && bytes[i + 1] == 0x4B && bytes[i + 2] == 0x03 && bytes[i + 3] == 0x04
    }

    private static func read(_ fd: Int32, _ offset: UInt64, _ count: Int) -> [UInt8]? {
        guard count >= 0 else { return nil }
        return try? Sys.pread(fd, count: count, at: offset, path: "")
    }
}

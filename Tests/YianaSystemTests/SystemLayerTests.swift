import Foundation
import Synchronization
import Testing
import YianaSystem
import YianaTestSupport

@Suite("The system layer")
struct SystemLayerTests {
    /// Work on a few threads: every item once, the results in the items' order, and the
    /// work really spread (its two runs on two threads).
    @Test func parallelWorkKeepsTheOrderAndDoesEachItemOnce() {
        let items = Array(0..<10_000)
        let threads = Mutex<Set<String>>([])
        let done = Parallel.map(items, workers: 2) { item -> Int in
            threads.withLock { _ = $0.insert("\(pthread_self())") }
            return item * 3
        }
        #expect(done == items.map { $0 * 3 })
        #expect(threads.withLock { $0.count } == 2)
        #expect(Parallel.map(Array(0..<10), workers: 4) { $0 + 1 } == Array(1...10))  // too few for a thread
        #expect(Parallel.map([Int](), workers: 2) { $0 }.isEmpty)
    }

    @Test func aReplacementTakesTheNameInOneStepAndLeavesNothingElse() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("state.json")
        try TemporaryFile.replace(path, with: Array("old".utf8))
        try TemporaryFile.replace(path, with: Array("new".utf8), mode: 0o600)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new")
        #expect(try Sys.lstat(path).permissions == 0o600)
        #expect(folder.contents() == ["state.json"])
    }

    @Test func creatingNeverReplacesAFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("doc.yianazip")
        try Data("the user's".utf8).write(to: URL(fileURLWithPath: path))
        let file = try TemporaryFile(beside: path)
        try file.write(Array("mine".utf8))
        try file.sync()
        do {
            try file.place(at: path, .creating)
            Issue.record("placed over an existing file")
        } catch SystemError.Code.exists {
            // matched by its code, as swift-system's Errno is
        } catch {
            Issue.record("wrong error \(error)")
        }
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "the user's")
        #expect(folder.contents() == ["doc.yianazip"])
    }

    @Test func keepingExistingDropsTheNewCopy() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("abcd")
        try TemporaryFile.replace(path, with: Array("same bytes".utf8))
        let before = FileIdentity.current(at: path)
        let copy = try TemporaryFile(beside: path)
        try copy.write(Array("same bytes".utf8))
        #expect(try copy.place(at: path, .keepingExisting) == false)
        #expect(FileIdentity.current(at: path) == before)
        #expect(folder.contents() == ["abcd"])
    }

    @Test func aTemporaryFileNeverPlacedIsRemoved() throws {
        let folder = try TemporaryFolder()
        do {
            let file = try TemporaryFile(beside: folder.path("doc.yianazip"))
            try file.write(Array(repeating: 7, count: 100))
            #expect(file.path.contains(TemporaryFile.marker))
            #expect(folder.contents().count == 1)
        }
        #expect(folder.contents().isEmpty)
    }

    @Test func errorsNameTheFileAndMatchByCode() {
        do {
            _ = try Sys.open("/nonexistent-\(UUID())/x", .readOnly)
            Issue.record("opened a file that is not there")
        } catch SystemError.Code.notFound {
        } catch {
            Issue.record("wrong error \(error)")
        }
        do {
            _ = try Sys.open("/nonexistent/x", .readOnly)
        } catch {
            #expect(error.path == "/nonexistent/x")
            #expect(error.isNotFound)
            #expect(error.description.contains("/nonexistent/x"))
        }
    }

    /// OFD locks belong to the open file: a second open of the same file in the same process
    /// is excluded, another byte is not, and closing drops the lock.
    @Test func aByteLockExcludesEveryOtherOpenFile() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("locks")
        let first = try Sys.open(path, [.readWrite, .create], mode: 0o600)
        let second = try Sys.open(path, .readWrite)
        defer { Sys.close(second) }
        #expect(try Sys.lockByte(first, at: 42, exclusive: true, path: path))
        #expect(try !Sys.lockByte(second, at: 42, exclusive: true, path: path))
        #expect(try !Sys.lockByte(second, at: 42, exclusive: false, path: path))
        #expect(try Sys.lockByte(second, at: 43, exclusive: true, path: path))
        Sys.close(first)
        #expect(try Sys.lockByte(second, at: 42, exclusive: false, path: path))
    }

    /// A file the caller holds is left out of the listing when the folder gives it with the
    /// same name and inode, and only then: a file renamed in over the name has a new inode and
    /// is listed (read from the file system), as is a new one and a folder of a held name.
    /// What the caller is left holding is what changed or went.
    @Test func aFileHeldAsItIsIsLeftOutOfTheListing() throws {
        let folder = try TemporaryFolder()
        for name in ["a", "b", "c"] { try Data("bytes".utf8).write(to: folder.url.appendingPathComponent(name)) }
        try FileManager.default.createDirectory(at: folder.url.appendingPathComponent("d"), withIntermediateDirectories: false)
        let a = try #require(FileStamp(path: folder.url.appendingPathComponent("a").path))
        let d = try #require(FileStamp(path: folder.url.appendingPathComponent("d").path))
        var same = ["a": FileStamp(size: 4242, modified: 0, inode: a.inode), "b": FileStamp(size: 4242, modified: 0, inode: -7),
                    "d": d, "gone": FileStamp(size: 1, modified: 0, inode: 1)]
        let entries = try DirectoryEntry.list(folder.url.path, leavingOut: &same)
        #expect(entries.map(\.name) == ["b", "c", "d"], "a: the same inode, left out")
        #expect(entries[0].stamp?.size == 5 && entries[0].kind == .regular, "another inode: stat")
        #expect(entries[2].kind == .folder)
        #expect(Set(same.keys) == ["b", "d", "gone"], "what changed or went stays")
        var none: [String: FileStamp] = [:]
        #expect(try DirectoryEntry.list(folder.url.path, leavingOut: &none).map(\.name) == ["a", "b", "c", "d"])
        #expect(throws: SystemError.self) { try DirectoryEntry.list(folder.path("missing"), leavingOut: &same) }
        #expect(same.count == 3, "a folder that cannot be opened leaves what is held alone")
    }

    @Test func readsAndWritesGoWholeAcrossTheirChunks() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("bytes")
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Sys.closeAfter(try Sys.open(path, [.writeOnly, .create, .exclusive])) { fd throws(SystemError) in
            try Sys.writeAll(fd, bytes, path: path)
        }
        try Sys.closeAfter(try Sys.open(path, .readOnly)) { fd throws(SystemError) in
            #expect(try Sys.readToEnd(fd, path: path) == bytes)
            #expect(try Sys.pread(fd, count: 10, at: 299_995, path: path) == Array(bytes[299_995...]))
        }
    }
}

@Suite("local time")
struct LocalTimeTests {
    /// ZIP headers record local time; it comes from the C library, not ICU, and must agree
    /// with Foundation's calendar in this machine's zone.
    @Test func localTimeAgreesWithFoundationsCalendar() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .current
        // Every 7 hours, 13 minutes and 7 seconds over two years from 2025: every month, day,
        // hour and second, both sides of any clock change.
        for seconds in stride(from: 1_735_689_600, to: 1_735_689_600 + 2 * 366 * 86_400, by: 7 * 3_600 + 13 * 60 + 7) {
            let local = LocalTime(secondsSince1970: seconds)
            let expected = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second],
                                                   from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect([local.year, local.month, local.day, local.hour, local.minute, local.second]
                    == [expected.year, expected.month, expected.day, expected.hour, expected.minute, expected.second])
        }
    }

    /// The commands' times read as `DateFormatter` wrote them with `yyyy-MM-dd HH:mm:ss`: the
    /// fraction of a second dropped, before 1970 too.
    @Test func aTimeIsWrittenAsTheFormatterWroteIt() {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        let seconds: [Double] = [0, 0.999, -0.5, -86_400.25, 1_764_000_000.75, 1_700_000_000, -1_000_000_000.5, 4_102_444_799.9]
        for value in seconds + stride(from: 1_735_689_600.0, to: 1_735_689_600 + 366 * 86_400, by: 86_400 * 3 + 3_611.37) {
            let date = Date(timeIntervalSince1970: value)
            #expect(LocalTime(date).text == formatter.string(from: date), "\(value)")
        }
    }

    /// Integers written as `String(_:)` writes them, and with zeros before to a width.
    @Test func integersAreWrittenAsStringWritesThem() {
        var generator = SystemRandomNumberGenerator()
        let signed: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, .max, .min, .max - 1] + (0..<500).map { _ in Int64.random(in: .min ... .max, using: &generator) }
        for value in signed {
            var text = [UInt8]()
            text.appendDecimal(value)
            #expect(String(decoding: text, as: UTF8.self) == String(value))
        }
        for value in [0, UInt64.max, UInt64.max / 10, 10_000_000_000_000_000_000] + (0..<500).map({ _ in UInt64.random(in: 0 ... .max, using: &generator) }) {
            var text = [UInt8]()
            text.appendDecimal(value)
            #expect(String(decoding: text, as: UTF8.self) == String(value))
        }
        for (value, width, expected) in [(0, 2, "00"), (7, 4, "0007"), (2026, 4, "2026"), (12345, 4, "12345"), (59, 2, "59")] {
            var text = [UInt8]()
            text.appendDecimal(value, width: width)
            #expect(String(decoding: text, as: UTF8.self) == expected)
        }
    }

    /// A decimal written as `String(format: "%.Nf")` wrote it, ties and the halves that are
    /// not quite halves in binary included.
    @Test func aDecimalIsWrittenAsPrintfWritesIt() {
        var values: [Double] = [0, -0.0, 0.05, 0.15, 0.25, 0.35, 1.15, 2.25, 2.35, 999.95, 1_000.05, 1e21, -3.75, .leastNonzeroMagnitude, .pi,
                                .greatestFiniteMagnitude, .infinity, -.infinity, .nan]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            values.append(Double(UInt64.random(in: 0...5_000_000_000_000, using: &generator)) / 1000)
            values.append(Double.random(in: -1e15...1e15, using: &generator))
            values.append(Double.random(in: 1e-7...2, using: &generator))
        }
        // Exact ties at 0, 1 and 2 places, and values beside them.
        for k in -200...200 { values += [Double(k) / 8, (Double(k) / 8).nextUp, (Double(k) / 8).nextDown, Double(k) + 0.5] }
        for value in values {
            for places in [0, 1, 2, 6] {
                #expect(fixedDecimal(value, places: places) == String(format: "%.\(places)f", value), "\(value), \(places)")
            }
        }
    }
}

@Suite("internet time")
struct InternetTimeTests {
    struct Stamp: Codable, Equatable { let at: Date }

    func foundation() -> (JSONEncoder, JSONDecoder) {
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        encoder.dateEncodingStrategy = .iso8601
        decoder.dateDecodingStrategy = .iso8601
        return (encoder, decoder)
    }

    func ours() -> (JSONEncoder, JSONDecoder) {
        let encoder = JSONEncoder(), decoder = JSONDecoder()
        encoder.dateEncodingStrategy = .internetTime
        decoder.dateDecodingStrategy = .internetTime
        return (encoder, decoder)
    }

    /// Byte for byte what Foundation writes, from 1906 to 2096 with fractions of seconds
    /// (rounded down, before 1970 too), and the years it writes some other way.
    @Test func datesAreWrittenAsFoundationWritesThem() throws {
        let (theirs, mine) = (foundation().0, ours().0)
        var seconds = -2_000_000_000.0
        while seconds < 4_000_000_000 {
            let stamp = Stamp(at: Date(timeIntervalSince1970: seconds))
            #expect(try mine.encode(stamp) == theirs.encode(stamp), "\(seconds)")
            seconds += 7_654_321.123
        }
        // Year 1, the Julian calendar's last day (1582), a second either side of 1600, the last
        // second of 9999 and the first of 10000, and dates no calendar holds (hostile metadata).
        for extreme in [-62_135_596_800.0, -12_219_379_200, -11_676_096_001, -11_676_096_000, 253_402_300_799,
                        253_402_300_800, 1e300, -1e300, .greatestFiniteMagnitude] {
            let stamp = Stamp(at: Date(timeIntervalSince1970: extreme))
            #expect(try mine.encode(stamp) == theirs.encode(stamp), "\(extreme)")
        }
    }

    /// The same texts read as the same dates, and the same ones refused.
    @Test func datesAreReadAsFoundationReadsThem() throws {
        let (theirs, mine) = (foundation().1, ours().1)
        let texts = ["2026-11-23T21:39:35Z", "1970-01-01T00:00:00Z", "1969-12-31T23:59:59Z", "2024-02-29T12:00:00Z",
                     "2023-02-29T12:00:00Z", "2026-04-31T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-23T24:00:00Z",
                     "2026-11-23T21:60:00Z", "2026-11-23T21:39:60Z", "2026-11-23T21:39:35+01:00", "2026-11-23T21:39:35.5Z",
                     "2026-11-23 21:39:35Z", "2026-11-23T21:39:35z", "0000-01-01T00:00:00Z", "1582-10-04T00:00:00Z",
                     "1600-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                     "2026-11-23", "yesterday", "", "２０２６-11-23T21:39:35Z"]
        for text in texts {
            let json = Data(#"{"at":"\#(text)"}"#.utf8)
            let expected = try? theirs.decode(Stamp.self, from: json)
            #expect((try? mine.decode(Stamp.self, from: json)) == expected, "\(text)")
        }
        #expect(throws: DecodingError.self) { try mine.decode(Stamp.self, from: Data(#"{"at":"yesterday"}"#.utf8)) }
    }
}

/// Dates given to a search (`since`, `until`): RFC 3339 in full, beyond what Foundation reads.
@Suite("given dates")
struct GivenDateTests {
    @Test func everyRFC3339DateTimeIsRead() {
        let cases: [(String, Double)] = [
            ("1970-01-01T00:00:00Z", 0), ("1970-01-01T00:00:00.25Z", 0.25), ("1970-01-01t00:00:00z", 0),
            ("1970-01-01 01:00:00+01:00", 0), ("1970-01-01T00:00:00-18:40", 67_200), ("1970-01-01T00:00:00+23:59", -86_340),
            ("2000-02-29T12:00:00Z", 951_825_600), ("1600-01-01T00:00:00Z", -11_676_096_000),
            ("0000-01-01T00:00:00Z", -62_167_219_200), ("1542-10-28T17:38:38.207-18:40", -13_480_342_881.793),
            ("2016-12-31T23:59:60Z", 1_483_228_800),
        ]
        for (text, seconds) in cases {
            let date = InternetTime.given(text)
            #expect(date.map { abs($0.timeIntervalSince1970 - seconds) < 0.0005 } == true, "\(text): \(String(describing: date?.timeIntervalSince1970))")
        }
        for text in ["2023-02-29T00:00:00Z", "1970-01-01T24:00:00Z", "1970-01-01T00:00:00+24:00", "1970-01-01T00:00:00.Z",
                     "1970-01-01T00:00:00", "1970-1-01T00:00:00Z", "1970-01-01T00:00:00Zjunk", "soon"] {
            #expect(InternetTime.given(text) == nil, "\(text)")
        }
    }
}

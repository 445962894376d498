import Foundation
import YianaTestSupport
import Testing
@testable import YianaArchive
import YianaSystem

@Suite("archive reader")
struct ArchiveReaderTests {
    func write(_ bytes: [UInt8], in folder: TemporaryFolder, name: String = "doc.yianazip") throws -> String {
        let path = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func openError(_ bytes: [UInt8]) throws -> ArchiveError.Kind? {
        let folder = try TemporaryFolder()
        let path = try write(bytes, in: folder)
        do {
            _ = try DocumentReader(path: path)
            return nil
        } catch let error as ArchiveError {
            #expect(error.path == path)
            return error.kind
        }
    }

    @Test func readsWhatTheWriterWrites() async throws {
        let folder = try TemporaryFolder()
        let pdf = Data("%PDF-1.4\n".utf8) + Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        var metadata = DocumentMetadata(title: "Report", pageCount: 2, tags: ["a"])
        metadata.unknownFields["extra"] = .string("kept")
        let path = folder.path("Report.yianazip")
        try CoordinatedDocument.create(at: path, metadata: metadata, pdf: .data(pdf))

        let reader = try DocumentReader(path: path)
        #expect(reader.format == .zip(formatVersion: 2, hasFormatFile: true))
        #expect(reader.entries.map(\.name) == ["metadata.json", "content.pdf", "format.json"])
        #expect(reader.entries.allSatisfy { $0.compressionMethod == 0 && $0.size == $0.storedSize })
        #expect(try reader.metadata() == metadata)
        var read = Data()
        try reader.readPDF { read.append(contentsOf: $0) }
        #expect(read == pdf)
        // The stored PDF can be read in place through its byte range.
        let range = try #require(reader.pdf?.byteRange)
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(whole[Int(range.lowerBound)..<Int(range.upperBound)] == pdf)
        var format = Data()
        try reader.readEntry(try #require(reader.entry("format.json"))) { format.append(contentsOf: $0) }
        #expect(String(decoding: format, as: UTF8.self) == #"{"formatVersion":2}"#)
    }

    @Test func readsAnArchiveMadeByAnotherZipWriter() async throws {
        // SampleDocs' current-format sample is written by Python's zipfile, not by libzip.
        let reader = try DocumentReader(path: Fixtures.sample("archives/Sample Letter.yianazip"))
        let metadata = try reader.verifyContents()
        #expect(metadata.title == "Sample Letter")
        #expect(metadata.unknownFields["futureAppField"] == .object(["kept": .bool(true)]))
        #expect(reader.format == .zip(formatVersion: 2, hasFormatFile: true))
    }

    @Test func readsTheSeparatorLegacyFormat() async throws {
        let reader = try DocumentReader(path: Fixtures.sample("archives/Legacy Separator.yianazip"))
        #expect(reader.format == .legacySeparator)
        #expect(try reader.metadata().title == "Legacy Separator")
        var pdf = Data()
        try reader.readPDF { pdf.append(contentsOf: $0) }
        #expect(pdf == (try Data(contentsOf: URL(fileURLWithPath: Fixtures.sample("pdfs/Flow control paper.pdf")))))
    }

    @Test func readsTheMetadataOnlyLegacyFormat() async throws {
        let reader = try DocumentReader(path: Fixtures.sample("archives/Legacy Metadata Only.yianazip"))
        #expect(reader.format == .legacyMetadataOnly)
        #expect(reader.pdf == nil)
        #expect(try reader.metadata().pageCount == 0)
        #expect(throws: ArchiveError.self) { try reader.readPDF { _ in } }
    }

    @Test func findsTheSeparatorAcrossChunkBoundaries() async throws {
        let folder = try TemporaryFolder()
        var metadata = ZipBuilder.validMetadata
        // Pad the JSON so the separator straddles the reader's 1 MiB chunk boundary.
        metadata.insert(contentsOf: ",\"pad\":\"" + String(repeating: "x", count: (1 << 20) - metadata.utf8.count - 8) + "\"", at: metadata.index(before: metadata.endIndex))
        let bytes = Array(metadata.utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("%PDF-1.4 body".utf8)
        let reader = try DocumentReader(path: try write(bytes, in: folder))
        #expect(reader.format == .legacySeparator)
        #expect(reader.pdf?.size == 13)
        #expect(try reader.metadata().title == "Test")
    }

    @Test func aMissingFormatFileMeansVersion2() async throws {
        var builder = ZipBuilder.document()
        builder.entries.removeLast()
        let folder = try TemporaryFolder()
        let reader = try DocumentReader(path: try write(builder.build(), in: folder))
        #expect(reader.format == .zip(formatVersion: 2, hasFormatFile: false))
        try reader.verifyContents()
    }

    @Test func aNewerFormatVersionIsReportedNotRewritten() async throws {
        var builder = ZipBuilder.document()
        builder.entries[2].data = Array(#"{"formatVersion":3}"#.utf8)
        let folder = try TemporaryFolder()
        let reader = try DocumentReader(path: try write(builder.build(), in: folder))
        #expect(reader.format == .zip(formatVersion: 3, hasFormatFile: true))
        #expect(!reader.isSupportedVersion)
        #expect { try reader.verifyContents() } throws: { ($0 as? ArchiveError)?.kind == .unsupportedFormatVersion(3) }
    }

    @Test func aCRCMismatchIsAnErrorNeverData() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("doc.yianazip")
        try CoordinatedDocument.create(at: path, metadata: DocumentMetadata(title: "T", pageCount: 1),
                                       pdf: .data(Data("%PDF-1.4\n".utf8) + Data(repeating: 0x41, count: 100_000)))
        let range = try #require(try DocumentReader(path: path).pdf?.byteRange)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes[Int(range.upperBound) - 10] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let reader = try DocumentReader(path: path)
        #expect { try reader.readPDF { _ in } } throws: { ($0 as? ArchiveError)?.kind == .crcMismatch(entry: "content.pdf") }
        #expect { try reader.verifyContents() } throws: { ($0 as? ArchiveError)?.kind == .crcMismatch(entry: "content.pdf") }
    }

    @Test func aDamagedMetadataChecksumIsCaught() async throws {
        var builder = ZipBuilder.document()
        builder.entries[0].crc = 0x1234_5678
        let folder = try TemporaryFolder()
        let reader = try DocumentReader(path: try write(builder.build(), in: folder))
        #expect { try reader.metadata() } throws: { ($0 as? ArchiveError)?.kind == .crcMismatch(entry: "metadata.json") }
    }

    @Test func aLayoutOnlyOpenLeavesLibzipsCheckToTheFirstReadThroughIt() async throws {
        // The PDF's local header disagrees with the central directory (its date): only
        // libzip's consistency check sees it.
        var bytes = ZipBuilder.document().build()
        let pdfHeader = 30 + "metadata.json".utf8.count + ZipBuilder.validMetadata.utf8.count
        #expect(bytes[pdfHeader..<pdfHeader + 4] == [0x50, 0x4B, 0x03, 0x04])
        bytes[pdfHeader + 12] ^= 0x01
        let folder = try TemporaryFolder()
        let path = try write(bytes, in: folder)
        let refusal = try #require(try openError(bytes))

        let reader = try DocumentReader(path: path, checks: .layout)
        #expect(try reader.metadata().title == "Test")
        #expect(reader.format == .zip(formatVersion: 2, hasFormatFile: true))
        #expect(reader.contentKey != nil)
        // verify, and any read through libzip, still refuses it, as a full open does.
        #expect { try reader.verifyContents() } throws: { ($0 as? ArchiveError)?.kind == refusal }
        #expect { try reader.readPDF { _ in } } throws: { ($0 as? ArchiveError)?.kind == refusal }
    }

    /// A refusal after the reader is fully built (here: no metadata.json) must close its
    /// descriptor once: a second close would shut whatever file another thread opened under
    /// the same number in between.
    @Test func aRefusedOpenClosesItsDescriptorOnce() async throws {
        var builder = ZipBuilder.document()
        builder.entries.removeFirst()
        let folder = try TemporaryFolder()
        let refused = try write(builder.build(), in: folder)
        let other = try write(ZipBuilder.document().build(), in: folder, name: "other.yianazip")
        #expect(try openError(builder.build()) == .missingMetadata)
        let failures = ManagedAtomicCounter()
        let reader = Thread {
            for _ in 0..<3000 {
                let fd = open(other, O_RDONLY)
                var byte: UInt8 = 0
                for _ in 0..<20 where pread(fd, &byte, 1, 0) != 1 { failures.increment() }
                close(fd)
            }
        }
        reader.start()
        for _ in 0..<3000 { _ = try? DocumentReader(path: refused) }
        while !reader.isFinished { usleep(1000) }
        #expect(failures.value == 0, "reads on another thread's file failed: its descriptor was closed under it")
    }

    @Test func smallEntriesReadDirectlyAreCheckedAgainstTheirCRC() async throws {
        var builder = ZipBuilder.document()
        builder.entries[2].crc = 0x1234_5678
        #expect(try openError(builder.build()) == .crcMismatch(entry: "format.json"))
        // A stored metadata.json whose bytes changed after its CRC was written.
        var bytes = ZipBuilder.document().build()
        let title = try #require(bytes.firstRange(of: Array("Test".utf8)))
        bytes[title.lowerBound] = UInt8(ascii: "B")
        let folder = try TemporaryFolder()
        for checks in [DocumentReader.Checks.full, .layout] {
            let reader = try DocumentReader(path: try write(bytes, in: folder), checks: checks)
            #expect { try reader.metadata() } throws: { ($0 as? ArchiveError)?.kind == .crcMismatch(entry: "metadata.json") }
        }
    }

    @Test func aTruncatedArchiveIsNotReadAsADocument() async throws {
        let bytes = ZipBuilder.document().build()
        #expect(try openError(Array(bytes.prefix(bytes.count / 2))) == .zip(.notAZip, message: "no end-of-central-directory record"))
    }

    @Test func emptyAndForeignFilesAreRefused() async throws {
        #expect(try openError([]) == .notADocument(reason: "the file is empty"))
        #expect(try openError(Array("just some text, not a zip".utf8)) == .zip(.notAZip, message: "no end-of-central-directory record"))
    }

    @Test func onlyTheThreeKnownEntriesAreAllowed() async throws {
        var builder = ZipBuilder.document()
        builder.entries.append(.init(name: "notes.txt", data: [1, 2, 3]))
        #expect(try openError(builder.build()) == .unexpectedEntry("notes.txt"))
        builder = ZipBuilder.document()
        builder.entries.append(.init(name: "Folder/metadata.json", data: [1]))
        #expect(try openError(builder.build()) == .unexpectedEntry("Folder/metadata.json"))
    }

    @Test func hostileNamesAreRefused() async throws {
        for (name, expected) in [("../content.pdf", ArchiveError.Kind.pathTraversal("../content.pdf")),
                                 ("a/../../x", .pathTraversal("a/../../x")),
                                 ("..\\evil", .pathTraversal("..\\evil")),
                                 ("/etc/passwd", .absolutePath("/etc/passwd")),
                                 ("C:\\Windows\\x", .absolutePath("C:\\Windows\\x"))] {
            var builder = ZipBuilder.document()
            builder.entries.append(.init(name: name, data: [0]))
            #expect(try openError(builder.build()) == expected, "\(name)")
        }
    }

    @Test func duplicateNamesAreRefusedAlsoAfterCaseFoldingAndNormalisation() async throws {
        var builder = ZipBuilder.document()
        builder.entries.append(.init(name: "metadata.json", data: Array("{}".utf8)))
        #expect(try openError(builder.build()) == .duplicateEntry("metadata.json", "metadata.json"))

        builder = ZipBuilder.document()
        builder.entries.append(.init(name: "Content.PDF", data: [0]))
        #expect(try openError(builder.build()) == .duplicateEntry("content.pdf", "Content.PDF"))

        builder = ZipBuilder.document()
        builder.entries.append(.init(name: "caf\u{E9}", data: [0]))
        builder.entries.append(.init(name: "cafe\u{301}", data: [0]))
        #expect(try openError(builder.build()) == .duplicateEntry("caf\u{E9}", "cafe\u{301}"))
    }

    @Test func symlinkAndEncryptedEntriesAreRefused() async throws {
        var builder = ZipBuilder.document()
        builder.entries[1].externalAttributes = 0o120777 << 16
        #expect(try openError(builder.build()) == .symlinkEntry("content.pdf"))

        builder = ZipBuilder.document()
        builder.entries[1].flags = 1
        #expect(try openError(builder.build()) == .encryptedEntry("content.pdf"))
    }

    @Test func storedEntriesWithTwoSizesAreRefused() async throws {
        var builder = ZipBuilder.document()
        let size = UInt64(builder.entries[1].data.count)
        builder.entries[1].uncompressedSize = UInt32(size) + 100
        #expect(try openError(builder.build()) == .storedSizeMismatch("content.pdf", compressed: size, uncompressed: size + 100))
    }

    @Test func overlappingEntriesAreRefused() async throws {
        // Both central entries point at the same local header: the shape of a zip bomb.
        var builder = ZipBuilder.document()
        builder.entries[2].centralOffset = 0
        builder.entries[2].name = "format.json"
        builder.entries[2].data = builder.entries[0].data
        #expect(try openError(builder.build()) == .overlappingEntries("metadata.json", "format.json"))
    }

    @Test func hugeDeclaredSizesAreRefusedWithoutAllocating() async throws {
        var builder = ZipBuilder.document()
        builder.entries[1].compressedSize = 0xFFFF_FFF0
        builder.entries[1].uncompressedSize = 0xFFFF_FFF0
        #expect(try openError(builder.build()) == .overlappingEntries("content.pdf", ""))
    }

    @Test func anArchiveWithoutMetadataIsRefused() async throws {
        var builder = ZipBuilder.document()
        builder.entries.removeFirst()
        #expect(try openError(builder.build()) == .missingMetadata)
    }

    @Test func aDamagedCentralDirectoryIsReported() async throws {
        var bytes = ZipBuilder.document().build()
        // Overwrite the first central header's signature.
        let cd = Int(UInt32(bytes[bytes.count - 6]) | UInt32(bytes[bytes.count - 5]) << 8)
        bytes[cd] = 0
        #expect(try openError(bytes) == .centralDirectoryDamaged("entry 1 is damaged"))
    }
}

@Suite("archive writer")
struct ArchiveWriterTests {
    /// ZIP64 fields are only needed past 4 GiB; a lowered limit writes them for every entry
    /// and the end record, and libzip and the layout parser must read the result.
    @Test func zip64ArchivesAreReadBackByLibzip() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Big.yianazip")
        let fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0o644)
        defer { close(fd) }
        let metadata = DocumentMetadata(title: "Big", pageCount: 1)
        let pdf = Data("%PDF-1.4\n".utf8) + Data(repeating: 0x5A, count: 70_000)
        try ArchiveWriter.write(metadata: metadata.jsonData(), pdf: .data(pdf), toFD: fd, path: path, zip64Limit: 0)
        let reader = try DocumentReader(path: path)
        #expect(try reader.verifyContents() == metadata)
        #expect(reader.entries.map(\.name) == ["metadata.json", "content.pdf", "format.json"])
        var read = Data()
        try reader.readPDF { read.append(contentsOf: $0) }
        #expect(read == pdf)
        #expect(try await runProcess(URL(fileURLWithPath: "/usr/bin/unzip"), ["-tq", path]).status == 0)
    }

    @Test func aPDFFromAFileIsCopiedExactly() async throws {
        let folder = try TemporaryFolder()
        let source = folder.path("in.pdf")
        // More 1 MiB blocks than the copier's ring holds, so that its buffers are reused; no
        // two blocks alike, so that one out of place would show.
        var body = Data(count: 12_000_000)
        body.withUnsafeMutableBytes { raw in
            let words = raw.bindMemory(to: UInt64.self)
            for i in words.indices { words[i] = UInt64(i) &* 0x9E37_79B9_7F4A_7C15 }
        }
        let pdf = Data("%PDF-1.4\n".utf8) + body
        try pdf.write(to: URL(fileURLWithPath: source))
        let fd = open(source, O_RDONLY)
        defer { close(fd) }
        let path = folder.path("Doc.yianazip")
        try CoordinatedDocument.create(at: path, metadata: DocumentMetadata(title: "Doc", pageCount: 1),
                                       pdf: .file(try SourceFile(fd: fd, path: source)))
        let reader = try DocumentReader(path: path)
        var read = Data()
        try reader.readPDF { read.append(contentsOf: $0) }
        #expect(read == pdf)
        #expect(reader.pdf?.crc32 == TableCRC32.checksum(Array(pdf)))
        #expect(try await runProcess(URL(fileURLWithPath: "/usr/bin/unzip"), ["-tq", path]).status == 0)
    }
}

/// A counter threads add to.
final class ManagedAtomicCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

import Crypto
import Foundation
import YianaTestSupport
import Testing
@testable import YianaArchive
import YianaSystem

@Suite("coordinated reads and writes")
struct CoordinatedDocumentTests {
    let metadata = DocumentMetadata(title: "Old", pageCount: 1)
    let oldPDF = Data("%PDF-1.4\nold".utf8)

    func makeDocument(in folder: TemporaryFolder, name: String = "Doc.yianazip") throws -> (path: String, bytes: Data) {
        let path = folder.path(name)
        try CoordinatedDocument.create(at: path, metadata: metadata, pdf: .data(oldPDF))
        return (path, try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    @Test func aReplaceThatFailsVerificationLeavesTheOldDocumentAndNoTempFile() async throws {
        let folder = try TemporaryFolder()
        let (path, before) = try makeDocument(in: folder)
        struct Injected: Error {}
        #expect(throws: Injected.self) {
            try CoordinatedDocument.write(at: path, metadata: DocumentMetadata(title: "New", pageCount: 1),
                                          pdf: .data(Data("%PDF-1.4\nnew".utf8)), replacing: true,
                                          timeout: 5, afterVerify: { _ in throw Injected() })
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(folder.contents() == ["Doc.yianazip"])
    }

    /// Eviction and deletion remove a document only if it is still the version that was
    /// read (and kept, or uploaded): a newer one written meanwhile stays.
    @Test func aRemovalExpectingTheVersionItReadNeverRemovesANewerOne() async throws {
        let folder = try TemporaryFolder()
        let (path, _) = try makeDocument(in: folder)
        let read = FileIdentity.current(at: path)
        try CoordinatedDocument.replace(at: path, metadata: DocumentMetadata(title: "Theirs", pageCount: 1), pdf: .data(oldPDF))
        do {
            try CoordinatedDocument.remove(at: path, expecting: read)
            Issue.record("removed a version it had not read")
        } catch ArchiveError.Code.documentChanged {
        }
        #expect(try DocumentReader(path: path).metadata().title == "Theirs")
        try CoordinatedDocument.remove(at: path, expecting: FileIdentity.current(at: path))
        #expect(folder.contents().isEmpty)

        // A data-less stand-in takes the name and size, with no data, on the same terms.
        let (other, _) = try makeDocument(in: folder)
        let size = try #require(FileManager.default.attributesOfItem(atPath: other)[.size] as? Int)
        #expect(throws: ArchiveError.self) { try CoordinatedDocument.replaceWithDataless(at: other, size: 1, expecting: read) }
        try CoordinatedDocument.replaceWithDataless(at: other, size: UInt64(size), expecting: FileIdentity.current(at: other))
        #expect(try FileManager.default.attributesOfItem(atPath: other)[.size] as? Int == size)
        #expect(try Data(contentsOf: URL(fileURLWithPath: other)).allSatisfy { $0 == 0 })
        #expect(folder.contents() == ["Doc.yianazip"])
    }

    @Test func aWriteExpectingTheVersionItReadNeverOverwritesANewerOne() async throws {
        let folder = try TemporaryFolder()
        let (path, _) = try makeDocument(in: folder)
        let read = FileIdentity.current(at: path)
        // Another process writes meanwhile.
        try CoordinatedDocument.replace(at: path, metadata: DocumentMetadata(title: "Theirs", pageCount: 1), pdf: .data(oldPDF))
        let theirs = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect {
            try CoordinatedDocument.write(at: path, metadata: DocumentMetadata(title: "Mine", pageCount: 1), pdf: .data(oldPDF),
                                          replacing: true, checkingWith: { _ in }, expecting: read)
        } throws: { ($0 as? ArchiveError)?.kind == .documentChanged }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == theirs)
        #expect(folder.contents() == ["Doc.yianazip"])
        #expect(throws: ArchiveError.self) { try CoordinatedDocument.replace(at: path, withBytesOf: path, expecting: read) }

        // Expecting what is there now, it writes; expecting nothing there, it creates only.
        try CoordinatedDocument.write(at: path, metadata: DocumentMetadata(title: "Mine", pageCount: 1), pdf: .data(oldPDF),
                                      replacing: true, checkingWith: { _ in }, expecting: FileIdentity.current(at: path))
        #expect(try DocumentReader(path: path).metadata().title == "Mine")
        #expect(throws: ArchiveError.self) {
            try CoordinatedDocument.write(at: path, metadata: metadata, pdf: nil, replacing: true, checkingWith: { _ in }, expecting: .absent)
        }
        try CoordinatedDocument.write(at: folder.path("New.yianazip"), metadata: metadata, pdf: nil, replacing: true,
                                      checkingWith: { _ in }, expecting: .absent)
        #expect(FileIdentity.current(at: folder.path("New.yianazip")) != .absent)
    }

    @Test func aWriteThatFailsHalfwayLeavesTheOldDocumentAndNoTempFile() async throws {
        let folder = try TemporaryFolder()
        let (path, before) = try makeDocument(in: folder)
        struct DiskFull: Error {}
        #expect(throws: DiskFull.self) {
            try CoordinatedDocument.atomicWrite(to: path, replacing: true, timeout: 5) { fd, tempPath in
                try Sys.writeAll(fd, "PK\u{3}\u{4} partial", 12, path: tempPath)
                throw DiskFull()
            } verify: { _ in }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(folder.contents() == ["Doc.yianazip"])
    }

    @Test func aReplaceSwapsTheWholeDocument() async throws {
        let folder = try TemporaryFolder()
        let (path, _) = try makeDocument(in: folder)
        let newMetadata = DocumentMetadata(title: "New", pageCount: 2)
        try CoordinatedDocument.replace(at: path, metadata: newMetadata, pdf: nil)
        let reader = try DocumentReader(path: path)
        #expect(try reader.metadata() == newMetadata)
        #expect(reader.pdf == nil)
        #expect(folder.contents() == ["Doc.yianazip"])
    }

    @Test func createNeverReplacesAnExistingFile() async throws {
        let folder = try TemporaryFolder()
        let (path, before) = try makeDocument(in: folder)
        #expect { try CoordinatedDocument.create(at: path, metadata: DocumentMetadata(title: "B", pageCount: 1), pdf: nil) }
            throws: { ($0 as? ArchiveError)?.kind == .alreadyExists }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// Import's one read: the PDF's SHA-256 is computed during the copy (here over more of
    /// its 1 MiB blocks than the copy's ring of buffers holds, and a part block) and
    /// recorded as `pdfHash`; the rest is as given.
    @Test func aCreateThatHashesThePDFRecordsItsSHA256() async throws {
        let folder = try TemporaryFolder()
        let bytes = Data((0..<(11 << 20) + 4321).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) })
        let expected = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
        try bytes.write(to: URL(fileURLWithPath: folder.path("in.pdf")))
        let fd = open(folder.path("in.pdf"), O_RDONLY)
        defer { close(fd) }

        let path = folder.path("New.yianazip")
        let written = try CoordinatedDocument.create(at: path, metadata: metadata, pdf: .file(try SourceFile(fd: fd, path: folder.path("in.pdf"))), hashingPDF: true)
        #expect(written.pdfHash == expected)
        var meant = metadata
        meant.pdfHash = expected
        #expect(written == meant)
        let reader = try DocumentReader(path: path)
        #expect(try reader.verifyContents() == meant)
        var stored = Data()
        try reader.readPDF { stored.append(contentsOf: $0) }
        #expect(stored == bytes)
        // The file's own hash, which could only be had once metadata.json held the PDF's: taken
        // beside the fsync and handed to the keeper (``OwnWrites``), so it need not read it again.
        let identity = try #require(FileIdentity(path: path))
        #expect(OwnWrites.sha256(ofWritten: path, identity: identity) == (try FileHash.sha256(of: URL(fileURLWithPath: path))))

        let small = try CoordinatedDocument.create(at: folder.path("Small.yianazip"), metadata: metadata, pdf: .data(oldPDF), hashingPDF: true)
        #expect(small.pdfHash == SHA256.hash(data: oldPDF).map { String(format: "%02x", $0) }.joined())
        #expect(try DocumentReader(path: folder.path("Small.yianazip")).verifyContents() == small)
    }

    /// Another program appends to the source, or cuts it short, after it was first looked at.
    @Test(arguments: [false, true], [false, true])
    func aSourceThatChangesDuringTheWriteIsCaught(hashing: Bool, shrinks: Bool) async throws {
        let folder = try TemporaryFolder()
        let pdfPath = folder.path("in.pdf")
        try Data("%PDF-1.4\nfirst".utf8 + Data(repeating: 7, count: 3 << 20)).write(to: URL(fileURLWithPath: pdfPath))
        let fd = open(pdfPath, O_RDWR)
        defer { close(fd) }
        let source = try SourceFile(fd: fd, path: pdfPath)
        if shrinks {
            #expect(ftruncate(fd, (2 << 20) + 5) == 0)
        } else {
            _ = "more".withCString { pwrite(fd, $0, 4, off_t(source.size)) }
        }
        let path = folder.path("New.yianazip")
        #expect {
            try CoordinatedDocument.create(at: path, metadata: metadata, pdf: .file(source), hashingPDF: hashing)
        } throws: { ($0 as? ArchiveError)?.kind == .sourceChanged(pdfPath) }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(folder.contents() == ["in.pdf"])
    }

    @Test func aReaderWaitsForAWriterThenTimesOutNamingTheDocument() async throws {
        let folder = try TemporaryFolder()
        let (path, _) = try makeDocument(in: folder)
        let writer = try DocumentLock(document: path, mode: .exclusive, timeout: 1)
        // Locks live on this machine, never in the synced folder.
        #expect(folder.contents() == ["Doc.yianazip"])
        #expect(!(try DocumentLock.lockFile().path.hasPrefix(folder.url.path)))
        do {
            _ = try CoordinatedDocument.read(path, timeout: 0.2) { _ in 0 }
            Issue.record("read while a writer held the lock")
        } catch let error as ArchiveError {
            #expect(error.kind == .lockTimeout(seconds: 0.2))
            #expect(error.description.contains(path))
        }
        writer.release()
        #expect(try CoordinatedDocument.read(path, timeout: 0.2) { try $0.metadata().title } == "Old")
        #expect(folder.contents() == ["Doc.yianazip"])
    }

    @Test func readersShareAndWritersExclude() async throws {
        let folder = try TemporaryFolder()
        let (path, _) = try makeDocument(in: folder)
        let first = try DocumentLock(document: path, mode: .shared, timeout: 1)
        let second = try DocumentLock(document: path, mode: .shared, timeout: 1)
        #expect { try DocumentLock(document: path, mode: .exclusive, timeout: 0.1) }
            throws: { ($0 as? ArchiveError)?.kind == .lockTimeout(seconds: 0.1) }
        first.release()
        second.release()
        let writer = try DocumentLock(document: path, mode: .exclusive, timeout: 1)
        writer.release()
        #expect(folder.contents() == ["Doc.yianazip"])
    }

    /// What a sync program does to a folder (deletes every file, renames another version over
    /// the document, adds files) cannot release or steal a lock: a writer in another
    /// process still waits for the reader.
    @Test func whatSyncDoesToTheFolderCannotBreakALock() async throws {
        let folder = try TemporaryFolder()
        let (path, _) = try makeDocument(in: folder)
        let reader = try DocumentLock(document: path, mode: .shared, timeout: 1)
        for name in folder.contents() { try FileManager.default.removeItem(atPath: folder.path(name)) }
        let (other, _) = try makeDocument(in: folder, name: "Incoming.yianazip")
        #expect(rename(other, path) == 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: folder.path(".Doc.yianazip.lock")))
        let stress = Fixtures.productsFolder.appendingPathComponent("yiana-stress")
        let during = try await runProcess(stress, ["lock", path, "0.3"])
        #expect(during.status == 3, "another process took the write lock under a live reader: \(during.stderr)")
        reader.release()
        let after = try await runProcess(stress, ["lock", path, "0.3"])
        #expect(after.status == 0, "\(after.stderr)")
        // Every spelling of the document's path gets the same lock.
        #expect(DocumentLock.offset(for: path) == DocumentLock.offset(for: folder.path("./sub/../Doc.yianazip")))
    }

    /// Several processes write and read one document many times: every read sees one whole
    /// version (CRC-checked, and its PDF is exactly the one its metadata names) and the
    /// document verifies at the end.
    @Test func manyProcessesWritingAndReadingOneDocument() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("Shared.yianazip")
        let stress = Fixtures.productsFolder.appendingPathComponent("yiana-stress")
        #expect(try await runProcess(stress, ["write", path, "--iterations", "1", "--seed", "1"]).status == 0)

        var processes: [(Process, Pipe)] = []
        for index in 0..<6 {
            let process = Process()
            process.executableURL = stress
            process.arguments = [index < 3 ? "write" : "read", path, "--iterations", "40", "--seed", "\(index + 10)", "--max-bytes", "200000"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            try process.run()
            processes.append((process, pipe))
        }
        for (process, pipe) in processes {
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(output)")
            #expect(output.contains(#""succeeded":40"#), "\(output)")
        }
        #expect(try await runProcess(stress, ["read", path, "--iterations", "1"]).status == 0)
        try DocumentReader(path: path).verifyContents()
        #expect(folder.contents() == ["Shared.yianazip"])
    }
}

import Crypto
import Foundation
import YianaSystem

extension CoordinatedDocument {
    /// Writes the document's PDF to `outPath` atomically: a CRC error (or any other) leaves
    /// no partial file behind, and an existing file is replaced only when `overwrite` is set.
    /// Returns the CRC-32 its bytes were checked against (nil for a legacy document, which has none).
    /// `scratch`: a working copy that is read at once and swept after a crash, so it is not
    /// `fsync`ed (for a 200 MB PDF that wait is a quarter of a second).
    /// - Throws: ``ArchiveError`` (`.missingPDF`, `.crcMismatch`, `.alreadyExists`, …).
    @discardableResult
    public static func exportPDF(of documentPath: String, to outPath: String, overwrite: Bool, scratch: Bool = false,
                                 timeout: Double = defaultLockTimeout) throws -> UInt32? {
        try read(documentPath, timeout: timeout) { reader in
            guard let pdf = reader.pdf else { throw ArchiveError(.missingPDF, path: documentPath) }
            try atomicWrite(to: outPath, replacing: overwrite, timeout: timeout, recording: !scratch, durable: !scratch) { fd, tempPath in
                try reader.writePDF(toFD: fd, outPath: tempPath)
                return nil
            } verify: { _ in }
            return pdf.crc32
        }
    }
}

extension CoordinatedDocument {
    /// Replaces (or creates) the document at `path` with the exact bytes of the file at
    /// `source` (a version kept earlier, say), atomically: the copy must open and verify as
    /// a document (any format it may be in) before it takes the document's name.
    /// - Throws: ``ArchiveError``; on any error the existing document is untouched.
    /// With `expecting`, only if the document is still that version (see ``write(at:metadata:pdf:replacing:checkingWith:expecting:timeout:)``).
    public static func replace(at path: String, withBytesOf source: String, expecting: FileIdentity? = nil,
                               timeout: Double = defaultLockTimeout) throws {
        let input = try RegularFile.openForReading(source)
        defer { Sys.close(input) }
        let file = try SourceFile(fd: input, path: source)
        try atomicWrite(to: path, replacing: true, expecting: expecting, timeout: timeout) { fd, tempPath in
            let buffer = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            // Hashed as it is written, in the file's order: the keeper keeps the restored
            // document without reading it again.
            var sha256 = SHA256()
            var done: UInt64 = 0
            while done < file.size {
                let n = try Sys.pread(input, buffer, Int(min(1 << 20, file.size - done)), done, path: source)
                guard n > 0 else { throw ArchiveError(.sourceChanged(source), path: path) }
                try Sys.pwriteAll(fd, buffer, n, done, path: tempPath)
                sha256.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: n))
                done += UInt64(n)
            }
            try file.checkUnchanged(writing: path)
            return FileHash.hex(sha256.finalize())
        } verify: { tempPath in
            do {
                try DocumentReader(path: tempPath).verifyContents()
            } catch let error as ArchiveError where error.path == tempPath {
                throw ArchiveError(.verificationFailed(error.description), path: path)
            }
        }
    }
}

extension CoordinatedDocument {
    /// Replaces (or creates) the file at `path`, which is not a document (one of the app's
    /// companion files), with `data`, crash-safely and under the same lock, only if it is
    /// still the version `expecting` (``FileIdentity/absent`` when it must not exist yet);
    /// `verify` reads the written copy back before it takes the name. `recording: false` for
    /// a file that always reads whole (JSON the app decodes), which is therefore never taken
    /// for one a sync program is still writing: no record that this machine wrote it
    /// (``OwnWrites``) is needed, and thousands of writes make half the files.
    /// - Throws: ``ArchiveError`` (`.documentChanged` when another process wrote it meanwhile).
    public static func replace(at path: String, with data: Data, expecting: FileIdentity?,
                               timeout: Double = defaultLockTimeout, recording: Bool = true, verify: (String) throws -> Void) throws {
        try atomicWrite(to: path, replacing: true, expecting: expecting, timeout: timeout, recording: recording) { fd, tempPath in
            try data.withUnsafeBytes { bytes in
                guard let base = bytes.baseAddress, bytes.count > 0 else { return }
                try Sys.pwriteAll(fd, base, bytes.count, 0, path: tempPath)
            }
            return nil
        } verify: { tempPath in
            try verify(tempPath)
        }
    }
}

import Foundation
import YianaSystem

/// Every read and write of a document file goes through here: reads under a shared lock,
/// writes under an exclusive one, and every write is crash-safe.
///
/// A write never touches the document in place. It goes to a hidden temporary file in the
/// same folder (created with `O_EXCL`), which is `fsync`ed and, meanwhile, re-opened and
/// verified by libzip (ZIP structure, every CRC, metadata decodes and equals what was
/// meant); only when both have succeeded is it renamed
/// over the document (or, for a new document, linked to its name so that an existing file
/// is never replaced), after which the folder is `fsync`ed. Killed at any instant, the
/// document is its old version or its new one; a temporary file left behind by a kill is
/// hidden and named `.<name>.yiana-tmp-XXXXXXXX`, so `verify` can find it.
public enum CoordinatedDocument {
    /// How long a read or write waits for another process by default, in seconds.
    public static let defaultLockTimeout: Double = 30
    /// The marker in the names of the toolkit's own temporary files.
    public static let temporaryMarker = TemporaryFile.marker

    /// Opens the document under a shared lock and passes the reader to `body`.
    /// - Throws: ``ArchiveError`` (lock timeout, damaged archive, …) or what `body` throws.
    public static func read<T>(_ path: String, timeout: Double = defaultLockTimeout,
                               _ body: (DocumentReader) throws -> T) throws -> T {
        let lock = try DocumentLock(document: path, mode: .shared, timeout: timeout)
        defer { lock.release() }
        return try body(try DocumentReader(path: path))
    }

    /// Writes a new document at `path`; never replaces an existing file. With `hashingPDF`,
    /// `pdfHash` is set to the SHA-256 of the PDF, computed while the PDF is copied: the
    /// source is read once, not once for the hash and again for the copy. Returns the
    /// metadata written.
    /// - Throws: ``ArchiveError`` `.alreadyExists` when the name is taken (pick another
    ///   name and retry), or the error that stopped the write; nothing is left behind.
    @discardableResult
    public static func create(at path: String, metadata: DocumentMetadata, pdf: PDFPayload?, hashingPDF: Bool = false,
                              timeout: Double = defaultLockTimeout) throws -> DocumentMetadata {
        try write(at: path, metadata: metadata, pdf: pdf, replacing: false, hashingPDF: hashingPDF, timeout: timeout)
    }

    /// Replaces the document at `path` (or creates it), atomically.
    /// - Throws: ``ArchiveError``; on any error the existing document is untouched.
    public static func replace(at path: String, metadata: DocumentMetadata, pdf: PDFPayload?,
                               timeout: Double = defaultLockTimeout) throws {
        try write(at: path, metadata: metadata, pdf: pdf, replacing: true, timeout: timeout)
    }

    /// Creates or replaces the document at `path` like ``create(at:metadata:pdf:timeout:)``
    /// and ``replace(at:metadata:pdf:timeout:)``, running `check` on the verified temporary
    /// file before it may take the document's name (repair requires its result to pass `verify`).
    /// - Throws: ``ArchiveError``, or what `check` throws; then nothing is written.
    ///
    /// With `expecting`, a replacing write takes place only if the document is still that
    /// version of the file when the lock is held (else ``ArchiveError`` `.documentChanged`):
    /// a read-modify-write never overwrites what another process wrote meanwhile. With
    /// `hashingPDF`, `pdfHash` is computed while the PDF is copied, as for ``create(at:metadata:pdf:hashingPDF:timeout:)``.
    /// `scratch`: a file of this machine's scratch space that a crash may lose (a dry run's
    /// proof that a repair would work): not flushed to disk, not handed to the keeper.
    @discardableResult
    public static func write(at path: String, metadata: DocumentMetadata, pdf: PDFPayload?, replacing: Bool,
                             checkingWith check: (String) throws -> Void, expecting: FileIdentity? = nil, hashingPDF: Bool = false,
                             scratch: Bool = false, timeout: Double = defaultLockTimeout) throws -> DocumentMetadata {
        try write(at: path, metadata: metadata, pdf: pdf, replacing: replacing, hashingPDF: hashingPDF, expecting: expecting,
                  scratch: scratch, timeout: timeout, afterVerify: check)
    }

    @discardableResult
    static func write(at path: String, metadata: DocumentMetadata, pdf: PDFPayload?, replacing: Bool, hashingPDF: Bool = false,
                      expecting: FileIdentity? = nil, scratch: Bool = false, timeout: Double,
                      afterVerify: (String) throws -> Void = { _ in }) throws -> DocumentMetadata {
        var meant = metadata
        let encode = { (pdfHash: String?) throws -> Data in
            var filled = metadata
            if let pdfHash { filled.pdfHash = pdfHash }
            return try filled.jsonData()
        }
        let keeping = !scratch && OwnWrites.keeping()
        try atomicWrite(to: path, replacing: replacing, expecting: expecting, timeout: timeout, recording: !scratch,
                        hashing: keeping, durable: !scratch) { fd, tempPath in
            let hashes: ArchiveWriter.Hashes
            do {
                hashes = try ArchiveWriter.write(metadata: encode, pdf: pdf, hashingPDF: hashingPDF, hashingFile: keeping,
                                                 toFD: fd, path: tempPath)
                if let hash = hashes.pdf { meant.pdfHash = hash }
            } catch let error as ArchiveError where error.path == tempPath {
                throw ArchiveError(error.kind, path: path)
            }
            if case .file(let file) = pdf { try file.checkUnchanged(writing: path) }
            return hashes.file
        } verify: { tempPath in
            do {
                let reader = try DocumentReader(path: tempPath)
                // A PDF copied from a file was read back block by block while it was copied and
                // checked against the source's CRC (ArchiveWriter); everything else is read
                // back here through libzip.
                var pdfFromFile = false
                if case .file = pdf { pdfFromFile = true }
                let written = try reader.verifyContents(pdfBytesChecked: pdfFromFile)
                guard written == meant else { throw ArchiveError(.verificationFailed("metadata read back differs"), path: path) }
                guard reader.pdf?.size == pdf?.size else {
                    throw ArchiveError(.verificationFailed("content.pdf has \(reader.pdf?.size ?? 0) bytes, expected \(pdf?.size ?? 0)"), path: path)
                }
            } catch let error as ArchiveError where error.path == tempPath {
                // libzip found the new file wrong (a CRC that does not match, say): report it
                // against the document, whose old version is untouched.
                throw ArchiveError(.verificationFailed(error.description), path: path)
            }
            try afterVerify(tempPath)
        }
        return meant
    }

    /// The crash-safe write protocol (``TemporaryFile``) under the document's lock,
    /// independent of what is written.
    /// `fill` writes the new file and returns its SHA-256 when it hashed what it wrote (handed
    /// to ``OwnWrites`` with the file, for this machine's keeper to keep it without reading it again).
    /// With `hashing`, a file `fill` did not hash is hashed here, from the page cache, while the
    /// disk takes it (beside the fsync): a document whose PDF hash had to be known before the
    /// file's first bytes could be (an import: `metadata.json`, first, holds it).
    /// `durable: false` for a scratch file that a crash may lose (it is swept): no `fsync`s.
    static func atomicWrite(to path: String, replacing: Bool, expecting: FileIdentity? = nil, timeout: Double, recording: Bool = true,
                            hashing: Bool = false, durable: Bool = true,
                            fill: (Int32, String) throws -> String?, verify: (String) throws -> Void) throws {
        let lock = try DocumentLock(document: path, mode: .exclusive, timeout: timeout)
        defer { lock.release() }

        let existing = try? Sys.lstat(path)
        if !replacing, existing != nil { throw ArchiveError(.alreadyExists, path: path) }
        if let expecting, existing.map(FileIdentity.init) ?? .absent != expecting { throw ArchiveError(.documentChanged, path: path) }

        do {
            let file = try TemporaryFile(beside: path)
            if let existing, existing.isRegularFile {
                try Sys.fchmod(file.fd, existing.permissions, path: file.path)
            }
            let handed = try fill(file.fd, file.path)
            // The fsync waits on the disk, the verification (and a hash not yet had) reads the
            // page cache: run them side by side. Both must succeed before the file may take the
            // document's name; a hash that fails only leaves the keeper to read the file itself.
            let (fd, tempPath) = (file.fd, file.path)
            // A scratch file is not flushed: no thread for it.
            let flush = durable ? BackgroundWork<Void> { try Sys.fsync(fd, path: tempPath) } : nil
            let hash = handed == nil && hashing && recording ? BackgroundWork<String> { try FileHash.sha256(of: URL(fileURLWithPath: tempPath)) } : nil
            do {
                try verify(file.path)
            } catch {
                _ = try? flush?.wait()
                _ = try? hash?.wait()
                file.discard()  // only now: the flush used its descriptor, the hash its name, until here
                throw error
            }
            let sha256 = handed ?? (try? hash?.wait())
            do { try flush?.wait() } catch {
                file.discard()
                throw error
            }
            try file.place(at: path, replacing ? .replacing : .creating, durable: durable)
            // Still under the lock: no other writer of ours can slip in.
            if recording { OwnWrites.note(path, sha256: sha256) } else { OwnWrites.noteChanged(path) }
        } catch SystemError.Code.exists where !replacing {
            throw ArchiveError(.alreadyExists, path: path)
        } catch let error as SystemError {
            throw ArchiveError(.system(error), path: path)
        }
    }

    /// Replaces the document at `path` by a file of the same name and `size` holding no data
    /// (a sparse file: how iCloud leaves an evicted file on a Mac), crash-safely, only if it
    /// is still the version `expecting`.
    public static func replaceWithDataless(at path: String, size: UInt64, expecting: FileIdentity,
                                           timeout: Double = defaultLockTimeout) throws {
        try atomicWrite(to: path, replacing: true, expecting: expecting, timeout: timeout) { fd, tempPath in
            try Sys.ftruncate(fd, size, path: tempPath)
            return nil
        } verify: { _ in }
    }

    /// Removes the document at `path` under its exclusive lock, only if it is still the
    /// version `expecting` (else ``ArchiveError`` `.documentChanged`): eviction and deletion
    /// never remove what another process wrote meanwhile.
    public static func remove(at path: String, expecting: FileIdentity, timeout: Double = defaultLockTimeout) throws {
        let lock = try DocumentLock(document: path, mode: .exclusive, timeout: timeout)
        defer { lock.release() }
        guard FileIdentity.current(at: path) == expecting else { throw ArchiveError(.documentChanged, path: path) }
        do {
            try Sys.unlink(path)
            OwnWrites.noteRemoved(path)
            try Sys.fsyncDirectory(URL(fileURLWithPath: path).deletingLastPathComponent().path)
        } catch {
            throw ArchiveError(.system(error), path: path)
        }
    }
}

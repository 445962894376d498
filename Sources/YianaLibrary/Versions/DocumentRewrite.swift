import Foundation
import YianaFolder
import YianaHistory
import YianaArchive
import YianaSystem

/// Writes documents made from other documents (a new id, a new title, merged metadata),
/// always through the coordinated writer.
public struct DocumentRewrite: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// Writes `metadata` with the PDF of the document at `pdfSource` (or none) to
    /// `destination`: replacing what is there, or as a new document (never replacing).
    /// The PDF is read out through libzip (CRC-checked) into a scratch file of this machine's
    /// (``LocalState/scratch()``, never in the synced folder) and streamed from there, so memory use does not grow with its size.
    /// `check` runs on the finished temporary file before it takes the name. With
    /// `expecting`, the destination is replaced only if it is still that version of the
    /// file (``ArchiveError`` `.documentChanged` otherwise).
    /// - Throws: ``ArchiveError``, or what `check` throws; nothing is written on error.
    public func write(_ metadata: DocumentMetadata, pdfFrom pdfSource: URL?, to destination: URL, replacing: Bool,
                      expecting: FileIdentity? = nil, scratch: Bool = false, check: (String) throws -> Void = { _ in }) throws {
        guard let pdfSource, let hasPDF = try? DocumentReader(path: pdfSource.path).pdf != nil, hasPDF else {
            try write(metadata, pdfFile: nil, to: destination, replacing: replacing, expecting: expecting, scratch: scratch, check: check)
            return
        }
        let temp = try scratchFolder().appendingPathComponent("pdf-\(UUID().uuidString)")
        let crc = try CoordinatedDocument.exportPDF(of: pdfSource.path, to: temp.path, overwrite: false, scratch: true)
        defer { Sys.removeIfPresent(temp.path) }
        try write(metadata, pdfFile: temp, crc32: crc, to: destination, replacing: replacing, expecting: expecting, scratch: scratch, check: check)
    }

    /// Writes `metadata` with the PDF file `pdfFile` (or none), like
    /// ``write(_:pdfFrom:to:replacing:check:)``; with `hashingPDF`, `pdfHash` is set to the
    /// SHA-256 of the PDF computed while it is copied. `crc32`: the PDF file's CRC-32 when it is
    /// known (then, without `hashingPDF`, the new file is hashed as it is written, for the
    /// keeper). `scratch`: the destination is a scratch file (not flushed, not kept). Returns
    /// the metadata written.
    @discardableResult
    public func write(_ metadata: DocumentMetadata, pdfFile: URL?, crc32: UInt32? = nil, to destination: URL, replacing: Bool,
                      expecting: FileIdentity? = nil, hashingPDF: Bool = false, scratch: Bool = false,
                      check: (String) throws -> Void = { _ in }) throws -> DocumentMetadata {
        guard let pdfFile else {
            return try CoordinatedDocument.write(at: destination.path, metadata: metadata, pdf: nil, replacing: replacing,
                                                 checkingWith: check, expecting: expecting, scratch: scratch)
        }
        let fd = try RegularFile.openForReading(pdfFile.path)
        defer { Sys.close(fd) }
        var source = try SourceFile(fd: fd, path: pdfFile.path)
        source.crc32 = crc32
        return try CoordinatedDocument.write(at: destination.path, metadata: metadata, pdf: .file(source), replacing: replacing,
                                             checkingWith: check, expecting: expecting, hashingPDF: hashingPDF, scratch: scratch)
    }

    /// This machine's scratch folder for the library (``LocalState/scratch()``).
    public func scratchFolder() throws -> URL {
        try LocalState(library: library).scratch()
    }

    /// Keeps the document at `url` in the version store, then removes it — under its lock,
    /// so no writer can slip in between; with `expecting`, only if it is still that version.
    /// - Returns: the version record it was kept as.
    @discardableResult
    public func keepAndRemove(_ url: URL, reason: String, expecting: FileIdentity? = nil) throws -> VersionRecord {
        let current = FileIdentity.current(at: url.path)
        if let expecting, current != expecting { throw ArchiveError(.documentChanged, path: url.path) }
        let record = try VersionStore(library: library).keep(url, reason: reason)
        try CoordinatedDocument.remove(at: url.path, expecting: current)
        return record
    }

    /// A free file name for a new document titled `title` in `folder`, numbered as the app
    /// does, passing over `reserved` names (planned but not written yet).
    public func freeName(for title: String, in folder: URL, reserved: Set<String> = [], numberedFrom first: Int = 0) -> URL {
        let stem = DocumentNaming.stem(forTitle: title)
        var number = first
        while true {
            let name = DocumentNaming.fileName(stem: stem, number: number)
            if !reserved.contains(name.lowercased()), !DocumentNaming.isTaken(name, in: folder) {
                return folder.appendingPathComponent(name)
            }
            number += 1
        }
    }

    /// Writes `metadata` as a new document at `destination`, or, should that name have been
    /// taken meanwhile (by another process), under the next free name.
    /// - Returns: where it was written.
    @discardableResult
    public func writeNew(_ metadata: DocumentMetadata, pdfFrom pdfSource: URL?, preferring destination: URL) throws -> URL {
        var target = destination
        for _ in 0..<100 {
            do {
                try write(metadata, pdfFrom: pdfSource, to: target, replacing: false)
                return target
            } catch ArchiveError.Code.alreadyExists {
                target = freeName(for: metadata.title, in: destination.deletingLastPathComponent())
            }
        }
        throw ArchiveError(.alreadyExists, path: destination.path)
    }
}

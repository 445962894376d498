extension CoordinatedDocument {
    /// Writes the document's PDF to `outPath` atomically: a CRC error (or any other) leaves
    /// no partial file behind, and an existing file is replaced only when `overwrite` is set.
    /// - Throws: ``ArchiveError`` (`.missingPDF`, `.crcMismatch`, `.alreadyExists`, …).
    public static func exportPDF(of documentPath: String, to outPath: String, overwrite: Bool,
                                 timeout: Double = defaultLockTimeout) throws {
        try read(documentPath, timeout: timeout) { reader in
            guard reader.pdf != nil else { throw ArchiveError(.missingPDF, path: documentPath) }
            try atomicWrite(to: outPath, replacing: overwrite, timeout: timeout) { fd, tempPath in
                try reader.writePDF(toFD: fd, outPath: tempPath)
            } verify: { _ in }
        }
    }
}

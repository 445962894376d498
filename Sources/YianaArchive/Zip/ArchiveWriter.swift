internal import CZip
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where the PDF of a document being written comes from.
public enum PDFPayload: Sendable {
    /// An open file, read from offset 0 to its end; the caller keeps it open.
    case file(SourceFile)
    /// Bytes in memory (small documents and tests).
    case data(Data)

    var size: UInt64 {
        switch self {
        case .file(let file): file.size
        case .data(let data): UInt64(data.count)
        }
    }
}

/// An open source file and its state when it was first looked at, so that a change made
/// to it later (while it is hashed or copied) is noticed before a document is placed.
public struct SourceFile: Sendable {
    public let fd: Int32
    public let path: String
    public let size: UInt64
    private let modified: timespec
    private let changed: timespec

    /// Records the state of the file open as `fd`.
    /// - Throws: ``SystemError`` if it cannot be examined.
    public init(fd: Int32, path: String) throws {
        let st = try Sys.fstat(fd, path: path)
        self.fd = fd
        self.path = path
        size = UInt64(st.st_size)
        modified = st.st_mtim
        changed = st.st_ctim
    }

    /// Throws ``ArchiveError`` `.sourceChanged` if the file's size or times moved since `init`.
    public func checkUnchanged(writing documentPath: String) throws {
        let st = try Sys.fstat(fd, path: path)
        if UInt64(st.st_size) != size || !Self.same(st.st_mtim, modified) || !Self.same(st.st_ctim, changed) {
            throw ArchiveError(.sourceChanged(path), path: documentPath)
        }
    }

    private static func same(_ a: timespec, _ b: timespec) -> Bool { a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec }
}

/// Writes the ZIP of a document into an empty file; it knows nothing of temp files,
/// locks or renames (``CoordinatedDocument`` does that around it).
enum ArchiveWriter {
    static let formatJSON = Data(#"{"formatVersion":2}"#.utf8)

    /// Writes `metadata.json`, `content.pdf` (when given) and `format.json`, all stored,
    /// in that order, into the empty file open as `fd`.
    static func write(metadata: Data, pdf: PDFPayload?, toFD fd: Int32, path: String) throws {
        let output = FileDescriptorSource(writingFD: fd, path: path)
        let source = try output.makeSource()
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        // ZIP_TRUNCATE applies to our own new, empty temporary file, never to a document.
        guard let archive = zip_open_from_source(source, ZIP_CREATE | ZIP_TRUNCATE, &error) else {
            zip_source_free(source)
            throw ArchiveError(.zip(ZipErrorCode(rawValue: zip_error_code_zip(&error)),
                                    message: String(cString: zip_error_strerror(&error))), path: path)
        }
        var pdfSource: FileDescriptorSource? = nil
        do {
            try add(archive, "metadata.json", try bufferSource(archive, metadata), path: path)
            switch pdf {
            case .file(let file):
                let reader = try FileDescriptorSource(readingFD: file.fd, path: file.path, count: file.size)
                pdfSource = reader
                try add(archive, "content.pdf", try reader.makeSource(), path: path)
            case .data(let bytes):
                try add(archive, "content.pdf", try bufferSource(archive, bytes), path: path)
            case nil:
                break
            }
            try add(archive, "format.json", try bufferSource(archive, formatJSON), path: path)
        } catch {
            zip_discard(archive)
            throw error
        }
        if zip_close(archive) != 0 {
            let zipError = zip_get_error(archive)
            let code = ZipErrorCode(rawValue: zipError.map { zip_error_code_zip($0) } ?? ZIP_ER_WRITE)
            let message = zipError.map { String(cString: zip_error_strerror($0)) } ?? "write failed"
            zip_discard(archive)
            if let failure = output.failure ?? pdfSource?.failure { throw ArchiveError(.system(failure), path: path) }
            throw ArchiveError(.zip(code, message: message), path: path)
        }
        if output.removeRequested {
            throw ArchiveError(.verificationFailed("libzip produced an empty archive"), path: path)
        }
    }

    private static func add(_ archive: OpaquePointer, _ name: String, _ source: OpaquePointer, path: String) throws {
        let index = zip_file_add(archive, name, source, zip_flags_t(ZIP_FL_ENC_UTF_8))
        guard index >= 0 else {
            zip_source_free(source)
            throw ArchiveError(.zip(.write, message: String(cString: zip_strerror(archive))), path: path)
        }
        guard zip_set_file_compression(archive, UInt64(index), ZIP_CM_STORE, 0) == 0 else {
            throw ArchiveError(.zip(.write, message: String(cString: zip_strerror(archive))), path: path)
        }
    }

    /// A source over a copy of `bytes` that libzip frees when it is done with it.
    private static func bufferSource(_ archive: OpaquePointer, _ bytes: Data) throws -> OpaquePointer {
        let copy = malloc(max(bytes.count, 1))!
        bytes.withUnsafeBytes { raw in
            if let base = raw.baseAddress { copy.copyMemory(from: base, byteCount: raw.count) }
        }
        guard let source = zip_source_buffer(archive, copy, UInt64(bytes.count), 1) else {
            free(copy)
            throw ArchiveError(.zip(.memory, message: String(cString: zip_strerror(archive))), path: "")
        }
        return source
    }
}

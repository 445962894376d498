internal import CPoppler
import Foundation
import YianaSystem

/// A PDF opened with poppler: page count, title, and (later) text.
///
/// Not thread-safe, like the poppler document it owns: use one per thread.
public final class PDFDocument {
    let handle: OpaquePointer
    /// Keeps memory handed to poppler without a copy alive as long as the document.
    private let owner: AnyObject?
    /// The file or description named in errors.
    public let source: String

    /// Opens the PDF file at `path` (poppler takes a `file://` URI, made with
    /// `g_filename_to_uri` so that spaces and non-ASCII names are escaped correctly).
    /// - Throws: ``PDFError``: not a PDF, encrypted, damaged (including 0 pages), unreadable.
    public init(path: String) throws {
        try Self.loadPoppler(for: path)
        source = path
        owner = nil
        let head: [UInt8]
        do {
            head = try Sys.closeAfter(try Sys.open(path, .readOnly)) { fd throws(SystemError) in try Sys.pread(fd, count: 1024, at: 0, path: path) }
        } catch {
            throw PDFError(.unreadable(error.code.description), source: path)
        }
        guard Self.hasPDFHeader(head[...]) else { throw PDFError(.notAPDF, source: path) }

        let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        var error: UnsafeMutablePointer<GError>? = nil
        guard let uri = yiana_g_filename_to_uri(absolute, nil, &error) else {
            throw Self.translate(error, source: path)
        }
        defer { yiana_g_free(uri) }
        guard let document = yiana_poppler_document_new_from_file(uri, nil, &error) else {
            throw Self.translate(error, source: path)
        }
        handle = document
        try checkHasPages()
    }

    /// Opens the PDF in the open file `fd` (read from offset 0); `fd` stays the caller's.
    /// - Throws: ``PDFError``.
    public init(fileDescriptor fd: Int32, path: String) throws {
        try Self.loadPoppler(for: path)
        source = path
        owner = nil
        let own: Int32
        do {
            guard Self.hasPDFHeader(try Sys.pread(fd, count: 1024, at: 0, path: path)[...]) else { throw PDFError(.notAPDF, source: path) }
            // poppler takes ownership of the descriptor it is given and closes it.
            own = try Sys.dup(fd, path: path)
        } catch let error as SystemError {
            throw PDFError(.unreadable(error.code.description), source: path)
        }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let document = yiana_poppler_document_new_from_fd(own, nil, &error) else {
            throw Self.translate(error, source: path)
        }
        handle = document
        try checkHasPages()
    }

    /// Opens a PDF held in memory without copying it; `owner` is kept alive (e.g. a memory
    /// map) for as long as the document, so the bytes stay valid.
    /// - Throws: ``PDFError``.
    public init(bytes: UnsafeRawBufferPointer, owner: AnyObject?, source: String) throws {
        try Self.loadPoppler(for: source)
        self.source = source
        self.owner = owner
        guard Self.hasPDFHeader(bytes.prefix(1024)) else { throw PDFError(.notAPDF, source: source) }
        let gbytes = yiana_g_bytes_new_static(bytes.baseAddress, gsize(bytes.count))
        defer { yiana_g_bytes_unref(gbytes) }
        var error: UnsafeMutablePointer<GError>? = nil
        guard let document = yiana_poppler_document_new_from_bytes(gbytes, nil, &error) else {
            throw Self.translate(error, source: source)
        }
        handle = document
        try checkHasPages()
    }

    /// Opens a PDF held in `data`.
    /// - Throws: ``PDFError``.
    public convenience init(data: Data, source: String) throws {
        let box = DataBox(data)
        try self.init(bytes: box.bytes, owner: box, source: source)
    }

    deinit {
        yiana_g_object_unref(UnsafeMutableRawPointer(handle))
    }

    /// The number of pages (at least 1: a PDF without pages does not open).
    public var pageCount: Int { Int(yiana_poppler_document_get_n_pages(handle)) }

    /// The title in the PDF's document information, if it has a non-empty one.
    public var title: String? {
        guard let raw = yiana_poppler_document_get_title(handle) else { return nil }
        defer { yiana_g_free(raw) }
        let title = String(cString: raw).trimmingCharacters(in: .whitespacesAndNewlines)
        return title.isEmpty ? nil : title
    }

    private func checkHasPages() throws {
        if yiana_poppler_document_get_n_pages(handle) <= 0 {
            throw PDFError(.damaged("it has no pages"), source: source)
        }
    }

    /// Loads poppler-glib on first use (see `CPoppler/shim.h`: the process does not load it
    /// at start) and silences its messages.
    /// - Throws: ``PDFError`` `.unreadable` naming the library when it cannot be loaded.
    private static func loadPoppler(for source: String) throws {
        if let failure = yiana_poppler_load() {
            throw PDFError(.unreadable("the PDF library could not be loaded (\(String(cString: failure))); install libpoppler-glib8"), source: source)
        }
        _ = popplerMessagesSilenced
    }

    /// `%PDF-` within the first 1024 bytes, where readers accept it.
    static func hasPDFHeader<C: Collection>(_ head: C) -> Bool where C.Element == UInt8 {
        let bytes = Array(head)
        let marker = Array("%PDF-".utf8)
        guard bytes.count >= marker.count else { return false }
        for start in 0...(bytes.count - marker.count) where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return true
        }
        return false
    }

    private static func translate(_ error: UnsafeMutablePointer<GError>?, source: String) -> PDFError {
        guard let error else { return PDFError(.damaged("poppler gave no reason"), source: source) }
        defer { yiana_g_error_free(error) }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        guard error.pointee.domain == yiana_poppler_error_quark() else {
            return PDFError(.unreadable(message), source: source)
        }
        switch UInt32(bitPattern: error.pointee.code) {
        case POPPLER_ERROR_ENCRYPTED.rawValue: return PDFError(.encrypted, source: source)
        case POPPLER_ERROR_OPEN_FILE.rawValue: return PDFError(.unreadable(message), source: source)
        default: return PDFError(.damaged(message), source: source)
        }
    }
}

/// poppler's own messages about damaged PDFs would flood standard error (one line per bad
/// byte); the toolkit reports each damaged PDF once, in its own words, so they are dropped.
private let popplerMessagesSilenced: Bool = yiana_poppler_set_error_callback { _, _, _ in } != 0

/// Owns a copy of `Data` at a stable address for poppler to read.
private final class DataBox {
    let bytes: UnsafeRawBufferPointer

    init(_ data: Data) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(data.count, 1), alignment: 16)
        data.withUnsafeBytes { raw in
            if let base = raw.baseAddress { copy.baseAddress!.copyMemory(from: base, byteCount: raw.count) }
        }
        bytes = UnsafeRawBufferPointer(rebasing: copy[0..<data.count])
    }

    deinit {
        UnsafeMutableRawPointer(mutating: bytes.baseAddress)?.deallocate()
    }
}

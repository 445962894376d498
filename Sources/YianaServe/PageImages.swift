import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// Page images: drawn with poppler and cairo, as JPEG when images cover most of the page (a
/// scan) and as PNG otherwise (``PDFDocument/renderImage(page:width:)`` says why), kept in this
/// machine's cache (never in the synced folder) under the document's content key, the page and
/// the width, so a changed document never shows an old image. The cache is bounded: past
/// ``limitBytes`` the least recently used images go.
final class PageImages: @unchecked Sendable {
    let folder: URL
    let limitBytes: Int64
    private let lock = NSLock()
    /// Widths a request may ask for (others are rounded up to one of them): a few sizes, so
    /// the cache holds few variants of a page.
    static let widths = [160, 320, 640, 960, 1280, 1920]

    init(library: Library, limitBytes: Int64 = 256 << 20) {
        folder = LocalState(library: library).cacheFolder.appendingPathComponent("pages", isDirectory: true)
        self.limitBytes = limitBytes
    }

    static func width(for requested: Int?) -> Int {
        guard let requested else { return 640 }
        return widths.first { $0 >= requested } ?? widths.last!
    }

    /// The image of page `number` (1-based) of the document at `url`, `width` pixels wide.
    /// - Returns: nil when the document has no such page.
    func image(of url: URL, page number: Int, width: Int) throws -> (bytes: [UInt8], format: PageImageFormat)? {
        let reader = try DocumentReader(path: url.path)
        guard let key = reader.contentKey else { return nil }
        let stem = "\(key)-\(number)-\(width)"
        for format in [PageImageFormat.jpeg, .png] {
            let file = folder.appendingPathComponent("\(stem).\(format.rawValue)")
            if let cached = FileManager.default.contents(atPath: file.path) {
                touch(file)
                return ([UInt8](cached), format)
            }
        }
        let pdf = try reader.pdfBytes().document(source: url.lastPathComponent)
        guard number >= 1, number <= pdf.pageCount else { return nil }
        let image = try pdf.renderImage(page: number - 1, width: width)
        store(image.bytes, at: folder.appendingPathComponent("\(stem).\(image.format.rawValue)"))
        return (image.bytes, image.format)
    }

    private func touch(_ file: URL) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: file.path)
    }

    /// Writes the image (a new name, then a rename: a reader never sees half of one), then
    /// trims the cache to its bound, oldest first.
    private func store(_ png: [UInt8], at file: URL) {
        lock.lock()
        defer { lock.unlock() }
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        guard let temp = try? TemporaryFile(beside: file.path) else { return }
        guard (try? temp.write(png)) != nil, (try? temp.place(at: file.path, .replacing)) != nil else { return }
        let keys: [URLResourceKey] = [.fileSizeKey, .contentModificationDateKey]
        guard let files = try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: keys) else { return }
        var entries = files.compactMap { url -> (URL, Int64, Date)? in
            guard let values = try? url.resourceValues(forKeys: Set(keys)), let size = values.fileSize else { return nil }
            return (url, Int64(size), values.contentModificationDate ?? .distantPast)
        }
        var total = entries.reduce(Int64(0)) { $0 + $1.1 }
        guard total > limitBytes else { return }
        entries.sort { $0.2 < $1.2 }
        for (url, size, _) in entries where total > limitBytes && url != file {
            try? FileManager.default.removeItem(at: url)
            total -= size
        }
    }
}

import Foundation
import YianaArchive
import YianaSystem

/// The results the app's OCR service keeps beside the library, one JSON file per document
/// (`.ocr_results/<folder>/<name>.json`, its `pages`: `pageNumber`, 1-based, and `text`).
public enum OCRResults {
    public struct Page: Decodable, Sendable {
        public let number: Int
        public let text: String
        enum CodingKeys: String, CodingKey { case number = "pageNumber", text }
    }

    private struct File: Decodable { let pages: [Page] }

    /// The largest results file read (the app's, with boxes for every word of a long scan,
    /// stays far below).
    public static let limit = 64 << 20

    /// The pages of the results for `document`, or nil when there are none that read.
    public static func read(for document: URL, in library: Library) -> [Page]? {
        guard let url = url(for: document, in: library) else { return nil }
        // By lstat: FileManager's attributes read the owner's name from /etc/passwd on every call.
        guard FileKind.at(url.path) == .regular, let size = FileStamp(path: url.path)?.size, size <= limit,
              let data = try? Data(contentsOf: url) else { return nil }
        return (try? JSONDecoder().decode(File.self, from: data))?.pages
    }

    /// Where the results of `document` are (whether or not there are any).
    public static func url(for document: URL, in library: Library) -> URL? {
        guard let relative = library.relativePath(of: document) else { return nil }
        let folder = (relative as NSString).deletingLastPathComponent
        let name = ((relative as NSString).lastPathComponent as NSString).deletingPathExtension + ".json"
        return library.root.appendingPathComponent(".ocr_results").appendingPathComponent(folder).appendingPathComponent(name)
    }
}

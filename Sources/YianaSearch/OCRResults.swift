import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF
import YianaSystem

/// The results the app's OCR service keeps beside the library, one JSON file per document
/// (`.ocr_results/<folder>/<name>.json`, its `pages`: `pageNumber`, 1-based, and `text`).
enum OCRResults {
    struct Page: Decodable {
        let number: Int
        let text: String
        enum CodingKeys: String, CodingKey { case number = "pageNumber", text }
    }

    private struct File: Decodable { let pages: [Page] }

    /// The largest results file read (the app's, with boxes for every word of a long scan,
    /// stays far below).
    static let limit = 64 << 20

    /// The pages of the results for `document`, or nil when there are none that read.
    static func read(for document: URL, in library: Library) -> [Page]? {
        guard let relative = library.relativePath(of: document) else { return nil }
        let folder = (relative as NSString).deletingLastPathComponent
        let name = ((relative as NSString).lastPathComponent as NSString).deletingPathExtension + ".json"
        let url = library.root.appendingPathComponent(".ocr_results").appendingPathComponent(folder).appendingPathComponent(name)
        guard FileKind.at(url.path) == .regular,
              let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size <= limit,
              let data = try? Data(contentsOf: url) else { return nil }
        return (try? JSONDecoder().decode(File.self, from: data))?.pages
    }
}

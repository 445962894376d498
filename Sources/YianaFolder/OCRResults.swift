import Foundation
import YianaArchive
import YianaSystem

/// The results the app's OCR service keeps beside the library, one JSON file per document
/// (`.ocr_results/<folder>/<name>.json`, its `pages`: `pageNumber`, 1-based, and `text`).
public enum OCRResults {
    public struct Page: Sendable {
        public let number: Int
        public let text: String
        /// The page's words with their boxes, block by block and line by line, as the results
        /// hold them (`textBlocks[].lines[].words[]`); empty when they hold none.
        public let blocks: [Block]

        /// True for a page recorded from its PDF's own text, as the service records one: one
        /// block on the whole page (its words, where kept, are the text layer's).
        public var isOwnTextLayer: Bool {
            guard blocks.count == 1, let box = blocks.first?.boundingBox else { return false }
            return box.x == 0 && box.y == 0 && box.width == 1 && box.height == 1
        }
    }

    /// A block of the results (the app's service: one recognised observation, most often a
    /// line; `yiana ocr`: one of tesseract's blocks).
    public struct Block: Sendable {
        public let lines: [Line]
        public let boundingBox: Box
    }

    public struct Line: Sendable {
        public let words: [Word]
        public let boundingBox: Box
    }

    public struct Word: Sendable {
        public let text: String
        public let boundingBox: Box
        /// How sure the recogniser was of it, 0…1 (1 where the results do not say).
        public let confidence: Double
    }

    /// A box as fractions of the page's width and height.
    public struct Box: Sendable {
        public let x, y, width, height: Double
    }

    /// The largest results file read (the app's, with boxes for every word of a long scan,
    /// stays far below).
    public static let limit = 64 << 20

    /// The pages of the results for `document`, or nil when there are none that read.
    public static func read(for document: URL, in library: Library) -> [Page]? {
        guard let url = url(for: document, in: library) else { return nil }
        // By lstat: FileManager's attributes read the owner's name from /etc/passwd on every call.
        guard FileKind.at(url.path) == .regular, let size = FileStamp(path: url.path)?.size, size <= limit,
              let data = try? Data(contentsOf: url) else { return nil }
        return OCRResultsParser.pages(data)
    }

    /// Where the results of `document` are (whether or not there are any).
    public static func url(for document: URL, in library: Library) -> URL? {
        guard let relative = library.relativePath(of: document) else { return nil }
        let folder = (relative as NSString).deletingLastPathComponent
        let name = ((relative as NSString).lastPathComponent as NSString).deletingPathExtension + ".json"
        return library.fileURL(".ocr_results/" + (folder.isEmpty ? "" : folder + "/") + name)
    }
}

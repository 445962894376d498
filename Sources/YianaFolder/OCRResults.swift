import Foundation
import YianaArchive
import YianaSystem

/// The results the app's OCR service keeps beside the library, one JSON file per document
/// (`.ocr_results/<folder>/<name>.json`, its `pages`: `pageNumber`, 1-based, and `text`).
public enum OCRResults {
    public struct Page: Decodable, Sendable {
        public let number: Int
        public let text: String
        /// The page's words with their boxes, block by block and line by line, as the results
        /// hold them (`textBlocks[].lines[].words[]`); empty when they hold none.
        public let blocks: [Block]
        enum CodingKeys: String, CodingKey { case number = "pageNumber", text, blocks = "textBlocks" }

        init(number: Int, text: String, blocks: [Block]) {
            self.number = number
            self.text = text
            self.blocks = blocks
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            number = try container.decode(Int.self, forKey: .number)
            text = try container.decode(String.self, forKey: .text)
            blocks = (try? container.decodeIfPresent([Block].self, forKey: .blocks)) ?? []
        }
    }

    /// A block of the results (the app's service: one recognised observation, most often a
    /// line; `yiana ocr`: one of tesseract's blocks).
    public struct Block: Decodable, Sendable {
        public let lines: [Line]
        public let boundingBox: Box
    }

    public struct Line: Decodable, Sendable {
        public let words: [Word]
        public let boundingBox: Box
    }

    public struct Word: Decodable, Sendable {
        public let text: String
        public let boundingBox: Box
        /// How sure the recogniser was of it, 0…1 (1 where the results do not say).
        public var confidence: Double = 1

        enum CodingKeys: String, CodingKey { case text, boundingBox }

        init(text: String, boundingBox: Box, confidence: Double) {
            self.text = text
            self.boundingBox = boundingBox
            self.confidence = confidence
        }
    }

    /// A box as fractions of the page's width and height.
    public struct Box: Decodable, Sendable {
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
        return library.root.appendingPathComponent(".ocr_results").appendingPathComponent(folder).appendingPathComponent(name)
    }
}

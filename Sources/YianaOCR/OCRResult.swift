import Foundation
import YianaSystem

/// The results file the app's OCR service writes for a document
/// (`.ocr_results/<folder>/<name>.json`; lh/Yiana, `YianaOCRService/…/Models/OCRResult.swift`):
/// the same keys, nesting and types, so the app and its tools read ours as theirs. Encoded as
/// the service encodes it (``encoded()``).
public struct OCRResult: Codable, Sendable, Equatable {
    public var id: UUID
    public var processedAt: Date
    public var documentId: UUID
    public var engineVersion: String
    public var pages: [OCRPage]
    /// Mean of the pages' confidences, 0…1.
    public var confidence: Double
    public var metadata: ProcessingMetadata

    /// The document's text as the service stores it in `fullText`: the pages' texts, a blank
    /// line between pages.
    public var fullText: String { pages.map(\.text).joined(separator: "\n\n") }

    /// The service's `JSONExporter`: ISO-8601 dates, pretty-printed, keys sorted.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .internetTime
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return try encoder.encode(self)
    }

    public static func decode(_ data: Data) throws -> OCRResult {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .internetTime
        return try decoder.decode(OCRResult.self, from: data)
    }
}

public struct OCRPage: Codable, Sendable, Equatable {
    /// 1-based.
    public var pageNumber: Int
    /// The page's lines, one per line.
    public var text: String
    public var textBlocks: [TextBlock]
    public var confidence: Double
}

public struct TextBlock: Codable, Sendable, Equatable {
    public var text: String
    public var boundingBox: BoundingBox
    public var confidence: Double
    public var lines: [TextLine]
}

public struct TextLine: Codable, Sendable, Equatable {
    public var text: String
    public var boundingBox: BoundingBox
    public var words: [Word]
}

public struct Word: Codable, Sendable, Equatable {
    public var text: String
    public var boundingBox: BoundingBox
    /// 0…1.
    public var confidence: Double
}

/// A box on the page, as fractions of its width and height (0…1), from the top-left corner.
public struct BoundingBox: Codable, Sendable, Equatable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    /// The whole page: the service's box for text it did not locate (a page's own text layer).
    public static let page = BoundingBox(x: 0, y: 0, width: 1, height: 1)

    /// The box around `boxes`; nil when there are none.
    init?(around boxes: [BoundingBox]) {
        guard let left = boxes.map(\.x).min(), let top = boxes.map(\.y).min(),
              let right = boxes.map({ $0.x + $0.width }).max(), let bottom = boxes.map({ $0.y + $0.height }).max() else { return nil }
        self.init(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The pixel box `left, top, right, bottom` of an image `width` × `height`.
    init(left: Int, top: Int, right: Int, bottom: Int, width: Int, height: Int) {
        let w = Double(max(width, 1)), h = Double(max(height, 1))
        self.init(x: Double(left) / w, y: Double(top) / h, width: Double(right - left) / w, height: Double(bottom - top) / h)
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }
}

public struct ProcessingMetadata: Codable, Sendable, Equatable {
    /// Seconds.
    public var processingTime: Double
    public var pageCount: Int
    public var detectedLanguages: [String]
    public var warnings: [String]
    public var options: ProcessingOptions
}

public struct ProcessingOptions: Codable, Sendable, Equatable {
    /// `fast` or `accurate` (the service's two levels; tesseract's LSTM engine is `accurate`).
    public var recognitionLevel: String
    public var languages: [String]
    public var useLanguageCorrection: Bool
    public var extractFormData: Bool
    public var extractDemographics: Bool
}

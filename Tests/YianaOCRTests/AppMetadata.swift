import Crypto
import Foundation
import YianaArchive

/// The app's `DocumentMetadata` and `PageProcessingState` (lh/Yiana,
/// `Yiana/Yiana/Models/DocumentMetadata.swift`), written here from its model: what the app's
/// own decoder requires and accepts, with its default date decoding (seconds since 2001).
struct AppMetadata: Decodable {
    struct PageState: Decodable {
        let pageNumber: Int
        let needsOCR: Bool
        let needsExtraction: Bool
        let ocrProcessedAt: Date?
        let addressExtractedAt: Date?
    }
    enum OCRSource: String, Decodable { case embedded, service, onDevice }
    let id: UUID
    let title: String
    let created: Date
    let modified: Date
    let pageCount: Int
    let tags: [String]
    let ocrCompleted: Bool
    let fullText: String?
    let ocrProcessedAt: Date?
    let ocrConfidence: Double?
    let ocrSource: OCRSource?
    let pageProcessingStates: [PageState]?
    let pdfHash: String?
}

func decodeApp(_ url: URL) throws -> AppMetadata {
    try JSONDecoder().decode(AppMetadata.self, from: try DocumentReader(path: url.path).metadataData())
}

func pdfBytes(_ url: URL) throws -> Data {
    var data = Data()
    try DocumentReader(path: url.path).readPDF { data.append(contentsOf: $0) }
    return data
}

func sha256(_ data: Data) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}

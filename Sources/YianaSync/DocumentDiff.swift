import Foundation
import YianaArchive
import YianaLibrary
import YianaPDF

/// How two documents differ: metadata field by field, PDFs page by page.
public struct DocumentDiff: Codable, Sendable {
    public struct Field: Codable, Sendable {
        public let key: String
        /// The value as JSON, or nil where the key is absent.
        public let a: String?
        public let b: String?
    }

    public struct Page: Codable, Sendable {
        public let number: Int
        /// The start of the SHA-256 of the page's text; nil where the page does not exist.
        public let a: String?
        public let b: String?
        public var same: Bool { a == b }
    }

    public let a: String
    public let b: String
    /// The metadata keys whose values differ (unknown keys included).
    public var fields: [Field] = []
    /// True when the two PDFs have the same bytes (by CRC and size).
    public var samePDF = false
    public var pageCountA: Int?
    public var pageCountB: Int?
    /// Every page, with its text hash on each side.
    public var pages: [Page] = []
    /// Why a PDF could not be compared, if it could not.
    public var pdfProblems: [String] = []

    public var differingPages: [Int] { pages.filter { !$0.same }.map(\.number) }
    public var identical: Bool { fields.isEmpty && (samePDF || (pdfProblems.isEmpty && differingPages.isEmpty && pageCountA == pageCountB)) }

    /// Compares the documents at `a` and `b`.
    /// - Throws: ``ArchiveError`` when either cannot be opened or its metadata read.
    public static func compare(_ a: URL, _ b: URL, names: (String, String)) throws -> DocumentDiff {
        var diff = DocumentDiff(a: names.0, b: names.1)
        let readerA = try DocumentReader(path: a.path), readerB = try DocumentReader(path: b.path)
        let objectA = try rawMetadata(readerA), objectB = try rawMetadata(readerB)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        for key in Set(objectA.keys).union(objectB.keys).sorted() where objectA[key] != objectB[key] {
            diff.fields.append(Field(key: key, a: try objectA[key].map { String(decoding: try encoder.encode($0), as: UTF8.self) },
                                     b: try objectB[key].map { String(decoding: try encoder.encode($0), as: UTF8.self) }))
        }
        diff.samePDF = readerA.pdf?.crc32 == readerB.pdf?.crc32 && readerA.pdf?.size == readerB.pdf?.size && readerA.pdf?.crc32 != nil
        let textsA = pageHashes(readerA, name: names.0, problems: &diff.pdfProblems)
        let textsB = pageHashes(readerB, name: names.1, problems: &diff.pdfProblems)
        diff.pageCountA = textsA?.count
        diff.pageCountB = textsB?.count
        let count = max(textsA?.count ?? 0, textsB?.count ?? 0)
        diff.pages = (0..<count).map { index in
            Page(number: index + 1, a: textsA.flatMap { index < $0.count ? $0[index] : nil }, b: textsB.flatMap { index < $0.count ? $0[index] : nil })
        }
        return diff
    }

    private static func rawMetadata(_ reader: DocumentReader) throws -> [String: JSONValue] {
        let data = try reader.metadataData()
        guard case .object(let object)? = try? JSONValue.decode(data) else {
            throw ArchiveError(.metadata(MetadataError(file: reader.path, problem: .notAnObject)), path: reader.path)
        }
        return object
    }

    private static func pageHashes(_ reader: DocumentReader, name: String, problems: inout [String]) -> [String]? {
        guard reader.pdf != nil else { return nil }
        do {
            let bytes = try reader.pdfBytes()
            let pdf = try bytes.document(source: name)
            return (0..<pdf.pageCount).map { index in
                let text = Data(pdf.text(ofPage: index).utf8)
                return String(text.withUnsafeBytes { raw in FileHash.sha256 { $0(raw) } }.prefix(12))
            }
        } catch {
            problems.append("\(error)")
            return nil
        }
    }
}

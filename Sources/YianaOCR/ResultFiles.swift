import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

/// The files the app's OCR service keeps beside the library for each document it has
/// processed: `.ocr_results/<folder>/<name>.json`, `.xml` and `.hocr`, `<folder>` the
/// document's folder within the library and `<name>` its file name without `.yianazip`
/// (`DocumentWatcher.writeOCRResultFiles` in lh/Yiana). Each is replaced atomically, so a
/// sync program or the app never reads half of one.
public struct ResultFiles: Sendable {
    public let library: Library

    public init(library: Library) {
        self.library = library
    }

    /// The results files' path for `document`, without the extension; nil for a document outside the library.
    public func base(for document: URL) -> URL? {
        guard let relative = library.relativePath(of: document) else { return nil }
        let folder = (relative as NSString).deletingLastPathComponent
        let name = ((relative as NSString).lastPathComponent as NSString).deletingPathExtension
        var url = library.root.appendingPathComponent(".ocr_results")
        if !folder.isEmpty { url.appendPathComponent(folder) }
        return url.appendingPathComponent(name)
    }

    /// The three files' extensions.
    public static let suffixes = ["json", "xml", "hocr"]

    /// True when all three results files of `document` exist.
    public func exist(for document: URL) -> Bool {
        guard let base = base(for: document) else { return false }
        return Self.suffixes.allSatisfy { FileKind.at(base.path + "." + $0) == .regular }
    }

    /// Writes `result` as JSON, XML and hOCR (`hocrPages`: tesseract's hOCR of each page,
    /// by page number; a page without one is written from its text).
    ///
    /// The files of one document are written under a lock of their own (this machine's
    /// processes take turns), so any temporary file of theirs found meanwhile was left by a
    /// write that was killed, here or on a device that synced it here: it is removed.
    public func write(_ result: OCRResult, hocrPages: [Int: String], for document: URL) throws {
        guard let base = base(for: document) else { return }
        try FileManager.default.createDirectory(at: base.deletingLastPathComponent(), withIntermediateDirectories: true)
        let files: [(String, Data)] = [
            ("json", try result.encoded()),
            ("xml", Data(Self.xml(result).utf8)),
            ("hocr", Data(Self.hocr(result, pages: hocrPages).utf8)),
        ]
        let lock = try Self.lock(base)
        defer { lock.release() }
        for stale in Self.leftoverTemps(of: base) { try? FileManager.default.removeItem(at: stale) }
        for (suffix, data) in files {
            try TemporaryFile.replace(base.path + "." + suffix, with: data)
        }
    }

    /// The lock every writer of the results at `base` holds (this machine's processes take turns).
    static func lock(_ base: URL) throws -> DocumentLock {
        try DocumentLock(document: base.path + ".ocr_results", mode: .exclusive, timeout: 60)
    }

    /// Temporary files of interrupted writes of the results at `base` (`.<name>.json.yiana-tmp-XXXXXXXX`).
    static func leftoverTemps(of base: URL) -> [URL] {
        let folder = base.deletingLastPathComponent()
        let prefixes = suffixes.map { "." + base.lastPathComponent + "." + $0 + CoordinatedDocument.temporaryMarker }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { name in prefixes.contains { name.hasPrefix($0) } }.map { folder.appendingPathComponent($0) }
    }

    /// The service's `XMLExporter` layout (document id, time, engine, confidence, each page's
    /// text and confidence). Text is CDATA; a `]]>` inside it is split across two sections.
    static func xml(_ result: OCRResult) -> String {
        var xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OCRResult>
                <DocumentId>\(result.documentId)</DocumentId>
                <ProcessedAt>\(InternetTime.string(result.processedAt))</ProcessedAt>
                <EngineVersion>\(escape(result.engineVersion))</EngineVersion>
                <Confidence>\(result.confidence)</Confidence>
                <Pages>
            """
        for page in result.pages {
            let text = page.text.replacingOccurrences(of: "]]>", with: "]]]]><![CDATA[>")
            xml += """

                    <Page number="\(page.pageNumber)">
                        <Text><![CDATA[\(text)]]></Text>
                        <Confidence>\(page.confidence)</Confidence>
                    </Page>
                """
        }
        xml += "\n    </Pages>\n</OCRResult>"
        return xml
    }

    /// An hOCR document as tesseract's hOCR renderer writes one: its page elements for the
    /// recognised pages; for a page whose text came from the PDF, its lines on a page-sized
    /// box (the service does the same for such pages).
    static func hocr(_ result: OCRResult, pages: [Int: String]) -> String {
        var html = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN"
                "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
             <head>
              <title>OCR Result - \(result.documentId)</title>
              <meta http-equiv="Content-Type" content="text/html;charset=utf-8"/>
              <meta name='ocr-system' content='\(escape(result.engineVersion))'/>
              <meta name='ocr-capabilities' content='ocr_page ocr_carea ocr_par ocr_line ocrx_word ocrp_wconf'/>
             </head>
             <body>

            """
        for page in result.pages {
            if let native = pages[page.pageNumber], !native.isEmpty {
                html += native
                continue
            }
            html += "  <div class='ocr_page' id='page_\(page.pageNumber)' title='bbox 0 0 1000 1000; ppageno \(page.pageNumber - 1)'>\n"
            for (index, line) in page.text.split(separator: "\n").enumerated() {
                html += "   <span class='ocr_line' id='line_\(page.pageNumber)_\(index + 1)' title='bbox 0 0 1000 1000'>\(escape(String(line)))</span>\n"
            }
            html += "  </div>\n"
        }
        html += " </body>\n</html>\n"
        return html
    }

    static func escape(_ text: String) -> String { text.markupEscaped }
}

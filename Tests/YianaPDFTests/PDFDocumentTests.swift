import Foundation
import Testing
@testable import YianaPDF

@Suite("PDF facts")
struct PDFDocumentTests {
    static let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("SampleDocs/pdfs")

    func sample(_ name: String) -> String { Self.samples.appendingPathComponent(name).path }

    func kind(_ body: () throws -> PDFDocument) -> PDFError.Kind? {
        do {
            _ = try body()
            return nil
        } catch let error as PDFError {
            return error.kind
        } catch {
            return nil
        }
    }

    @Test(arguments: [("Bank statement reminder.pdf", 2, "Bank statement reminder"),
                      ("Flow control paper.pdf", 3, "Efficient flow control"),
                      ("Noise pattern (image only, no words).pdf", 1, nil)])
    func pageCountAndTitleFromAFile(name: String, pages: Int, title: String?) throws {
        let document = try PDFDocument(path: sample(name))
        #expect(document.pageCount == pages)
        #expect(document.title == title)
    }

    @Test func opensFromBytes() throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: sample("Flow control paper.pdf")))
        let document = try PDFDocument(data: data, source: "paper")
        #expect(document.pageCount == 3)
    }

    @Test func encryptedPDFsHaveTheirOwnError() {
        #expect(kind { try PDFDocument(path: sample("Encrypted letter.pdf")) } == .encrypted)
    }

    @Test func damagedPDFsHaveTheirOwnError() {
        guard case .damaged? = kind({ try PDFDocument(path: sample("Damaged download.pdf")) }) else {
            Issue.record("a truncated PDF opened")
            return
        }
    }

    @Test func aPDFWithNoPagesIsDamaged() {
        let empty = Data("%PDF-1.4\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n2 0 obj\n<< /Type /Pages /Kids [] /Count 0 >>\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n".utf8)
        #expect(kind { try PDFDocument(data: empty, source: "empty") } == .damaged("it has no pages"))
    }

    @Test func otherFilesAreNotPDFs() throws {
        #expect(kind { try PDFDocument(data: Data("hello, world".utf8), source: "text") } == .notAPDF)
        #expect(kind { try PDFDocument(path: "/nonexistent/file.pdf") } == .unreadable("No such file or directory"))
    }

    @Test func openingOnManyThreadsAtOnceIsSafe() async throws {
        PDFDocument.prepareForConcurrentUse()
        let paths = (0..<16).map { _ in sample("Bank statement reminder.pdf") }
        let counts = await withTaskGroup(of: Int.self) { group in
            for path in paths { group.addTask { (try? PDFDocument(path: path).pageCount) ?? -1 } }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(counts == Array(repeating: 2, count: 16))
    }
}

@Suite("PDF paths")
struct PDFPathTests {
    /// A path with spaces, parentheses and non-ASCII characters must survive the URI round trip.
    @Test func pathsThatNeedEscapingOpen() throws {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("yiana pdf é #\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("Reçu (copie) 100%.pdf")
        try FileManager.default.copyItem(at: PDFDocumentTests.samples.appendingPathComponent("Flow control paper.pdf"), to: copy)
        #expect(try PDFDocument(path: copy.path).pageCount == 3)
        let fd = open(copy.path, O_RDONLY)
        defer { close(fd) }
        #expect(try PDFDocument(fileDescriptor: fd, path: copy.path).pageCount == 3)
    }
}

@Suite("PDF text")
struct PDFTextTests {
    @Test func textPerPageWithNonASCIIAndLigatures() throws {
        let letter = try PDFDocument(path: PDFDocumentTests.samples.appendingPathComponent("Bank statement reminder.pdf").path)
        #expect(letter.text(ofPage: 0).contains("Grüßen, Élodie Müller"))
        #expect(letter.text(ofPage: 0).contains("€ 1.234,56"))
        #expect(letter.text(ofPage: 1).contains("Page two: terms"))
        #expect(!letter.text(ofPage: 1).contains("Grüßen"))
        #expect(letter.text(ofPage: 2) == "")
        let paper = try PDFDocument(path: PDFDocumentTests.samples.appendingPathComponent("Flow control paper.pdf").path)
        #expect(paper.text(ofPage: 0).contains("\u{FB01}nal") || paper.text(ofPage: 0).contains("final"))
        let scan = try PDFDocument(path: PDFDocumentTests.samples.appendingPathComponent("Noise pattern (image only, no words).pdf").path)
        #expect(scan.text(ofPage: 0).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func theWarmUpDocumentReadsItsPage() throws {
        PDFDocument.prepareForConcurrentUse()
        #expect(try PDFDocument(data: PDFDocument.minimalPDF, source: "warm").text(ofPage: 0).contains("warm"))
    }

    /// A real PDF made by pdfTeX (Debian's libtasn1-doc, installed by Scripts/test.sh) whose
    /// chapter headings poppler-glib's page text glues to their numbers ("4Threads",
    /// "1Introduction"), where pdftotext separates them; the glyph boxes put the breaks back.
    @Test func wordsALineOrFontChangeSeparatesStayApart() throws {
        let document = try PDFDocument(path: "/usr/share/doc/libtasn1-doc/libtasn1.pdf")
        var words = Set<String>()
        for page in 0..<document.pageCount {
            let text = document.text(ofPage: page).lowercased()
            words.formUnion(text.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        }
        for glued in ["1introduction", "2asn", "4threads"] { #expect(!words.contains(glued), "\(glued)") }
        for word in ["introduction", "threads", "asn"] { #expect(words.contains(word), "\(word)") }
    }

    @Test func aPageTextHoldsItsFilledFormValues() throws {
        let text = try PDFDocument(path: PDFDocumentTests.samples.appendingPathComponent("Filled form.pdf").path).text(ofPage: 0)
        for value in ["Margarethe Quellenhof", "Claim QX-58213", "Riverside physiotherapy"] { #expect(text.contains(value), "\(text)") }
        #expect(!text.contains("Harbour dental"))  // a choice not chosen
    }

    @Test func rotatedTextIsNotBrokenLetterByLetter() {
        // Boxes stacked top to bottom (a rotated line): the text is left as poppler gave it.
        let boxes = (0..<5).map { PDFDocument.GlyphBox(x1: 10, y1: Double($0) * 10, x2: 20, y2: Double($0) * 10 + 9) }
        #expect(PDFDocument.breaks(in: "Hello", boxes: boxes) == "Hello")
        let line = (0..<5).map { PDFDocument.GlyphBox(x1: Double($0) * 6, y1: 0, x2: Double($0) * 6 + 5, y2: 10) }
        #expect(PDFDocument.breaks(in: "Hello", boxes: line) == "Hello")
        let gap = line.prefix(2) + line.dropFirst(2).map { PDFDocument.GlyphBox(x1: $0.x1 + 8, y1: 0, x2: $0.x2 + 8, y2: 10) }
        #expect(PDFDocument.breaks(in: "Hello", boxes: Array(gap)) == "He llo")
    }
}

import Foundation
import Testing
import YianaLibrary
import YianaTestSupport
@testable import YianaOCR

/// The OCR results as `extract` reads them (its own parser, not `JSONDecoder`): every page's
/// number, text and words' boxes as the results were written, whatever their strings hold,
/// and nothing from a file that is not JSON or lacks a page's number or text, as the decoder
/// would have it.
struct OCRResultsReadTests {
    func results(_ pages: [OCRPage]) -> OCRResult {
        OCRResult(id: UUID(), processedAt: Date(timeIntervalSince1970: 1_780_000_000), documentId: UUID(), engineVersion: "tesseract-5",
                  pages: pages, confidence: 0.9,
                  metadata: ProcessingMetadata(processingTime: 1.5, pageCount: pages.count, detectedLanguages: ["en-GB"], warnings: ["a \"warning\""],
                                               options: ProcessingOptions(recognitionLevel: "accurate", languages: ["en-GB"], useLanguageCorrection: true,
                                                                          extractFormData: false, extractDemographics: false)))
    }

    /// Writes `data` as the results of a document `Letter.yianazip` in a new library and reads them back.
    func read(_ data: Data) throws -> [OCRResults.Page]? {
        let folder = try TemporaryFolder()
        let library = try Library(root: folder.url)
        let document = folder.url.appendingPathComponent("Letter.yianazip")
        let url = try #require(OCRResults.url(for: document, in: library))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return OCRResults.read(for: document, in: library)
    }

    @Test(arguments: 1...40) func everyPageAndWordReadsAsItWasWritten(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let strings = ["Mrs Jane O'Brien", "Anne-Marie \"Nan\" Ng", "Ménière's — 12°C", "tab\there\\slash/", "emoji 👩‍⚕️ 𝄞", "\u{1}\u{1F}", "", "line\nbreak"]
        var pages: [OCRPage] = []
        for number in 1...4 {
            var blocks: [TextBlock] = []
            for _ in 0..<Int.random(in: 0...3, using: &generator) {
                let lines = (0..<Int.random(in: 0...3, using: &generator)).map { _ in
                    let words = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                        Word(text: strings.randomElement(using: &generator)!,
                             boundingBox: BoundingBox(x: .random(in: 0...1, using: &generator), y: .random(in: 0...1, using: &generator),
                                                      width: .random(in: 0...0.5, using: &generator), height: 1e-5), confidence: 0.97)
                    }
                    return TextLine(text: words.map(\.text).joined(separator: " "), boundingBox: .page, words: words)
                }
                blocks.append(TextBlock(text: "block", boundingBox: BoundingBox(x: 0.1, y: 0.2, width: 0.3, height: 0.4), confidence: 0.8, lines: lines))
            }
            pages.append(OCRPage(pageNumber: number, text: strings.shuffled(using: &generator).joined(separator: "\n"), textBlocks: blocks, confidence: 0.9))
        }
        let written = results(pages)
        let readBack = try #require(try read(written.encoded()))
        #expect(readBack.map(\.number) == [1, 2, 3, 4] && readBack.map(\.text) == pages.map(\.text))
        for (page, original) in zip(readBack, pages) {
            #expect(page.blocks.count == original.textBlocks.count)
            for (block, originalBlock) in zip(page.blocks, original.textBlocks) {
                #expect(block.boundingBox.x == 0.1 && block.boundingBox.height == 0.4)
                let words = block.lines.flatMap(\.words), originalWords = originalBlock.lines.flatMap(\.words)
                #expect(words.map(\.text) == originalWords.map(\.text))
                for (word, originalWord) in zip(words, originalWords) {
                    #expect(abs(word.boundingBox.x - originalWord.boundingBox.x) < 1e-12 && abs(word.boundingBox.height - 1e-5) < 1e-15, "\(word.boundingBox) \(originalWord.boundingBox)")
                }
            }
        }
        // The app's own results, in whatever order and spacing their keys come: the same pages.
        let app = #"{ "pages" : [ { "text" : "Re: Mrs \u00c9lise \ud83d\ude00", "confidence" : 1, "pageNumber" : 2.0, "formFields" : null, "textBlocks" : [ ] } ], "id" : "x" }"#
        let appPages = try #require(try read(Data(app.utf8)))
        #expect(appPages.count == 1 && appPages[0].number == 2 && appPages[0].text == "Re: Mrs Élise 😀" && appPages[0].blocks.isEmpty)
    }

    @Test func whatIsNotAResultsFileReadsAsNothing() throws {
        for text in [#"{"pages": [{"pageNumber": 1}]}"#, #"{"pages": [{"text": "a"}]}"#, #"{"pages": [{"pageNumber": 1, "text": "a"}]"#,
                     #"{"pages": [{"pageNumber": 1, "text": "a"}]} x"#, #"{"pages": "no"}"#, #"{"pageNumber": 1}"#, "", "[]", #"{"pages": [{"pageNumber": 1.5, "text": "a"}]}"#,
                     #"{"pages": [{"pageNumber": 1, "text": "a\q"}]}"#, #"{"pages": [{"pageNumber": 1, "text": "a"}], "n": 01e}"#] {
            #expect(try read(Data(text.utf8)) == nil, "\(text)")
        }
        // Blocks that do not read leave the page's text, as the decoder's `try?` did.
        let pages = try #require(try read(Data(#"{"pages": [{"pageNumber": 1, "text": "a", "textBlocks": [{"lines": []}]}]}"#.utf8)))
        #expect(pages.count == 1 && pages[0].text == "a" && pages[0].blocks.isEmpty)
    }
}

/// A page's own text recorded with its words' boxes, line by line, so that `extract` lays the
/// page out from the results alone.
struct EmbeddedPageWordsTests {
    func words(_ texts: [String]) -> [Word] {
        texts.enumerated().map { Word(text: $1, boundingBox: BoundingBox(x: Double($0) / 10, y: 0.1, width: 0.05, height: 0.01), confidence: 1) }
    }

    @Test func eachLineKeepsItsOwnWords() {
        let page = OCRRunner.embeddedPage(1, text: "Patient: Jane Smith\nDOB: 12/03/1945", words: words(["Patient:", "Jane", "Smith", "DOB:", "12/03/1945"]))
        let lines = page.textBlocks.flatMap(\.lines)
        #expect(page.textBlocks.count == 1 && page.textBlocks[0].boundingBox == .page, "one block on the whole page, as the service records a text layer")
        #expect(lines.map { $0.words.map(\.text) } == [["Patient:", "Jane", "Smith"], ["DOB:", "12/03/1945"]])
        let box = lines[1].boundingBox
        #expect(abs(box.x - 0.3) < 1e-9 && abs(box.y - 0.1) < 1e-9 && abs(box.width - 0.15) < 1e-9 && abs(box.height - 0.01) < 1e-9)
        // Words that are not the lines' own, from where they part on: none.
        let parted = OCRRunner.embeddedPage(1, text: "Patient: Jane Smith\nDOB: 12/03/1945", words: words(["Patient:", "Jane", "Smith", "D.O.B.", "12/03/1945"]))
        #expect(parted.textBlocks.flatMap(\.lines).map(\.words.count) == [3, 0])
        #expect(OCRRunner.embeddedPage(1, text: "Jane", words: []).textBlocks.flatMap(\.lines).allSatisfy { $0.words.isEmpty && $0.boundingBox == .page })
    }
}

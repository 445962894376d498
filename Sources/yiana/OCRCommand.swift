import ArgumentParser
import Foundation
import YianaLibrary
import YianaOCR
import YianaSystem

extension Yiana {
    struct OCR: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "ocr",
            abstract: "Recognise the text of scanned pages with tesseract, as the app's OCR service does.",
            discussion: """
                For each document whose `ocrCompleted` is false (or every one, with --force): \
                pages that have their own text keep it; the others are drawn at 300 dpi and \
                recognised with tesseract, on --jobs workers across pages and documents. The \
                document is then rewritten through the coordinated writer, the version read \
                kept first in the version store (`yiana versions`), with what the app's service \
                sets: ocrCompleted, fullText, ocrProcessedAt, ocrConfidence, ocrSource \
                (service, or embedded when every page had text) and every page's \
                pageProcessingStates. The PDF gains an invisible text layer on the recognised \
                pages (qpdf), so any viewer can search and select the text; the page's own \
                content is kept byte for byte. The results go beside the library where the \
                service puts them: .ocr_results/<folder>/<name>.json, .xml and .hocr. When two \
                devices recognised a document while apart, the conflict copies their sync \
                program made of these files are settled by the next run: the files of the \
                recognition the document holds keep their names, the other copies are removed \
                (the document's own conflict copy is left for `yiana conflicts resolve`, which \
                keeps every version). Two devices with the same tesseract write the same PDF for the same scan.

                A document another device changes meanwhile is never overwritten: it is read \
                and recognised again. A document that fails (encrypted, damaged, a page tesseract \
                cannot read) is reported with the reason and, in --all runs, waits 5 minutes, \
                then 15, then an hour before the next try, as the service does (--retry tries them now); \
                documents named one by one are always tried. Evicted placeholders are left until downloaded, and \
                a sync program's conflict copy until the conflict is resolved.

                Languages: eng is installed with tesseract-ocr-eng; for others install \
                tesseract-ocr-<lang> (apt-get install tesseract-ocr-deu, -fra, -spa, -ita …) and \
                give --lang eng+deu. $TESSDATA_PREFIX names another trained-data folder.

                Exit code 1 when a document failed.

                Examples:
                  yiana ocr --all
                  yiana ocr "Letters/Scan 2026-03-01" --lang eng+deu
                  yiana ocr --all --dry-run --json
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Every document of the library (that is not done yet).")
        var all = false

        @Option(name: .customLong("lang"), help: ArgumentHelp("tesseract's languages, joined by +.", valueName: "eng+deu"))
        var languages = "eng"

        @OptionGroup var jobsOption: JobsOption

        @Flag(help: "Recognise documents again even when ocrCompleted is already true.")
        var force = false

        @Flag(help: "Try documents that failed before now, without waiting for their back-off to end.")
        var retry = false

        @Flag(help: "Say what would be done; change nothing.")
        var dryRun = false

        @Flag(help: "Do not add the invisible text layer to the PDF (metadata and results files only).")
        var noTextLayer = false

        @Option(help: ArgumentHelp("The resolution pages are drawn at for recognition.", valueName: "dpi"))
        var dpi = OCROptions.defaultDPI

        @OptionGroup var arrivalOption: ArrivalOption

        @Flag(help: "Print one JSON object (counts and every document's result) instead of text.")
        var json = false

        @Argument(help: ArgumentHelp("Documents or folders of the library.", valueName: "doc"))
        var documents: [String] = []

        func validate() throws {
            guard all || !documents.isEmpty else { throw ValidationError("name documents or folders to recognise, or give --all.") }
            guard !(all && !documents.isEmpty) else { throw ValidationError("give either --all or documents, not both.") }
            guard (50...1200).contains(dpi) else { throw ValidationError("--dpi must be between 50 and 1200.") }
            guard !languages.isEmpty, languages.split(separator: "+", omittingEmptySubsequences: false).allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0 == "_" } }) else {
                throw ValidationError("--lang takes tesseract's language names joined by +, e.g. eng or eng+deu.")
            }
        }

        func run() async throws {
            let library = try libraryOptions.open()
            var options = OCROptions()
            options.languages = languages
            options.jobs = jobsOption.jobs
            options.force = force
            options.dryRun = dryRun
            options.textLayer = !noTextLayer
            options.dpi = dpi
            options.ignoreBackoff = retry

            let selection = try LibrarySelection.items(documents, all: all, in: library, settle: arrivalOption.settle)
            let missing = selection.missing.map { argument in
                OCRDocumentResult(path: argument, status: .failed, code: "not-found", error: "no document \"\(argument)\" in \(library.root.path)")
            }

            let bar = ProgressBar(label: dryRun ? "Checking" : "Recognising")
            let runner = OCRRunner(library: library, options: options)
            var report: OCRReport
            do {
                report = try runner.run(selection.items, named: selection.named, arriving: { url in
                    selection.arrival?.stillArriving(url).map { "\($0)" }
                }) { done, total in
                    bar.update(completed: done, total: total, current: "")
                }
            } catch let error as OCRError {
                bar.finish()
                throw CommandFailure(error.description)
            }
            bar.finish()
            report.documents = missing + report.documents
            if json {
                try Output.json(report)
            } else {
                render(report)
            }
            if report.failed { throw ExitCode.failure }
        }

        /// "page 3", "pages 1, 2 and 5".
        static func pages(_ numbers: [Int]) -> String {
            guard numbers.count > 1 else { return "page \(numbers.first ?? 0)" }
            return "pages " + numbers.dropLast().map(String.init).joined(separator: ", ") + " and \(numbers.last!)"
        }

        private func render(_ report: OCRReport) {
            for document in report.documents {
                switch document.status {
                case .recognized where document.pagesWithoutWords.count == document.pagesRecognized:
                    let rest = document.pagesWithText > 0
                        ? (document.pagesWithText == 1 ? "; its other page has its own text" : "; its other \(document.pagesWithText) pages have their own text")
                        : " (an image without text, a blank page?): only its title, tags and folder can be searched"
                    print("no text found  \(document.path): OCR found no words on \(Self.pages(document.pagesWithoutWords))\(rest)")
                case .recognized:
                    let confidence = document.confidence.map { String(format: ", confidence %.2f", $0) } ?? ""
                    let wordless = document.pagesWithoutWords.isEmpty ? "" : "; no words found on \(Self.pages(document.pagesWithoutWords))"
                    print("recognized     \(document.path): \(Output.count(document.pagesRecognized, "page")) recognised"
                          + "\(document.pagesWithText > 0 ? ", \(document.pagesWithText) with their own text" : "")\(confidence)\(wordless)")
                case .embedded:
                    print("embedded       \(document.path): every page has its own text (\(Output.count(document.pagesWithText, "page")))")
                case .wouldRecognize:
                    print("would recognize \(document.path): \(Output.count(document.pagesRecognized, "page")) without text")
                case .alreadyDone:
                    if document.resultCopiesRemoved > 0 {
                        print("already done   \(document.path): \(Output.count(document.resultCopiesRemoved, "conflict copy", "conflict copies")) of its results files settled (two devices recognised it)")
                    } else if !all {
                        print("already done   \(document.path) (--force to recognise it again)")
                    }
                case .notDownloaded, .arriving, .noPDF, .conflictCopy:
                    print("\(document.status.rawValue.padding(toLength: 14, withPad: " ", startingAt: 0)) \(document.path): \(document.error ?? "")")
                case .backingOff:
                    let when = document.retryAfter.map { " until \(InternetTime.string($0))" } ?? ""
                    print("backing off    \(document.path)\(when): failed before (\(document.error ?? ""))")
                case .failed:
                    Output.error("failed         \(document.path): \(document.error ?? "")"
                                 + (document.retryAfter.map { " (next try after \(InternetTime.string($0)))" } ?? ""))
                }
            }
            let counts: [(OCRDocumentResult.Status, String)] = [
                (.recognized, "recognised"), (.embedded, "had their own text"), (.alreadyDone, "already done"),
                (.wouldRecognize, "would be recognised"), (.notDownloaded, "not downloaded"), (.noPDF, "without a PDF"), (.arriving, "still arriving"),
                (.conflictCopy, "conflict copies left for resolving"),
                (.backingOff, "backing off"), (.failed, "failed"),
            ]
            let wordless = report.documents.filter { $0.status == .recognized && $0.pagesRecognized > 0 && $0.pagesWithoutWords.count == $0.pagesRecognized }.count
            var summary = counts.compactMap { status, words in
                let n = report.count(status) - (status == .recognized ? wordless : 0)
                return n > 0 ? "\(n) \(words)" : nil
            }
            if wordless > 0 { summary.insert("\(wordless) with no text found", at: report.count(.recognized) > wordless ? 1 : 0) }
            print("\(Output.count(report.documents.count, "document")): \(summary.isEmpty ? "nothing to do" : summary.joined(separator: ", "))."
                  + Output.later(report.count(.arriving)))
        }
    }
}

import ArgumentParser
import Foundation
import YianaLibrary

extension Yiana {
    struct Append: AsyncParsableCommand, WritesDocuments {
        static let configuration = CommandConfiguration(
            commandName: "append",
            abstract: "Add the pages of PDFs to the end of a document.",
            discussion: """
                The pages are joined with qpdf: the document's own pages keep their content \
                streams, images and fonts byte for byte, and the document stays itself (its \
                outline, its PDF metadata); each appended page comes with what qpdf carries of \
                a page: its resources, annotations and links, form fields and their widgets. \
                The appended PDFs' own outlines and document-level metadata are not carried.

                The document is written through the coordinated writer, only over the version \
                that was read (another process's write is appended to again, never overwritten), \
                after that version is kept in the version store. Its metadata is kept whole \
                (unknown keys too): pageCount, modified and pdfHash are set, each new page gets \
                a page state (needsOCR when it has no text), and ocrCompleted becomes false only \
                when a new page needs OCR, so `yiana ocr` and `yiana watch --ocr` then recognise \
                the new pages alone. The history records each PDF's SHA-256 and the pages it \
                became: a PDF already appended to this document is refused unless \
                --allow-duplicates. An encrypted, damaged or non-PDF file is refused by name with \
                the reason, and the others are still appended; a document that is not downloaded \
                or is damaged takes no pages.

                Exit codes: 0 all appended; 1 a file was refused or the document cannot take \
                pages; 2 the command line is wrong.

                Examples:
                  yiana append "Letters/Smith, Jane" ~/Scans/referral.pdf
                  yiana append --dry-run Report appendix-a.pdf appendix-b.pdf
                  yiana import --append-to Report appendix.pdf
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Say what would be appended and which pages it would become; write nothing.")
        var dryRun = false

        @Flag(help: "Append a PDF even when this document's history says it was appended before.")
        var allowDuplicates = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        @Argument(help: ArgumentHelp("The document to add pages to.", valueName: "doc"))
        var document: String

        @Argument(help: ArgumentHelp("The PDFs whose pages are added, in order.", valueName: "pdf"))
        var pdfs: [String]

        func validate() throws {
            guard !pdfs.isEmpty else { throw ValidationError("name at least one PDF to append.") }
        }

        func run() async throws {
            try Self.append(pdfs, to: document, libraryOptions: libraryOptions, dryRun: dryRun, allowDuplicates: allowDuplicates, json: json)
        }

        /// `yiana append` and `yiana import --append-to`.
        static func append(_ pdfs: [String], to document: String, libraryOptions: LibraryOptions,
                           dryRun: Bool, allowDuplicates: Bool, json: Bool) throws {
            let library = try libraryOptions.open()
            let url: URL
            switch library.locate(document) {
            case .document(let found): url = found
            case .placeholder(_, let found):
                throw CommandFailure("\(library.relativePath(of: found) ?? found.path): not downloaded (evicted to the cloud); `yiana download` it first, then append.")
            case .notFound:
                throw CommandFailure("\(document): no such document in \(library.root.path); `yiana status` lists what it holds.")
            }
            var options = AppendOptions()
            options.dryRun = dryRun
            options.allowDuplicates = allowDuplicates
            let sources = pdfs.map { URL(fileURLWithPath: $0, relativeTo: URL(fileURLWithPath: FileManager.default.currentDirectoryPath)).standardizedFileURL }
            let report: AppendReport
            do {
                report = try Appender(library: library).append(sources, to: url, options: options)
            } catch let error as AppendError {
                throw CommandFailure(error.description)
            }
            if json {
                try Output.json(report)
            } else {
                for source in report.appended {
                    let ocr = source.needOCR.isEmpty ? "" : "; \(Output.count(source.needOCR.count, "page")) without text for OCR"
                    let place = source.pages == 1 ? "page \(source.range)" : "pages \(source.range)"
                    print("\(dryRun ? "would append" : "appended") \(source.path): \(Output.count(source.pages, "page")), \(place) of \(report.document)\(ocr)")
                }
                for refusal in report.refused { Output.error("refused  [\(refusal.code)] \(refusal.reason)") }
                let kept = report.keptAs.map { "; the version before is kept as \($0)" } ?? ""
                print("\(report.document): \(report.pagesBefore) → \(report.pagesAfter) pages\(dryRun ? " (dry run: nothing written)" : "")\(kept).")
            }
            if !report.refused.isEmpty { throw ExitCode.failure }
        }
    }
}

import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary

extension Yiana {
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Show a document's metadata, format and entries.",
            discussion: """
                Reads metadata.json only; the PDF is not read. DOC is a path, or a path inside \
                the library; .yianazip may be left off.

                Examples:
                  yiana info "Letters/Bank statement.yianazip"
                  yiana info --json Report | jq .metadata.tags
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Flag(help: "Print one JSON object instead of text.")
        var json = false

        @Argument(help: ArgumentHelp("The document.", valueName: "doc"))
        var document: String

        func run() async throws {
            let library = try libraryOptions.open()
            let url = try libraryOptions.document(document, in: library)
            let report = try CoordinatedDocument.read(url.path) { $0.summary() }
            if json {
                try Output.json(report)
            } else {
                render(report, library: library)
            }
            if let metadataError = report.metadataError {
                if !json { Output.error(metadataError) }
                throw ExitCode.failure
            }
        }

        private func render(_ report: DocumentSummary, library: Library) {
            let dates = DateFormatter()
            dates.dateFormat = "yyyy-MM-dd HH:mm:ss ZZZZZ"
            func field(_ name: String, _ value: String) { print("  \((name + ":").padding(toLength: 13, withPad: " ", startingAt: 0))\(value)") }
            print(library.relativePath(of: URL(fileURLWithPath: report.path)) ?? report.path)
            field("Format", report.formatDescription)
            if case .object(let m)? = report.metadata {
                if case .string(let title)? = m["title"] { field("Title", title) }
                if case .string(let id)? = m["id"] { field("ID", id) }
                if let created = report.created { field("Created", dates.string(from: created)) }
                if let modified = report.modified { field("Modified", dates.string(from: modified)) }
                if case .integer(let pages)? = m["pageCount"] { field("Pages", String(pages)) }
                if case .array(let tags)? = m["tags"] {
                    let names = tags.compactMap { if case .string(let tag) = $0 { tag } else { nil } }
                    field("Tags", names.isEmpty ? "(none)" : names.joined(separator: ", "))
                }
                if case .bool(let done)? = m["ocrCompleted"] { field("OCR", done ? "completed" : "not completed") }
                if case .string(let hash)? = m["pdfHash"] { field("PDF SHA-256", hash) }
            }
            field("File size", readableByteCount(report.fileSize))
            for entry in report.entries {
                let how = entry.compression.map { ", \($0)" } ?? ""
                field("Entry", "\(entry.name) \(readableByteCount(entry.size))\(how)")
            }
            if !report.unknownKeys.isEmpty { field("Other keys", report.unknownKeys.joined(separator: ", ") + " (kept on rewrite)") }
            for note in report.readingNotes { field("Note", note) }
            for refusal in report.appRefusals { field("App refuses", refusal + " (`yiana repair` rewrites it)") }
        }
    }
}

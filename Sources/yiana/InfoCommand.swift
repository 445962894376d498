import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary

extension Yiana {
    struct Info: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
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

        struct Report: Encodable {
            struct Entry: Encodable {
                let name: String
                let size: UInt64
                let storedSize: UInt64
                let compression: String?
                let crc32: String?
                let offset: UInt64?
            }

            let path: String
            let format: String
            let formatVersion: Int?
            let formatDescription: String
            let fileSize: UInt64
            let entries: [Entry]
            let metadata: JSONValue?
            let metadataError: String?
            let created: Date?
            let modified: Date?
            let readingNotes: [String]
            /// What the app's decoder refuses: it cannot open the document.
            let appRefusals: [String]
            let unknownKeys: [String]
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let url = try libraryOptions.document(document, in: library)
            let report = try CoordinatedDocument.read(url.path) { reader in
                var metadataError: String? = nil
                var metadata: DocumentMetadata? = nil
                var raw: JSONValue? = nil
                do {
                    let data = try reader.metadataData()
                    raw = try? JSONDecoder().decode(JSONValue.self, from: data)
                    metadata = try reader.metadata()
                } catch {
                    metadataError = "\(error)"
                }
                var version: Int? = nil
                if case .zip(let formatVersion, _) = reader.format { version = formatVersion }
                return Report(
                    path: url.path, format: reader.format.name, formatVersion: version,
                    formatDescription: reader.format.description, fileSize: reader.fileSize,
                    entries: reader.entries.map { entry in
                        Report.Entry(name: entry.name, size: entry.size, storedSize: entry.storedSize,
                                     compression: entry.compressionMethod.map { $0 == 0 ? "stored" : $0 == 8 ? "deflated" : "method \($0)" },
                                     crc32: entry.crc32.map { String(format: "%08x", $0) },
                                     offset: entry.byteRange?.lowerBound)
                    },
                    metadata: raw, metadataError: metadataError,
                    created: metadata?.created, modified: metadata?.modified,
                    readingNotes: metadata?.readingNotes ?? [], appRefusals: metadata?.appRefusals ?? [],
                    unknownKeys: metadata.map { Array($0.unknownFields.keys).sorted() } ?? [])
            }
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

        private func render(_ report: Report, library: Library) {
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
            field("File size", Self.bytes(report.fileSize))
            for entry in report.entries {
                let how = entry.compression.map { ", \($0)" } ?? ""
                field("Entry", "\(entry.name) \(Self.bytes(entry.size))\(how)")
            }
            if !report.unknownKeys.isEmpty { field("Other keys", report.unknownKeys.joined(separator: ", ") + " (kept on rewrite)") }
            for note in report.readingNotes { field("Note", note) }
            for refusal in report.appRefusals { field("App refuses", refusal + " (`yiana repair` rewrites it)") }
        }

        static func bytes(_ count: UInt64) -> String {
            let units = ["bytes", "KB", "MB", "GB", "TB"]
            var value = Double(count)
            var unit = 0
            while value >= 1000, unit < units.count - 1 { value /= 1000; unit += 1 }
            return unit == 0 ? Output.count(Int(count), "byte") : String(format: "%.1f %@", value, units[unit])
        }
    }
}

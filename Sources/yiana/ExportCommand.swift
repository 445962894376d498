import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary

extension Yiana {
    struct Export: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "export",
            abstract: "Write a document's PDF out.",
            discussion: """
                Every byte is checked against the archive's CRC as it is copied; a damaged PDF \
                is reported and no partial file is left behind. An existing OUT is replaced \
                only with --force. OUT may be - for standard output.

                Examples:
                  yiana export Report --pdf ~/Desktop/Report.pdf
                  yiana export "Letters/Bank statement" --pdf - | pdftotext - -
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: ArgumentHelp("Where to write the PDF (- for standard output).", valueName: "out"))
        var pdf: String

        @Flag(help: "Replace OUT if it exists.")
        var force = false

        @Argument(help: ArgumentHelp("The document.", valueName: "doc"))
        var document: String

        func run() async throws {
            let library = try libraryOptions.open()
            let url = try libraryOptions.document(document, in: library)
            if pdf == "-" {
                try CoordinatedDocument.read(url.path) { reader in
                    try reader.writePDF(toFD: STDOUT_FILENO, outPath: "standard output")
                }
                return
            }
            let out = URL(fileURLWithPath: pdf).standardizedFileURL.path
            do {
                try CoordinatedDocument.exportPDF(of: url.path, to: out, overwrite: force)
            } catch ArchiveError.Code.alreadyExists {
                throw CommandFailure("\(out) exists; pass --force to replace it.")
            }
            FileHandle.standardError.write(Data("wrote \(out)\n".utf8))
        }
    }
}

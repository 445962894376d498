import ArgumentParser
import Foundation
import YianaLibrary
import YianaSync

extension Yiana {
    struct Cloud: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "cloud",
            abstract: "Attach the library to a simulated cloud store.",
            subcommands: [Init.self]
        )

        struct Init: AsyncParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "init",
                abstract: "Attach the library to the cloud store in DIR (created if needed).",
                discussion: """
                    A cloud store is a folder that behaves like iCloud Drive toward every \
                    library attached to it: several libraries attached to one store act as \
                    several devices of one user. The attachment is kept in .yiana/cloud.json.

                    Example:
                      yiana cloud init --library ~/laptop ~/cloud --device laptop
                    """
            )

            @OptionGroup var libraryOptions: LibraryOptions

            @Option(help: "This device's name (default: the host name).")
            var device: String = ProcessInfo.processInfo.hostName

            @Argument(help: ArgumentHelp("The cloud store folder.", valueName: "dir"))
            var store: String

            func run() async throws {
                let library = try libraryOptions.open()
                let attachment = try CloudAttachment.attach(library, store: URL(fileURLWithPath: store), device: device)
                print("attached \(library.root.path) to the cloud store \(attachment.store) as device \"\(attachment.device)\".")
            }
        }
    }
}

import ArgumentParser
import Foundation
import YianaSystem
import YianaVersion

@main
struct Yiana: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "yiana",
        abstract: "Keep a library of Yiana documents (.yianazip) healthy while it syncs between devices.",
        discussion: """
            A library is a folder of .yianazip documents, usually synced by iCloud Drive or \
            another service. Commands find it from --library DIR, else $YIANA_LIBRARY, else the \
            current folder. Every write is crash-safe and coordinated with other yiana processes.

            Exit codes: 0 all went well; 1 some files failed (each is reported, the rest are \
            done); 2 the command line is wrong.
            """,
        version: YianaVersion.string,
        subcommands: [Import.self, Append.self, Inject.self, Info.self, Export.self, Edit.self, Index.self, Search.self, Versions.self, Conflicts.self, Diff.self, Cloud.self, Evict.self, Status.self, Download.self, SyncCommand.self, Verify.self, Repair.self, OCR.self, Extract.self, Rename.self, Move.self, Delete.self, Watch.self, Serve.self, Notify.self, Backup.self, People.self]
    )

    /// Runs the command; usage errors exit with 2 (not ArgumentParser's 64), as documented.
    static func main() async {
        Allocator.tune()
        do {
            var command = try parseAsRoot()
            do {
                if var asyncCommand = command as? AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch {
                await IndexFollower.update(after: command)  // what it wrote before it failed
                throw error
            }
            await IndexFollower.update(after: command)
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

import ArgumentParser
import Foundation
import YianaArchive
import YianaPDF

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
        version: "0.1.0",
        subcommands: [Import.self, Info.self, Export.self, Edit.self, Index.self, Search.self, Versions.self, Conflicts.self, Diff.self, Cloud.self, Evict.self, Status.self, Download.self, SyncCommand.self, Verify.self, Repair.self, OCR.self, Watch.self]
    )

    /// Runs the command; usage errors exit with 2 (not ArgumentParser's 64), as documented.
    static func main() async {
        let poppler = PopplerPreload(for: CommandLine.arguments)
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            poppler?.wait()
        } catch {
            poppler?.wait()
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(2)
            }
            exit(withError: error)
        }
    }
}

/// `import` opens a PDF first thing, and loading poppler takes about 10 ms: it is loaded on a
/// thread of its own while the command line is parsed and the library opened, and libzip
/// after it (the new document is checked with it before it is put in place). The process
/// waits for the thread before it exits, so it never exits in the middle of a load.
final class PopplerPreload: @unchecked Sendable {
    // @unchecked: nothing is shared but the semaphore.
    private let done = DispatchSemaphore(value: 0)

    /// Starts the load when the command is one that needs poppler at once; nil otherwise.
    init?(for arguments: [String]) {
        guard arguments.dropFirst().first == "import" else { return nil }
        let thread = Thread { [done] in
            PDFDocument.prepareForConcurrentUse()
            ZipLibrary.preload()  // the new document is checked with libzip before it is put in place
            done.signal()
        }
        thread.start()
    }

    /// Waits for the load to end; call it once.
    func wait() {
        done.wait()
    }
}

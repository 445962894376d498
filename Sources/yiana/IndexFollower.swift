import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaPostgres
import YianaSearch

/// A command that writes documents: when it is done (or has failed part way), the library's
/// search index, if it has one, is brought up to date for what it wrote (``IndexFollower``).
protocol WritesDocuments {
    var libraryOptions: LibraryOptions { get }
}

/// Keeps an existing search index current with what this process wrote: the documents the
/// coordinated writer wrote or removed (``OwnWrites/changedInThisProcess``), no walk of the
/// library. The index is `$YIANA_INDEX` (a file, or a PostgreSQL database) or else the library's
/// default one (`~/.cache/yiana-tools/`); a library without an index gets none made. A failure
/// here never fails the command: it says what to run.
enum IndexFollower {
    static func update(after command: ParsableCommand) async {
        guard let command = command as? WritesDocuments, let library = try? command.libraryOptions.open() else { return }
        let root = library.root.standardizedFileURL.path + "/"
        let changed = OwnWrites.changedInThisProcess.filter { $0.hasPrefix(root) }.map { URL(fileURLWithPath: $0) }
        guard !changed.isEmpty else { return }
        guard let location = try? IndexLocation.resolve(nil, library: library), location.mayExist else {
            // No index to update: what was written is still kept (the index update keeps it otherwise).
            if Keeper.isEnabled() { await Keeper(library: library).observe(changed) }
            return
        }
        do {
            guard let index = try await location.openExisting(library, writable: true) else { return }
            var options = IndexOptions(jobs: min(2, ProcessInfo.processInfo.activeProcessorCount))
            options.listEveryDocument = false
            _ = try await index.closing { try await Indexer(library: library, index: index).update(changed, options: options) }
        } catch {
            Output.error("the search index (\(location)) could not be updated for the \(Output.count(changed.count, "document")) written: \(error); run `yiana index`.")
        }
    }
}

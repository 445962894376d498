import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

extension Yiana.Versions {
    struct Prune: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "prune",
            abstract: "Drop old versions: the keeper's by its retention, the shared store's by --keep-days/--keep-last.",
            discussion: """
                The keeper (the states this machine saw) keeps, predictably: a deleted or \
                overwritten document's states at least --keep-deleted-days days (30, as \
                iCloud's Recently Deleted); a living document's current state always and its \
                earlier ones thinned (all for a day, one a day for a month, one a week after); \
                all within a disk budget (--keep-budget; default a tenth of the space free to \
                the keeper, counting its own), enforced oldest first. The watcher and `index` \
                prune it this way once a day.

                The shared version store (.yiana/versions, synced) is pruned only when asked: \
                for each document path, the newest --keep-last versions and all versions \
                younger than --keep-days days are kept, the rest removed and their bytes \
                deleted when no other version needs them.

                Use --dry-run to see what would go.

                Examples:
                  yiana versions prune --dry-run
                  yiana versions prune --keep-budget 2G
                  yiana versions prune --keep-days 90 --keep-last 5 --dry-run
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        @Option(help: "Shared store: keep every version younger than this many days.")
        var keepDays: Int?

        @Option(help: "Shared store: keep at least this many of the newest versions of each document.")
        var keepLast: Int?

        @Option(help: "Keeper: keep a deleted document's states this many days at least.")
        var keepDeletedDays = 30

        @Option(help: ArgumentHelp("Keeper: the most its states may take beyond the library (500M, 2G; bytes without a unit).", valueName: "size"))
        var keepBudget: String?

        @Flag(help: "Say what would be removed, remove nothing.")
        var dryRun = false

        @Flag(help: "Print the report as JSON.")
        var json = false

        func validate() throws {
            guard (keepDays ?? 0) >= 0, (keepLast ?? 0) >= 0, keepDeletedDays >= 0 else {
                throw ValidationError("--keep-days, --keep-last and --keep-deleted-days take 0 or more.")
            }
            if let keepBudget, Self.bytes(keepBudget) == nil { throw ValidationError("--keep-budget \(keepBudget): give a size such as 500M or 2G.") }
        }

        /// "500M", "2G", "1.5T", "12345" as bytes.
        static func bytes(_ text: String) -> UInt64? {
            let units: [Character: Double] = ["K": 1024, "M": 1_048_576, "G": 1_073_741_824, "T": 1_099_511_627_776]
            var number = text.uppercased()
            if number.hasSuffix("B") { number.removeLast() }
            let unit = number.last.flatMap { units[$0] }
            if unit != nil { number.removeLast() }
            guard let value = Double(number), value >= 0 else { return nil }
            return UInt64(value * (unit ?? 1))
        }

        struct Report: Encodable {
            let keeper: KeeperPruneReport
            let shared: PruneReport?
        }

        func run() async throws {
            let library = try libraryOptions.open()
            let retention = KeeperRetention(deletedDays: keepDeletedDays, budget: keepBudget.flatMap(Self.bytes))
            let keeper = try Keeper(library: library).prune(retention, dryRun: dryRun)
            let shared = keepDays != nil || keepLast != nil
                ? try VersionStore(library: library).prune(keepDays: keepDays, keepLast: keepLast, dryRun: dryRun) : nil
            if json { return try Output.json(Report(keeper: keeper, shared: shared)) }
            let would = dryRun ? "would be" : "were"
            for record in keeper.dropped {
                print("\(dryRun ? "would drop" : "dropped") \(record.shortID)  \(LocalTime(record.keptAt).text)  \(record.originalPath)  (seen here)")
            }
            for path in keeper.forcedOut {
                Output.error("the budget (\(readableByteCount(keeper.budget))) \(dryRun ? "would force" : "forced") out the last kept state of \(path), deleted less than \(keepDeletedDays) days ago; give a larger --keep-budget to keep it.")
            }
            print("keeper: \(keeper.dropped.count) states \(would) dropped, \(keeper.kept) kept; \(Output.count(keeper.deletedObjects, "stored copy", "stored copies")) "
                  + "\(would) deleted; it takes \(readableByteCount(keeper.costAfter)) beyond the library (budget \(readableByteCount(keeper.budget))).")
            if let shared {
                for record in shared.removed {
                    print("\(dryRun ? "would remove" : "removed") \(record.shortID)  \(record.originalPath)  (\(record.reason))")
                }
                print("shared store: \(shared.removed.count) \(would) removed, \(shared.kept) kept; "
                      + "\(Output.count(shared.deletedObjects, "stored copy", "stored copies")) (\(readableByteCount(shared.freedBytes))) \(would) deleted.")
            }
        }
    }
}

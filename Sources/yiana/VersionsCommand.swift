import ArgumentParser
import Foundation
import YianaArchive
import YianaLibrary
import YianaSystem

extension Yiana {
    struct Versions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "versions",
            abstract: "List, restore and prune the versions the toolkit kept.",
            discussion: """
                Two stores keep versions. Every document yiana replaces, repairs, resolves away \
                or deletes is kept first in the library's hidden .yiana/versions folder, synced \
                to every device, identical bytes once. And every state of a document this \
                machine sees (each `index`, each pass of `watch`, `verify`, `import`…) is kept by \
                this machine's keeper, outside the synced folder (by hard link where it can, so \
                at almost no cost until something changes): a deletion or an overwrite that sync \
                carries here from another device can be undone. `yiana status` says where the \
                keeper is and how it keeps.
                """,
            subcommands: [List.self, Restore.self, Prune.self, DismissAlarm.self]
        )
    }
}

extension Yiana.Versions {
    /// The document a versions command is about: it may no longer exist (then its path);
    /// something there that is not a regular file is refused, as every command refuses it.
    static func documentURL(_ argument: String, in library: Library) throws -> URL {
        switch library.locate(argument) {
        case .document(let url):
            try CommandFailure.unlessRegularFile(url)
            return url
        case .placeholder(_, let document): return document
        case .notFound:
            let name = argument.lowercased().hasSuffix(".\(Library.documentExtension)") ? argument : "\(argument).\(Library.documentExtension)"
            return argument.hasPrefix("/") ? URL(fileURLWithPath: name) : library.root.appendingPathComponent(name)
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List the kept versions of a document, newest first, or the documents lost.",
            discussion: """
                DOC may be a document that no longer exists: its kept versions are listed by \
                its path, and by its metadata id while it exists. The kept versions of the \
                app's files about it (.addresses/<title>.json and .overrides.json) are listed \
                with it, and `versions restore` puts one back under its plain name. States this \
                machine saw say "seen here".

                --deleted lists the documents gone from the library (deleted here or on another \
                device, or overwritten by bytes that are not a document) of which states are \
                kept: when this machine last saw each, when it found it gone, and its states. \
                A moved or renamed document is not gone. It first lists again the folders whose \
                times changed since the last look (the whole library, the first time), so a \
                document deleted while no watcher ran is listed at once, found gone now.

                Examples:
                  yiana versions list "Letters/Bank statement"
                  yiana versions list --json Report | jq '.[0].sha256'
                  yiana versions list --deleted
                  yiana versions list --deleted --since 2h --json

                --repo lists instead the states a restic repository holds (`yiana backup`): \
                those of the newest snapshot, or of the one --snapshot or --at picks, each with \
                when it was seen, its size, SHA-256 and snapshot; with --deleted, the documents \
                that snapshot holds and this library does not. States the keeper had dropped \
                before a snapshot are in the older snapshots (`yiana backup snapshots`).

                  yiana versions list --repo /media/backup/yiana "Letters/Bank statement"
                  yiana versions list --repo sftp:me@nas:/srv/restic/yiana --deleted --at 2026-11-01
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions
        @OptionGroup var backupOptions: BackupSourceOptions

        @Flag(help: "Print the versions as JSON.")
        var json = false

        @Flag(help: "List the documents no longer in the library (deleted or overwritten) and their kept states.")
        var deleted = false

        @Option(help: ArgumentHelp("With --deleted: only those lost since then (2h, 3d, 2026-11-25, '2026-11-25 14:30').", valueName: "time"))
        var since: String?

        @Argument(help: ArgumentHelp("The document.", valueName: "doc"))
        var document: String?

        func validate() throws {
            if deleted, document != nil { throw ValidationError("give a document or --deleted, not both.") }
            if !deleted, document == nil { throw ValidationError("say which document (or --deleted for the documents lost).") }
            if since != nil, !deleted { throw ValidationError("--since goes with --deleted.") }
            if let since, Moment.parse(since) == nil { throw ValidationError("--since \(since): not a time; give e.g. 2h, 3d, 2026-11-25 or '2026-11-25 14:30'.") }
            if backupOptions.reading, since != nil { throw ValidationError("--since goes with the keeper's list, not with --repo (--at picks a snapshot).") }
            try backupOptions.validate()
        }

        func run() async throws {
            let library = try libraryOptions.open()
            if backupOptions.reading { return try await backupOptions.list(library, document: document, json: json) }
            guard let document else { return try await listLost(library) }
            let url = try Yiana.Versions.documentURL(document, in: library)
            let versions = try VersionStore(library: library).versions(of: url)
            if json { return try Output.json(versions) }
            guard !versions.isEmpty else {
                print("no kept versions of \(library.relativePath(of: url) ?? url.path).")
                return
            }
            var text = [UInt8]()
            for version in versions { Self.append(version, to: &text) }
            print(String(decoding: text, as: UTF8.self), terminator: "")
        }

        private func listLost(_ library: Library) async throws {
            let lost = await Keeper(library: library).lostNow(since: since.flatMap { Moment.parse($0) })
            if json { return try Output.json(lost) }
            guard !lost.isEmpty else {
                print("no documents lost\(since.map { " since \($0)" } ?? ""): every document this machine saw is still in the library.")
                return
            }
            // One write of the whole listing, put together as bytes: a year's history lists
            // hundreds of states, and a string interpolated for each cost as much as reading it.
            var text = [UInt8]()
            for document in lost {
                let what = document.how == .deleted ? "deleted" : "overwritten by bytes that are not a document"
                text += "\(document.path)  \(what); found \(LocalTime(document.goneAt).text), last seen \(LocalTime(document.lastSeen).text)\n".utf8
                for version in document.versions {
                    text += "    ".utf8
                    Self.append(version, to: &text)
                }
            }
            text += "\(Output.count(lost.count, "document")) lost; `yiana versions restore DOC VERSION` brings one back, ".utf8
            text += "`yiana versions restore --deleted --since TIME` all lost since then.\n".utf8
            print(String(decoding: text, as: UTF8.self), terminator: "")
        }

        /// A state's line: `0c576a6c0162  2026-11-29 01:02:19  2.6 KB      seen here  (Folder/Doc.yianazip)`.
        static func append(_ version: VersionRecord, to text: inout [UInt8]) {
            let size = readableByteCount(version.size)
            text += version.shortID.utf8
            text += "  ".utf8
            text += LocalTime(version.keptAt).text.utf8
            text += "  ".utf8
            text += size.utf8
            text += repeatElement(UInt8(ascii: " "), count: max(0, 10 - size.utf8.count))
            text += "  ".utf8
            text += version.reason.utf8
            text += "  (".utf8
            text += version.originalPath.utf8
            text += ")\n".utf8
        }
    }

    struct DismissAlarm: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "dismiss-alarm",
            abstract: "Lower the mass-loss alarm once you know the loss was meant.",
            discussion: """
                The alarm is raised when more than a tenth of the library (and at least 5 \
                documents) is deleted or overwritten within an hour, and stays until the \
                documents are back or this command lowers it. Nothing kept is dropped.

                Example:
                  yiana status; yiana versions list --deleted; yiana versions dismiss-alarm
                """
        )

        @OptionGroup var libraryOptions: LibraryOptions

        func run() async throws {
            let library = try libraryOptions.open()
            guard let alarm = Keeper(library: library).dismissAlarm() else { return print("no alarm is raised.") }
            print("alarm lowered (\(alarm.lost) documents lost since \(LocalTime(alarm.since).text)); their states stay kept: `yiana versions list --deleted`.")
        }
    }
}
